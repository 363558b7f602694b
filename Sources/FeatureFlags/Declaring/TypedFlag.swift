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
///
/// Integer and double flags can declare a `range`, and any flag a `validate` closure. A remote
/// value, override or user preference outside them, or one that does not decode to `Value`, is
/// refused like a value of the wrong type: the layer below wins and the refusal is reported.
/// The default and build defaults must pass too, or building the registry fails.
///
/// ```swift
/// static let pageSize = TypedFlag<Int>("page_size", default: 50, range: 1...500)
/// static let greeting = TypedFlag<String>("greeting", default: "Hi", validate: { !$0.isEmpty })
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

    /// A typed flag with key `key` and the code default `defaultValue`; `validate` refuses values
    /// of the right type that the app cannot use (a refused layer's value gives way to the layer below).
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
        sensitive isSensitive: Bool = false,
        validate: (@Sendable (Value) -> Bool)? = nil
    ) {
        self.init(
            key, default: defaultValue, displayName: displayName, description: description, phase: phase, owner: owner,
            removalTarget: removalTarget, buildDefaults: buildDefaults, userTogglable: isUserTogglable,
            sensitive: isSensitive, range: nil, validate: validate)
    }

    init(
        _ key: String,
        default defaultValue: Value,
        displayName: String?,
        description: String,
        phase: Int?,
        owner: String?,
        removalTarget: String?,
        buildDefaults: [BuildConfiguration: Value],
        userTogglable isUserTogglable: Bool,
        sensitive isSensitive: Bool,
        range: FlagValueRange?,
        validate: (@Sendable (Value) -> Bool)?
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
            isSensitive: isSensitive,
            range: range
        )
        definition.decoder = FlagValueDecoder { Value(flagValue: $0) }
        definition.check = FlagValueCheck { flagValue in
            guard let value = Value(flagValue: flagValue) else {
                return .undecodable(typeName: String(describing: Value.self))
            }
            if let validate, !validate(value) { return .failedValidation }
            return nil
        }
        self.definition = definition
    }
}

extension TypedFlag where Value == Int {
    /// An integer flag that accepts only values in `range`.
    ///
    /// ```swift
    /// static let pageSize = TypedFlag<Int>("page_size", default: 50, range: 1...500)
    /// ```
    public init(
        _ key: String,
        default defaultValue: Int,
        range: ClosedRange<Int>,
        displayName: String? = nil,
        description: String = "",
        phase: Int? = nil,
        owner: String? = nil,
        removalTarget: String? = nil,
        buildDefaults: [BuildConfiguration: Int] = [:],
        userTogglable isUserTogglable: Bool = false,
        sensitive isSensitive: Bool = false,
        validate: (@Sendable (Int) -> Bool)? = nil
    ) {
        self.init(
            key, default: defaultValue, displayName: displayName, description: description, phase: phase, owner: owner,
            removalTarget: removalTarget, buildDefaults: buildDefaults, userTogglable: isUserTogglable,
            sensitive: isSensitive, range: .integer(range), validate: validate)
    }
}

extension TypedFlag where Value == Double {
    /// A double flag that accepts only values in `range`.
    ///
    /// ```swift
    /// static let backoff = TypedFlag<Double>("retry_backoff", default: 1.5, range: 0.1...30)
    /// ```
    public init(
        _ key: String,
        default defaultValue: Double,
        range: ClosedRange<Double>,
        displayName: String? = nil,
        description: String = "",
        phase: Int? = nil,
        owner: String? = nil,
        removalTarget: String? = nil,
        buildDefaults: [BuildConfiguration: Double] = [:],
        userTogglable isUserTogglable: Bool = false,
        sensitive isSensitive: Bool = false,
        validate: (@Sendable (Double) -> Bool)? = nil
    ) {
        self.init(
            key, default: defaultValue, displayName: displayName, description: description, phase: phase, owner: owner,
            removalTarget: removalTarget, buildDefaults: buildDefaults, userTogglable: isUserTogglable,
            sensitive: isSensitive, range: .double(range), validate: validate)
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
