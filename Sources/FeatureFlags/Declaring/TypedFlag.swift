import Synchronization

/// A typed, non-Boolean flag value: runtime configuration such as cooldowns and page sizes.
///
/// Declare typed values as constants and list them in ``FeatureFlagKey/typedFlags`` so they are
/// resolved by the same layers as Boolean flags:
///
/// ```swift
/// enum AppConfig {
///     static let magicLinkCooldown = TypedFlag<Int>(
///         "auth.magic_link_resend_cooldown", default: 60,
///         displayName: "Magic link resend cooldown (s)", owner: "identity",
///         buildDefaults: [.debug: 5])
/// }
///
/// let seconds = flags.value(AppConfig.magicLinkCooldown)   // Int
/// ```
public struct TypedFlag<Value: FlagValueConvertible>: Sendable, FlagDefinitionConvertible {
    /// The key used in stores, payloads and manifests.
    public let key: String
    /// The value when no layer says anything.
    public let defaultValue: Value
    /// The rest of the declaration.
    public let definition: FlagDefinition
    /// Where this flag sits in the registry it was last read from, so reads skip the key lookup.
    @usableFromInline
    let position = TypedFlagPosition()

    public init(
        _ key: String,
        default defaultValue: Value,
        displayName: String? = nil,
        description: String = "",
        phase: Int? = nil,
        owner: String? = nil,
        removalTarget: String? = nil,
        buildDefaults: [BuildConfiguration: Value] = [:],
        userTogglable isUserTogglable: Bool = false,
        sensitive isSensitive: Bool = false
    ) {
        self.key = key
        self.defaultValue = defaultValue
        var definition = FlagDefinition(
            key: key,
            type: Value.flagValueType,
            default: defaultValue.flagValue,
            displayName: displayName ?? FlagDefinition.displayName(forKey: key),
            description: description,
            phase: phase,
            owner: owner,
            removalTarget: removalTarget,
            buildDefaults: buildDefaults.mapValues(\.flagValue),
            followsPhasePolicy: false,
            isUserTogglable: isUserTogglable,
            checking: .userOnly,
            isSensitive: isSensitive
        )
        definition.decoder = FlagValueDecoder { Value(flagValue: $0) }
        self.definition = definition
    }
}

/// A typed flag's remembered registry position: one atomic word holding the registry's identity
/// in the high half and the position in the low half, so a read can trust it without a lock.
@usableFromInline
final class TypedFlagPosition: Sendable {
    @usableFromInline
    let word = Atomic<Int>(-1)

    init() {}
}
