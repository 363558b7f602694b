import FeatureFlags

/// A flag definition as the flag server stores it (`GET /admin/v1/flags`): what every
/// environment shares. Per-environment settings (on/off, served variant, targeting) are
/// ``ServerFlagSettings``.
public struct ServerFlag: Sendable, Hashable, Codable {
    /// The server's value types (`float` where the manifest says `double`).
    public enum ValueType: String, Sendable, Hashable, Codable {
        /// The flag's value type as the server names it: `boolean`, `string`, `integer`, `float` or `object`.
        case boolean, string, integer, float, object

        /// The server's name for a manifest type.
        public init(_ type: FlagValueType) {
            switch type {
            case .boolean: self = .boolean
            case .integer: self = .integer
            case .double: self = .float
            case .string: self = .string
            case .object: self = .object
            }
        }

        /// The manifest's type.
        public var manifestType: FlagValueType {
            switch self {
            case .boolean: .boolean
            case .integer: .integer
            case .float: .double
            case .string: .string
            case .object: .object
            }
        }
    }

    /// The registry metadata the server keeps, and the flag's own flagd metadata.
    public struct Metadata: Sendable, Hashable, Codable {
        /// A name for people; `nil` when not given.
        public var displayName: String?
        /// What the flag is for; `nil` when not given.
        public var description: String?
        /// Who owns the flag; `nil` when not given.
        public var owner: String?
        /// The flag's lifecycle phase; `nil` when not given.
        public var phase: Int?
        /// When the flag is to be removed, as written; `nil` when not given.
        public var removalTarget: String?
        /// Flags that must be on for this one to be on.
        public var requires: [String]
        /// Flags that must not be on together with this one.
        public var conflicts: [String]
        /// Whether the flag's values must never be shown or logged.
        public var sensitive: Bool
        /// The flag's own flagd metadata (`metadata.custom` on the server): string, number and
        /// Boolean values under keys that are not registry fields, served with every evaluation.
        /// A manifest holds the `x-` keys among them (its teams' annotations); `flags push` sends
        /// those and keeps the server's other keys.
        public var custom: [String: FlagValue]

        /// Metadata with every field empty by default.
        public init(
            displayName: String? = nil, description: String? = nil, owner: String? = nil, phase: Int? = nil,
            removalTarget: String? = nil, requires: [String] = [], conflicts: [String] = [], sensitive: Bool = false,
            custom: [String: FlagValue] = [:]
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

        enum CodingKeys: String, CodingKey {
            case displayName, description, owner, phase, removalTarget, requires, conflicts, sensitive, custom
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
            custom = try container.decodeIfPresent([String: FlagValue].self, forKey: .custom) ?? [:]
        }

        /// Writes `custom` only when it has keys (the server reads none as none), so a flag
        /// without its own metadata is sent as before.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(displayName, forKey: .displayName)
            try container.encodeIfPresent(description, forKey: .description)
            try container.encodeIfPresent(owner, forKey: .owner)
            try container.encodeIfPresent(phase, forKey: .phase)
            try container.encodeIfPresent(removalTarget, forKey: .removalTarget)
            try container.encode(requires, forKey: .requires)
            try container.encode(conflicts, forKey: .conflicts)
            try container.encode(sensitive, forKey: .sensitive)
            if !custom.isEmpty { try container.encode(custom, forKey: .custom) }
        }
    }

    /// The flag's key.
    public var key: String
    /// The type of every variant's value.
    public var type: ValueType
    /// The named values the flag can serve.
    public var variants: [String: FlagValue]
    /// The registry metadata and the flag's own flagd metadata.
    public var metadata: Metadata
    /// The code default's variant, when the flag was registered by `flags push`.
    public var defaultVariant: String?

    /// A flag definition as the server holds it.
    public init(
        key: String, type: ValueType, variants: [String: FlagValue], metadata: Metadata = Metadata(),
        defaultVariant: String? = nil
    ) {
        self.key = key
        self.type = type
        self.variants = variants
        self.metadata = metadata
        self.defaultVariant = defaultVariant
    }
}
