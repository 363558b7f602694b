import FlagEvaluation
import FlagManifest
import FlagServerModel
import Foundation

/// Reads a flagd flag-definition document (or a project manifest, which is one) into changes of
/// one environment: each flag's definition and settings, and `$evaluators` as segments.
///
/// Registry metadata is read from each flag's `metadata` in the manifest encoding (`type`,
/// `displayName`, `description`, `owner`, `phase`, `removalTarget`, `requires`/`conflicts` as
/// comma-separated keys, `sensitive`); every other metadata key is the flag's own flagd metadata
/// (``FlagRecordMetadata/custom``), kept as written and served with its evaluations. What flagd accepts
/// is accepted: a flag without `defaultVariant` (or with `null`), `targeting: {}`. A flagd
/// document's flag-set `metadata` is merged into every flag's metadata, the flag's own keys
/// winning, as flagd does, so it is served with every evaluation of the flag. A manifest's
/// top-level metadata names the manifest (`flagSetId`, `version`) and is not merged: the
/// manifest format allows a flag only registry fields and `x-` keys.
///
/// The flag's code default (``FlagRecord/defaultVariant``, what `flags push` records) travels as
/// the metadata key `x-codeDefault`, which the export writes and the manifest format keeps as a
/// team annotation; the document's `defaultVariant` is the environment's. A flag without
/// `x-codeDefault` keeps the code default recorded on the server while it is still one of the
/// imported variants (see ``keepingCodeDefaults(_:of:)``).
enum FlagdImporter {
    /// The metadata key that carries a flag's code default in exports and imports.
    static let codeDefaultKey = FlagRecord.codeDefaultKey

    enum Format: String {
        case flagd, manifest
    }

    /// The changes importing `text` into `environment` makes, refused with every flag that does
    /// not read named (``AdminError/invalid(_:)``).
    static func changes(
        importing text: String, format: Format, into environment: String
    ) throws(AdminError) -> [StateChange] {
        let (changes, problems) = try reading(text, format: format, into: environment)
        guard problems.isEmpty else { throw .invalid(problems) }
        return changes
    }

    /// The changes of the flags of `text` that read, and the problems of those that do not (a
    /// dry run lists both); a document that does not read at all throws.
    static func reading(
        _ text: String, format: Format, into environment: String
    ) throws(AdminError) -> (changes: [StateChange], problems: [ValidationError]) {
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
        // flagd merges the flag set's metadata into every flag's, the flag's own keys winning. A
        // manifest's top-level metadata (`flagSetId`, `version`) names the manifest itself, and its
        // flags may not carry such keys: merged, they would export as a manifest that does not read.
        var setMetadata: [String: JSONValue] = [:]
        if format == .flagd, let value = root["metadata"] {
            guard case .object(let members) = value else {
                throw .badRequest("metadata: the flag set's metadata must be an object, got \(value.typeName)")
            }
            setMetadata = members
        }
        var changes: [StateChange] = []
        var problems: [ValidationError] = []
        for (key, entry) in flags.sorted(by: { $0.key < $1.key }) {
            do {
                let (flag, settings) = try read(key: key, entry, setMetadata: setMetadata)
                changes.append(.putFlag(flag, initialSettings: FlagSettings(enabled: false, defaultVariant: settings.defaultVariant)))
                changes.append(.putSettings(environment: environment, flag: key, settings))
            } catch {
                guard case .invalid(let found) = error else { throw error }
                problems += found
            }
        }

        if let evaluators = root["$evaluators"] {
            guard case .object(let members) = evaluators else {
                throw .badRequest("$evaluators: must be an object of named rules, got \(evaluators.typeName)")
            }
            for (key, rule) in members.sorted(by: { $0.key < $1.key }) {
                changes.append(.putSegment(environment: environment, key: key, rule: rule))
            }
        }
        return (changes, problems)
    }

