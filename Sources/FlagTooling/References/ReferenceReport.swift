import FeatureFlags
import FlagManifest

/// What ``ReferenceFinder`` found.
public struct ReferenceReport: Sendable {
    /// The manifest whose flags were looked for.
    public let manifest: Manifest
    /// Every reference, in file and line order.
    public var references: [FlagReference] = []
    /// Keys used in code that the manifest does not declare.
    public var unknownKeys: [UnknownKeyReference] = []
    /// Generated files, which were read for declarations but not counted as references.
    public var skippedGeneratedFiles: [String] = []

    init(manifest: Manifest) {
        self.manifest = manifest
    }

    /// The references to one flag.
    public func references(toKey key: String) -> [FlagReference] {
        references.filter { $0.key == key }
    }

    /// Flags with no reference, in manifest order.
    public var unreferencedKeys: [String] {
        let referenced = Set(references.map(\.key))
        return manifest.flags.map(\.key).filter { !referenced.contains($0) }
    }

    /// Flags whose removal target is at or below `version`, in manifest order.
    public func dueForRemoval(at version: AppVersion) -> [FlagDefinition] {
        manifest.definitions.filter { definition in
            guard let target = definition.removalTarget.flatMap(AppVersion.init) else { return false }
            return target <= version
        }
    }

    /// The human-readable report; with a server's `evidence`, a last section lists the flags
    /// it finds unused or settled, with their references.
    public func text(appVersion: AppVersion?, evidence: ServerEvidence? = nil) -> String {
        var output = ""
        for flag in manifest.flags {
            let found = references(toKey: flag.key)
            guard !found.isEmpty else { continue }
            output += "\(flag.key): \(found.count) reference\(found.count == 1 ? "" : "s")\n"
            for reference in found {
                output += "  \(reference.file):\(reference.line): \(reference.kind.rawValue) \(reference.text)\n"
            }
        }
        let unreferenced = unreferencedKeys
        output += "\nUnreferenced flags (\(unreferenced.count)):\n"
        output += unreferenced.isEmpty ? "  none\n" : unreferenced.map { "  \($0)\n" }.joined()
        output += "\nKeys not in the manifest (\(unknownKeys.count)):\n"
        output += unknownKeys.isEmpty
            ? "  none\n"
            : unknownKeys.map { "  \($0.file):\($0.line): \"\($0.key)\" (\($0.context))\n" }.joined()
        if let appVersion {
            let due = dueForRemoval(at: appVersion)
            output += "\nDue for removal at \(appVersion) (\(due.count)):\n"
            if due.isEmpty { output += "  none\n" }
            for definition in due {
                let found = references(toKey: definition.key)
                let owner = definition.owner.map { ", owner \($0)" } ?? ""
                output += "  \(definition.key) (target \(definition.removalTarget ?? "")\(owner)): "
                output += found.isEmpty ? "no references; remove it from the manifest\n" : "\(found.count) reference\(found.count == 1 ? "" : "s")\n"
                for reference in found { output += "    \(reference.file):\(reference.line)\n" }
            }
        }
        if let evidence {
            let removable = removable(evidence)
            output += "\nUnused or settled in \(evidence.environment), from the server's events over \(evidence.days) days (\(removable.count)):\n"
            if removable.isEmpty { output += "  none\n" }
            for (flag, found) in removable {
                let references = references(toKey: flag.key)
                output += "  \(flag.key): \(evidence.sentence(for: found)); "
                output += references.isEmpty ? "no references\n" : "\(references.count) reference\(references.count == 1 ? "" : "s")\n"
                for reference in references { output += "    \(reference.file):\(reference.line)\n" }
            }
        }
        return output
    }

    /// The manifest's flags that `evidence` finds unused or settled, in manifest order.
    func removable(_ evidence: ServerEvidence) -> [(ManifestFlag, ServerEvidence.Flag)] {
        manifest.flags.compactMap { flag in
            guard let found = evidence[flag.key], found.state == .unused || found.state == .settled else { return nil }
            return (flag, found)
        }
    }

    /// The report as JSON; with a server's `evidence`, `evidence` lists the flags it finds
    /// unused or settled.
    public func json(appVersion: AppVersion?, evidence: ServerEvidence? = nil) -> String {
        var object: [String: FlagValue] = [
            "flags": .array(manifest.flags.map { flag in
                [
                    "key": .string(flag.key),
                    "references": .array(references(toKey: flag.key).map(\.json)),
                ]
            }),
            "unreferenced": .array(unreferencedKeys.map(FlagValue.string)),
            "unknownKeys": .array(unknownKeys.map(\.json)),
        ]
        if let appVersion {
            object["appVersion"] = .string(appVersion.description)
            object["dueForRemoval"] = .array(dueForRemoval(at: appVersion).map { definition in
                [
                    "key": .string(definition.key),
                    "removalTarget": .string(definition.removalTarget ?? ""),
                    "owner": definition.owner.map(FlagValue.string) ?? .null,
                    "references": .array(references(toKey: definition.key).map(\.json)),
                ]
            })
        }
        if let evidence {
            object["evidence"] = [
                "environment": .string(evidence.environment), "days": .int(evidence.days),
                "flags": .array(removable(evidence).map { flag, found in
                    var entry: [String: FlagValue] = [
                        "key": .string(flag.key), "state": .string(found.state.rawValue),
                        "evidence": .string(evidence.sentence(for: found)),
                        "references": .array(references(toKey: flag.key).map(\.json)),
                    ]
                    if let run = found.run, found.state == .settled {
                        entry["variant"] = .string(run.variant)
                        entry["since"] = .string(ServerEvidence.day(run.since))
                        entry["appVersions"] = .array(run.appVersions.map(FlagValue.string))
                    }
                    if let last = found.lastEvaluated { entry["lastEvaluated"] = .string(ServerEvidence.day(last)) }
                    return .object(entry)
                }),
            ]
        }
        return FlagValue.object(object).jsonString + "\n"
    }
}
