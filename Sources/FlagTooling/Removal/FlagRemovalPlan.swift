import FeatureFlags
import FlagManifest
import FlagServerClient
import Foundation

/// The changes ``FlagRemover`` would make.
public struct FlagRemovalPlan: Sendable {
    /// One Swift file's rewrite.
    public struct FileEdit: Sendable {
        /// The file's path.
        public let path: String
        /// The file's text before the rewrite.
        public let before: String
        /// The file's text after it.
        public let after: String
        /// What the rewrite did, as short phrases.
        public let notes: [String]
    }

    /// The key of the flag removed.
    public let key: String
    /// Whether the flag stays on (`true`: the code it guards is kept) or off (that code is removed).
    public let keep: Bool
    /// The Swift files the rewrite changes.
    public let edits: [FileEdit]
    /// The manifest without the flag.
    public let manifest: Manifest
    /// References the rewrite could not remove (key strings, unusual uses): edit them by hand.
    public let remaining: [FlagReference]
    /// Things to review.
    public let notes: [String]

    /// The manifest's new text: the original with the flag cut out, keeping its formatting,
    /// when that reads back as the expected manifest; otherwise the manifest written anew.
    public func manifestText(before: String) -> String {
        if let edited = ManifestTextEditor.removingFlag(key, from: before),
            let reread = try? ManifestReader().read(edited, file: "manifest"),
            reread.flags.map(\.key) == manifest.flags.map(\.key),
            zip(reread.definitions, manifest.definitions).allSatisfy({
                $0.requires == $1.requires && $0.conflicts == $1.conflicts
            })
        {
            return edited
        }
        return manifest.jsonString()
    }

    /// A diff of every file and the manifest, then a summary.
    public func summary(manifestPath: String, manifestBefore: String) -> String {
        var output = ""
        for edit in edits {
            output += LineDiff.unified(from: edit.before, to: edit.after, path: edit.path)
        }
        output += LineDiff.unified(from: manifestBefore, to: manifestText(before: manifestBefore), path: manifestPath)
        output += "\nRemoved '\(key)', kept \(keep ? "on" : "off"): \(edits.count) file\(edits.count == 1 ? "" : "s") rewritten"
        output += ", manifest updated.\n"
        for edit in edits {
            var counts: [String: Int] = [:]
            for note in edit.notes { counts[note, default: 0] += 1 }
            let described = counts.keys.sorted().map { counts[$0]! > 1 ? "\($0) (×\(counts[$0]!))" : $0 }
            output += "  \(edit.path): \(described.joined(separator: ", "))\n"
        }
        for note in notes { output += "note: \(note)\n" }
        for reference in remaining {
            output += "left for you: \(reference.file):\(reference.line): \(reference.kind.rawValue) \(reference.text)\n"
        }
        return output
    }

    /// What a server's removal evidence says about this removal, as lines for the plan: the
    /// evidence itself (which variant every unit got, since when, on which app versions), and a
    /// warning when the kept value is not the one the server served everyone, or when the flag
    /// is still served several variants.
    public func evidenceText(_ evidence: ServerEvidence) -> String {
        guard let found = evidence[key] else {
            return "evidence: the server has no flag '\(key)' in \(evidence.environment).\n"
        }
        var output = "evidence: '\(key)' is \(evidence.sentence(for: found)).\n"
        let kept = keep ? "on" : "off"
        switch found.state {
        case .settled:
            if let variant = found.run?.variant, ["on", "off", "true", "false"].contains(variant) {
                let served = variant == "on" || variant == "true" ? "on" : "off"
                output += served == kept
                    ? "evidence: keeping \(kept) keeps what every unit was served.\n"
                    : "warning: every unit was served \(served), but this removal keeps \(kept): their behaviour changes. Keep \(served) with --keep \(served).\n"
            }
        case .active:
            output += "warning: the server still serves '\(key)' in \(evidence.environment) (\(found.reason)): keeping \(kept) changes what some units get.\n"
        case .unused, .unknown:
            break
        }
        return output
    }

    /// Writes the rewritten files and the manifest (each atomically).
    public func apply(manifestPath: String, manifestBefore: String) throws(ToolingError) {
        do {
            for edit in edits {
                try Data(edit.after.utf8).write(to: URL(fileURLWithPath: edit.path), options: .atomic)
            }
            try Data(manifestText(before: manifestBefore).utf8).write(
                to: URL(fileURLWithPath: manifestPath), options: .atomic)
        } catch {
            throw ToolingError(.invalidInput, "Cannot write the rewritten files: \(error.localizedDescription)")
        }
    }
}
