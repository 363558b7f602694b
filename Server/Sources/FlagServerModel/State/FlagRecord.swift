public import FlagEvaluation

/// A flag's definition, shared by every environment: key, type, variants and registry metadata.
///
/// What changes per environment (on/off, default variant, targeting) is ``FlagSettings``.
public struct FlagRecord: Sendable, Hashable, Codable {
    /// The flag key: letters, digits, `.`, `_` and `-`, at most 128 characters.
    public var key: String
    /// The type of every variant's value.
    public var type: FlagType
    /// The named values the flag can serve.
    public var variants: [String: JSONValue]
    /// What the registry says of the flag: names, owner, lifecycle, dependencies, and flagd metadata.
    public var metadata: FlagRecordMetadata
    /// The variant the app's code falls back to (the manifest's code default), when registered
    /// by `flags push` (`POST /admin/v1/flags`); `nil` for flags created otherwise.
    public var defaultVariant: String?
    /// Whether the flag is archived: kept with its settings and history in every environment, but
    /// not served (delivery answers for it as for a flag that does not exist) and read-only until
    /// restored. Only ``StateChange/archiveFlag(_:)`` and ``StateChange/restoreFlag(_:)`` change it.
    public var archived: Bool

    /// A flag definition, not archived; not validated here.
    public init(
        key: String, type: FlagType, variants: [String: JSONValue], metadata: FlagRecordMetadata = FlagRecordMetadata(),
        defaultVariant: String? = nil, archived: Bool = false
    ) {
        self.key = key
        self.type = type
        self.variants = variants
        self.metadata = metadata
        self.defaultVariant = defaultVariant
        self.archived = archived
    }

    enum CodingKeys: String, CodingKey {
        case key, type, variants, metadata, defaultVariant, archived
    }

    /// Reads rows and audit entries written before flags could be archived (no `archived`: live).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try container.decode(String.self, forKey: .key)
        type = try container.decode(FlagType.self, forKey: .type)
        variants = try container.decode([String: JSONValue].self, forKey: .variants)
        metadata = try container.decode(FlagRecordMetadata.self, forKey: .metadata)
        defaultVariant = try container.decodeIfPresent(String.self, forKey: .defaultVariant)
        archived = try container.decodeIfPresent(Bool.self, forKey: .archived) ?? false
    }

    /// Writes `archived` only when set, so a live flag's stored document and audit entries are
    /// what they were before flags could be archived.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        try container.encode(type, forKey: .type)
        try container.encode(variants, forKey: .variants)
        try container.encode(metadata, forKey: .metadata)
        try container.encodeIfPresent(defaultVariant, forKey: .defaultVariant)
        if archived { try container.encode(true, forKey: .archived) }
    }
}

/// The registry metadata a flag manifest carries, as the server stores it with a ``FlagRecord``.
///
/// Named apart from the library's `FlagMetadata<Flag>` (a flag's declaration in an app's code):
/// this is the stored, untyped record of it.
public struct FlagRecordMetadata: Sendable, Hashable, Codable {
    /// A name for people, shown in the console.
    public var displayName: String?
    /// What the flag is for.
    public var description: String?
    /// Who owns the flag (a team or a person).
    public var owner: String?
    /// The flag's lifecycle phase (0 or more), as the app's registry numbers it.
    public var phase: Int?
    /// When or in which release the flag is to be removed, as written.
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

    /// Metadata with every field empty by default.
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

    /// Decodes metadata; absent lists are empty, `sensitive` is `false` and `custom` empty when left out.
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
