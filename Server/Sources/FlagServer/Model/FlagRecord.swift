public import FlagEvaluation

/// A flag's definition, shared by every environment: key, type, variants and registry metadata.
///
/// What changes per environment (on/off, default variant, targeting) is ``FlagSettings``.
public struct FlagRecord: Sendable, Hashable, Codable {
    /// The flag key: letters, digits, `.`, `_` and `-`, at most 128 characters.
    public var key: String
    public var type: FlagType
    /// The named values the flag can serve.
    public var variants: [String: JSONValue]
    public var metadata: FlagMetadata
    /// The variant the app's code falls back to (the manifest's code default), when registered
    /// by `flags push` (`POST /admin/v1/flags`); `nil` for flags created otherwise.
    public var defaultVariant: String?

    public init(
        key: String, type: FlagType, variants: [String: JSONValue], metadata: FlagMetadata = FlagMetadata(),
        defaultVariant: String? = nil
    ) {
        self.key = key
        self.type = type
        self.variants = variants
        self.metadata = metadata
        self.defaultVariant = defaultVariant
    }
}

/// The registry metadata a flag manifest carries.
public struct FlagMetadata: Sendable, Hashable, Codable {
    public var displayName: String?
    public var description: String?
    public var owner: String?
    public var phase: Int?
    public var removalTarget: String?
    /// Flags that must be on for this one to be on.
    public var requires: [String]
    /// Flags that are never on together with this one.
    public var conflicts: [String]
    /// Whether the flag's values are secret: they print as `<REDACTED>` in audit listings.
    public var sensitive: Bool
    /// The flag's own flagd metadata (scalar values under keys the registry does not use), as a
    /// flagd document or the admin API wrote it: served with every OFREP evaluation of the flag.
    public var custom: [String: JSONValue]

    public init(
        displayName: String? = nil, description: String? = nil, owner: String? = nil, phase: Int? = nil,
        removalTarget: String? = nil, requires: [String] = [], conflicts: [String] = [], sensitive: Bool = false,
        custom: [String: JSONValue] = [:]
    ) {
        self.displayName = displayName
        self.description = description
        self.owner = owner
        self.phase = phase
        self.removalTarget = removalTarget
        self.requires = requires
        self.conflicts = conflicts
        self.sensitive = sensitive
        self.custom = custom
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        owner = try container.decodeIfPresent(String.self, forKey: .owner)
        phase = try container.decodeIfPresent(Int.self, forKey: .phase)
        removalTarget = try container.decodeIfPresent(String.self, forKey: .removalTarget)
        requires = try container.decodeIfPresent([String].self, forKey: .requires) ?? []
        conflicts = try container.decodeIfPresent([String].self, forKey: .conflicts) ?? []
        sensitive = try container.decodeIfPresent(Bool.self, forKey: .sensitive) ?? false
        custom = try container.decodeIfPresent([String: JSONValue].self, forKey: .custom) ?? [:]
    }
}
