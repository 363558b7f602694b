/// Everything the registry knows about one flag, independent of how it was declared.
///
/// Enum cases (``FeatureFlagKey``) and ``TypedFlag`` constants produce definitions; tools that
/// work from a manifest, such as the `flags` command, build them directly.
public struct FlagDefinition: Sendable {
    /// The flag's key.
    public var key: String
    /// The type every layer's value must have.
    public var type: FlagValueType
    /// The code default (the lowest layer).
    public var defaultValue: FlagValue
    /// A short name for menus.
    public var displayName: String
    /// What the flag changes.
    public var description: String
    /// The development phase, if the flag has one.
    public var phase: Int?
    /// Who owns the flag.
    public var owner: String?
    /// The app version by which the flag should be removed.
    public var removalTarget: String?
    /// Explicit defaults per build configuration.
    public var buildDefaults: [BuildConfiguration: FlagValue]
    /// Whether the ``PhasePolicy`` decides the build-configuration default (Boolean flags with
    /// a phase and no explicit `buildDefaults` entry for the configuration).
    public var followsPhasePolicy: Bool
    /// Keys of flags that must be on for this one to be on.
    public var requires: [String]
    /// Keys of flags that are never on together with this one.
    public var conflicts: [String]
    /// Whether users may set the flag themselves.
    public var isUserTogglable: Bool
    /// How a user's preference combines with the other layers (Boolean flags).
    public var checking: CheckingMode
    /// Whether the value must never appear in logs.
    public var isSensitive: Bool
    /// The values a numeric flag accepts, if it declares bounds; others are refused like a value
    /// of the wrong type.
    public var range: FlagValueRange?
    /// Decodes values of `object` flags once per change into their Swift type.
    var decoder: FlagValueDecoder?
    /// What a ``TypedFlag`` checks beyond the type: that the value decodes to its Swift type and
    /// passes its `validate` closure.
    var check: FlagValueCheck?

    /// A definition; each parameter sets the member of the same name (see each for its meaning).
    public init(
        key: String,
        type: FlagValueType,
        default defaultValue: FlagValue,
        displayName: String? = nil,
        description: String = "",
        phase: Int? = nil,
        owner: String? = nil,
        removalTarget: String? = nil,
        buildDefaults: [BuildConfiguration: FlagValue] = [:],
        followsPhasePolicy: Bool = true,
        requires: [String] = [],
        conflicts: [String] = [],
        isUserTogglable: Bool = false,
        checking: CheckingMode = .buildAndUser,
        isSensitive: Bool = false,
        range: FlagValueRange? = nil
    ) {
        self.key = key
        self.type = type
        self.defaultValue = defaultValue
        self.displayName = displayName ?? Self.displayName(forKey: key)
        self.description = description
        self.phase = phase
        self.owner = owner
        self.removalTarget = removalTarget
        self.buildDefaults = buildDefaults
        self.followsPhasePolicy = followsPhasePolicy
        self.requires = requires
        self.conflicts = conflicts
        self.isUserTogglable = isUserTogglable
        self.checking = checking
        self.isSensitive = isSensitive
        self.range = range
    }

    /// A readable name made from a key: `chat_view_redesign` becomes "Chat view redesign".
    public static func displayName(forKey key: String) -> String {
        let words = key.split(whereSeparator: { $0 == "_" || $0 == "-" || $0 == "." }).map(String.init)
        guard let first = words.first else { return key }
        return ([first.prefix(1).uppercased() + first.dropFirst()] + words.dropFirst()).joined(separator: " ")
    }
}

/// Something that contributes a flag to a registry: a ``TypedFlag``, or a definition itself.
public protocol FlagDefinitionConvertible: Sendable {
    /// The flag's definition.
    var definition: FlagDefinition { get }
}

extension FlagDefinition: FlagDefinitionConvertible {
    /// The definition itself.
    public var definition: FlagDefinition { self }
}

/// Decodes a flag value into its Swift type; kept by a definition so `Codable` values are
/// decoded once per change rather than on every read.
struct FlagValueDecoder: Sendable {
    let decode: @Sendable (FlagValue) -> (any Sendable)?

    init(_ decode: @escaping @Sendable (FlagValue) -> (any Sendable)?) {
        self.decode = decode
    }
}

/// A typed flag's own check of a value of the right JSON type: `nil` when the value is fine.
struct FlagValueCheck: Sendable {
    let problem: @Sendable (FlagValue) -> FlagValueRejection.Kind?

    init(_ problem: @escaping @Sendable (FlagValue) -> FlagValueRejection.Kind?) {
        self.problem = problem
    }
}
