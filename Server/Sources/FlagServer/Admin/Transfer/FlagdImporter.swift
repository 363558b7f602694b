import FlagEvaluation
import FlagManifest
import Foundation

/// Reads a flagd flag-definition document (or a project manifest, which is one) into changes of
/// one environment: each flag's definition and settings, and `$evaluators` as segments.
///
/// Registry metadata is read from each flag's `metadata` in the manifest encoding (`type`,
/// `displayName`, `description`, `owner`, `phase`, `removalTarget`, `requires`/`conflicts` as
/// comma-separated keys, `sensitive`); other metadata keys are not stored.
enum FlagdImporter {
    enum Format: String {
        case flagd, manifest
    }

    static func changes(
        importing text: String, format: Format, into environment: String
    ) throws(AdminError) -> [StateChange] {
        if format == .manifest {
            // The manifest's own reader checks what the manifest format adds to flagd's.
            do {
                _ = try ManifestReader().read(text, file: "import")
            } catch {
                throw .badRequest("the manifest does not read: \(error.description)")
            }
        }
        let root: JSONValue
        do {
            root = try JSONValue(parsing: text)
        } catch {
            throw .badRequest("the document is not JSON: \(error)")
        }
        guard case .object(let flags) = root["flags"] ?? .null else {
            throw .badRequest("flags: the document needs a \"flags\" object")
        }
        var changes: [StateChange] = []
        for (key, entry) in flags.sorted(by: { $0.key < $1.key }) {
            let (flag, settings) = try read(key: key, entry)
            changes.append(.putFlag(flag, initialSettings: FlagSettings(enabled: false, defaultVariant: settings.defaultVariant)))
            changes.append(.putSettings(environment: environment, flag: key, settings))
        }
        if let evaluators = root["$evaluators"] {
            guard case .object(let members) = evaluators else {
                throw .badRequest("$evaluators: must be an object of named rules, got \(evaluators.typeName)")
            }
            for (key, rule) in members.sorted(by: { $0.key < $1.key }) {
                changes.append(.putSegment(environment: environment, key: key, rule: rule))
            }
        }
        return changes
    }

    static func read(key: String, _ entry: JSONValue) throws(AdminError) -> (FlagRecord, FlagSettings) {
        func fail(_ field: String, _ problem: String) -> AdminError {
            .invalid([ValidationError(key: key, field: field, problem: problem)])
        }
        guard case .object(let variants) = entry["variants"] ?? .null, !variants.isEmpty else {
            throw fail("variants", "must be an object with at least one variant")
        }
        let metadata = entry["metadata"]?.objectValue ?? [:]
        let type: FlagType
        if let name = metadata["type"] {
            guard let text = name.stringValue, let parsed = FlagType(manifestName: text) else {
                throw fail("metadata.type", "must be boolean, string, integer, float (or double) or object, got \(name.serialized())")
            }
            type = parsed
        } else {
            type = inferType(variants.values)
        }
        guard let defaultVariant = entry["defaultVariant"]?.stringValue else {
            throw fail("defaultVariant", "must name a variant (the server needs a default variant for every flag)")
        }
        let state = entry["state"]?.stringValue ?? "ENABLED"
        guard state == "ENABLED" || state == "DISABLED" else { throw fail("state", "must be ENABLED or DISABLED, got \"\(state)\"") }
        func list(_ name: String) -> [String] {
            (metadata[name]?.stringValue ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
        }
        let flag = FlagRecord(
            key: key, type: type, variants: variants,
            metadata: FlagMetadata(
                displayName: metadata["displayName"]?.stringValue, description: metadata["description"]?.stringValue,
                owner: metadata["owner"]?.stringValue, phase: metadata["phase"]?.intValue,
                removalTarget: metadata["removalTarget"]?.stringValue, requires: list("requires"),
                conflicts: list("conflicts"), sensitive: metadata["sensitive"]?.boolValue ?? false))
        let targeting = entry["targeting"].flatMap { $0 == .object([:]) ? nil : $0 }
        return (flag, FlagSettings(enabled: state == "ENABLED", defaultVariant: defaultVariant, targeting: targeting))
    }

    /// The type every variant has (integers and fractions together are float).
    static func inferType(_ values: some Collection<JSONValue>) -> FlagType {
        if values.allSatisfy({ if case .bool = $0 { true } else { false } }) { return .boolean }
        if values.allSatisfy({ if case .string = $0 { true } else { false } }) { return .string }
        if values.allSatisfy({ if case .int = $0 { true } else { false } }) { return .integer }
        if values.allSatisfy(\.isNumber) { return .float }
        return .object
    }
}
