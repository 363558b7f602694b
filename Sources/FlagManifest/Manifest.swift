import FeatureFlags

/// A flag manifest: one flagd flag-definition file that describes a whole registry.
///
/// Each flag is a valid flagd flag (`state`, `variants`, `defaultVariant`) whose `metadata`
/// carries the registry fields, so the same file serves code generation, the `flags` command,
/// the targeting engine and a flag server:
///
/// ```json
/// "chat_view_redesign": {
///   "state": "ENABLED",
///   "variants": { "on": true, "off": false },
///   "defaultVariant": "off",
///   "metadata": {
///     "key": "chat_view_redesign", "type": "boolean", "displayName": "Chat view redesign",
///     "owner": "messaging", "phase": 2, "removalTarget": "3.0",
///     "requires": "navigation_split_view", "default.release": false
///   }
/// }
/// ```
///
/// flagd allows only strings, numbers and Booleans as metadata values, so the registry fields
/// are encoded as follows:
///
/// | metadata key | value |
/// |---|---|
/// | `key` | the flag key (must equal the key in `flags`) |
/// | `type` | `boolean`, `integer`, `double`, `string` or `object` (inferred from the default variant when absent) |
/// | `displayName`, `description`, `owner`, `removalTarget` | strings |
/// | `phase` | a whole number ≥ 0 |
/// | `default.debug`, `default.alpha`, `default.internal`, `default.release` | the build configuration's default: the value itself for Boolean, number and string flags; JSON text in a string for `object` flags |
/// | `followsPhasePolicy` | Boolean; written only when it differs from the default (Boolean flags `true`, others `false`) |
/// | `userTogglable`, `sensitive` | Booleans; written when `true` |
/// | `checking` | `buildOnly`, `userOnly` or `buildAndUser`; written when it differs from the default (Boolean flags `buildAndUser`, others `userOnly`) |
/// | `requires`, `conflicts` | comma-separated flag keys |
/// | `swiftName` | the Swift name of the enum case or typed value, written when it is not the one derived from the key (`iPadLayouts` for `ipad_layouts`); `flags generate` uses it |
/// | `x-…` | free for teams' own annotations, kept and ignored |
///
/// Any other metadata key is an error, so that typos do not go unnoticed. The code default is
/// the default variant: Boolean flags have the variants `on` and `off`, other flags a single
/// variant `default`.
public struct Manifest: Sendable {
    /// The flags, in file order.
    public var flags: [ManifestFlag]
    /// flagd's flag-set metadata `flagSetId`.
    public var flagSetID: String?
    /// flagd's flag-set metadata `version`.
    public var version: String?
    /// Flag keys that appear more than once in `flags`, with the lines they appear on (only the
    /// first occurrence is in ``flags``). Filled only by a lenient read, for linting.
    public var duplicateKeys: [(key: String, lines: [Int])]

    /// A manifest of `flags`, with flagd's `flagSetId` and the manifest's version when given.
    public init(flags: [ManifestFlag], flagSetID: String? = nil, version: String? = nil) {
        self.flags = flags
        self.flagSetID = flagSetID
        self.version = version
        self.duplicateKeys = []
    }

    /// A manifest describing every flag of a registry, in registry order.
    public init(registry: FlagRegistry, flagSetID: String? = nil, version: String? = nil) {
        self.init(definitions: registry.definitions, flagSetID: flagSetID, version: version)
    }

    /// A manifest describing a flag enum and its typed values, in registry order; cases whose
    /// Swift name is not the one derived from the key carry it in ``ManifestFlag/swiftName``.
    ///
    /// - Throws: ``FlagRegistryError`` when the declarations are inconsistent.
    public init<Key: FeatureFlagKey>(
        _ keys: Key.Type, flagSetID: String? = nil, version: String? = nil
    ) throws(FlagRegistryError) {
        self.init(registry: try FlagRegistry(keys), flagSetID: flagSetID, version: version)
        var caseNames: [String: String] = [:]
        let typeName = String(reflecting: Key.self) + "."
        for flag in Key.allCases {
            // `Module.AppFlag.caseName`, unless the enum customises its debug description.
            let reflected = String(reflecting: flag)
            guard reflected.hasPrefix(typeName) else { continue }
            caseNames[flag.rawValue] = String(reflected.dropFirst(typeName.count))
        }
        for index in flags.indices {
            guard let name = caseNames[flags[index].key], SwiftNames.isIdentifier(name),
                name != SwiftNames.bareIdentifier(forKey: flags[index].key)
            else { continue }
            flags[index].swiftName = name
        }
    }

    /// A manifest describing definitions, in their order.
    public init(definitions: [FlagDefinition], flagSetID: String? = nil, version: String? = nil) {
        self.init(flags: definitions.map { ManifestFlag(definition: $0) }, flagSetID: flagSetID, version: version)
    }

    /// The definitions, in file order.
    public var definitions: [FlagDefinition] { flags.map(\.definition) }

    /// Builds and validates a registry from the manifest's flags.
    ///
    /// - Throws: ``FlagRegistryError`` for the first inconsistency (unknown dependency, cycle…).
    public func registry() throws(FlagRegistryError) -> FlagRegistry {
        try FlagRegistry(definitions)
    }

    /// The flag with `key`, if there is one.
    public func flag(forKey key: String) -> ManifestFlag? {
        flags.first { $0.key == key }
    }
}