    static func read(
        key: String, _ entry: JSONValue, setMetadata: [String: JSONValue] = [:]
    ) throws(AdminError) -> (FlagRecord, FlagSettings) {
        func fail(_ field: String, _ problem: String) -> AdminError {
            .invalid([ValidationError(key: key, field: field, problem: problem)])
        }
        guard case .object = entry else { throw fail("definition", "must be an object, got \(entry.typeName)") }
        guard case .object(let variants) = entry["variants"] ?? .null, !variants.isEmpty else {
            throw fail("variants", "must be an object with at least one variant")
        }
        var metadata = setMetadata
        if let value = entry["metadata"] {
            guard case .object(let members) = value else { throw fail("metadata", "must be an object, got \(value.typeName)") }
            metadata.merge(members) { _, own in own }
        }
        let type: FlagType
        if let name = metadata.removeValue(forKey: "type") {
            guard let text = name.stringValue, let parsed = FlagType(manifestName: text) else {
                throw fail("metadata.type", "must be boolean, string, integer, float (or double) or object, got \(name.serialized())")
            }
            type = parsed
        } else {
            type = inferType(variants.values)
        }
        // flagd allows a flag without a default variant (null or absent): the caller's code
        // default is served when targeting does not pick a variant.
        let defaultVariant: String?
        switch entry["defaultVariant"] ?? .null {
        case .null: defaultVariant = nil
        case .string(let name): defaultVariant = name
        case let other: throw fail("defaultVariant", "must be a variant name or null, got \(other.typeName)")
        }
        guard case .string(let state) = entry["state"] ?? .string("ENABLED"), state == "ENABLED" || state == "DISABLED" else {
            throw fail("state", "must be \"ENABLED\" or \"DISABLED\", got \((entry["state"] ?? .null).serialized())")
        }
        func text(_ name: String) throws(AdminError) -> String? {
            guard let value = metadata.removeValue(forKey: name) else { return nil }
            guard let text = value.stringValue else { throw fail("metadata.\(name)", "must be a string, got \(value.typeName)") }
            return text
        }
        func list(_ name: String) throws(AdminError) -> [String] {
            (try text(name) ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        metadata["key"] = nil  // the manifest encoding repeats the flag key; the key is the entry's
        let codeDefault = try text(codeDefaultKey)
        let phase: Int?
        switch metadata.removeValue(forKey: "phase") {
        case nil: phase = nil
        case let value?:
            guard let number = value.intValue else { throw fail("metadata.phase", "must be a whole number, got \(value.serialized())") }
            phase = number
        }
        let sensitive: Bool
        switch metadata.removeValue(forKey: "sensitive") {
        case nil: sensitive = false
        case let value?:
            guard let flag = value.boolValue else { throw fail("metadata.sensitive", "must be true or false, got \(value.serialized())") }
            sensitive = flag
        }
        let flag = FlagRecord(
            key: key, type: type, variants: variants,
            metadata: FlagRecordMetadata(
                displayName: try text("displayName"), description: try text("description"), owner: try text("owner"),
                phase: phase, removalTarget: try text("removalTarget"), requires: try list("requires"),
                conflicts: try list("conflicts"), sensitive: sensitive, custom: metadata),
            defaultVariant: codeDefault)
        let targeting = entry["targeting"].flatMap { $0 == .object([:]) ? nil : $0 }
        return (flag, FlagSettings(enabled: state == "ENABLED", defaultVariant: defaultVariant, targeting: targeting))
    }

    /// `changes` with each imported flag that names no code default given the one `state` records
    /// for it, if that is still one of the imported variants (an import does not mean to change
    /// what the app's code falls back to; a code default whose variant is gone is dropped, and
    /// the dry run shows it).
    static func keepingCodeDefaults(_ changes: [StateChange], of state: ServerState) -> [StateChange] {
        changes.map { change in
            guard case .putFlag(var flag, let initial) = change, flag.defaultVariant == nil,
                let recorded = state.flags[flag.key]?.defaultVariant, flag.variants[recorded] != nil
            else { return change }
            flag.defaultVariant = recorded
            return .putFlag(flag, initialSettings: initial)
        }
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
