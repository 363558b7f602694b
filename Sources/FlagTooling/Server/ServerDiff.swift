import FeatureFlags
import FlagServerClient

/// The differences between the app's manifest and a flag server's definitions, as `flags diff`
/// prints them and `flags push` would apply them.
///
/// Both sides are compared as server definitions, the app's as `flags push` would write it over
/// the server's (``ServerFlag/registration(over:)``: the server's variants kept, only missing
/// ones added), so a difference is exactly something `flags push` changes: the type, a variant
/// the server lacks, the code default's variant, the registry metadata the server keeps, and each
/// key of the flag's own metadata (`x-` annotations) the manifest sets otherwise. What the
/// server leaves unset (the code default of a flag created in the console, its display name)
/// is no difference when the app says what `flags pull` reads for it, so a pulled manifest
/// compares clean. Flags only on the server are listed; `flags push` leaves them alone.
///
/// ```swift
/// let diff = ServerDiff(code: manifest.flags.map(ServerFlag.init), server: try client.definitions())
/// if !diff.isEmpty { print(diff.text()) }
/// ```
public struct ServerDiff: Sendable, Hashable {
    /// One field that differs.
    public struct FieldChange: Sendable, Hashable {
        /// `variants`, `defaultVariant`, a metadata field (`owner`, `phase`, …), or a key of the
        /// flag's own metadata (`x-team`).
        public var field: String
        /// The value in code (the manifest) and on the server, as JSON text (`null` when absent).
        public var code: String
        /// The value on the server, as JSON text (`null` when absent).
        public var server: String

        /// A difference in `field`.
        public init(field: String, code: String, server: String) {
            self.field = field
            self.code = code
            self.server = server
        }
    }

    /// A flag whose definition differs, with the fields.
    public struct ChangedFlag: Sendable, Hashable {
        /// The flag's key.
        public var key: String
        /// The fields that differ.
        public var changes: [FieldChange]
        /// Whether either side marks the flag sensitive: its values print as `<REDACTED>`.
        public var isSensitive: Bool

        /// A changed flag.
        public init(key: String, changes: [FieldChange], isSensitive: Bool) {
            self.key = key
            self.changes = changes
            self.isSensitive = isSensitive
        }
    }

    /// A flag whose type in code is not the server's.
    public struct TypeMismatch: Sendable, Hashable {
        /// The flag's key.
        public var key: String
        /// The type the manifest declares.
        public var code: FlagValueType
        /// The type the server holds.
        public var server: FlagValueType

        /// A flag whose type differs.
        public init(key: String, code: FlagValueType, server: FlagValueType) {
            self.key = key
            self.code = code
            self.server = server
        }
    }

    /// Flags in the manifest that the server does not have, in manifest order.
    public var added: [String]
    /// Flags on the server that the manifest does not have, by key.
    public var removed: [String]
    /// Flags on both sides with the same type and other differences, in manifest order.
    public var changed: [ChangedFlag]
    /// Flags on both sides with different types, in manifest order.
    public var typeMismatches: [TypeMismatch]

    /// Compares the app's definitions (`code`) with the server's.
    public init(code: [ServerFlag], server: [ServerFlag]) {
        let serverFlags = Dictionary(server.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let codeKeys = Set(code.map(\.key))
        added = []
        changed = []
        typeMismatches = []
        removed = serverFlags.keys.filter { !codeKeys.contains($0) }.sorted()
        for flag in code {
            guard let other = serverFlags[flag.key] else {
                added.append(flag.key)
                continue
            }
            guard flag.type == other.type else {
                typeMismatches.append(
                    TypeMismatch(key: flag.key, code: flag.type.manifestType, server: other.type.manifestType))
                continue
            }
            let changes = Self.fieldChanges(flag.registration(over: other), other)
            if !changes.isEmpty {
                changed.append(
                    ChangedFlag(
                        key: flag.key, changes: changes, isSensitive: flag.metadata.sensitive || other.metadata.sensitive))
            }
        }
    }

    /// Whether the two sides hold the same definitions.
    public var isEmpty: Bool { added.isEmpty && removed.isEmpty && changed.isEmpty && typeMismatches.isEmpty }

    private static func fieldChanges(_ code: ServerFlag, _ server: ServerFlag) -> [FieldChange] {
        var changes: [FieldChange] = []
        func compare(_ field: String, _ a: FlagValue?, _ b: FlagValue?) {
            guard a != b else { return }
            changes.append(FieldChange(field: field, code: a?.jsonString ?? "null", server: b?.jsonString ?? "null"))
        }
        func strings(_ list: [String]) -> FlagValue { .array(list.map(FlagValue.string)) }
        // JSON does not keep `30.0` apart from `30` (the server answers either as `30`), so
        // numbers are compared by value.
        let codeVariants = FlagValue.object(code.variants)
        let serverVariants = FlagValue.object(server.variants)
        if codeVariants.comparableNumbers != serverVariants.comparableNumbers {
            changes.append(FieldChange(field: "variants", code: codeVariants.jsonString, server: serverVariants.jsonString))
        }
        // Unset on the server: what a pull reads for it (see `manifestFlag(settings:)`).
        let serverDefault = server.defaultVariant ?? code.defaultVariant.flatMap {
            $0 == server.manifestDefaultVariant(settings: nil) ? $0 : nil
        }
        compare("defaultVariant", code.defaultVariant.map(FlagValue.string), serverDefault.map(FlagValue.string))
        let a = code.metadata
        let b = server.metadata
        let serverName = b.displayName ?? a.displayName.flatMap { $0 == FlagDefinition.displayName(forKey: server.key) ? $0 : nil }
        compare("displayName", a.displayName.map(FlagValue.string), serverName.map(FlagValue.string))
        compare("description", a.description.map(FlagValue.string), b.description.map(FlagValue.string))
        compare("owner", a.owner.map(FlagValue.string), b.owner.map(FlagValue.string))
        compare("phase", a.phase.map(FlagValue.int), b.phase.map(FlagValue.int))
        compare("removalTarget", a.removalTarget.map(FlagValue.string), b.removalTarget.map(FlagValue.string))
        compare("requires", strings(a.requires), strings(b.requires))
        compare("conflicts", strings(a.conflicts), strings(b.conflicts))
        compare("sensitive", .bool(a.sensitive), .bool(b.sensitive))
        // The flag's own metadata, key by key (a push keeps the server's other keys): numbers by value.
        for key in Set(a.custom.keys).union(b.custom.keys).sorted() where a.custom[key]?.comparableNumbers != b.custom[key]?.comparableNumbers {
            changes.append(FieldChange(field: key, code: a.custom[key]?.jsonString ?? "null", server: b.custom[key]?.jsonString ?? "null"))
        }
        return changes
    }
}
