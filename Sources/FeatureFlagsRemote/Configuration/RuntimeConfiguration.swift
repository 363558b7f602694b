import FeatureFlags

/// An app's own runtime configuration: a value type, grouped as the app likes, whose members are
/// read from ``TypedFlag``s the app declares and registers.
///
/// The library provides the mechanism; the groups and keys are the app's. Each value resolves
/// through the same layers as every flag (code default, build configuration, remote, user
/// preference, override).
///
/// ```swift
/// struct AppRuntimeConfiguration: RuntimeConfiguration {
///     struct Auth: Sendable, Hashable { var resendCooldown: Duration }
///     var auth: Auth
///
///     static let resendCooldown = TypedFlag<Int>("auth.resend_cooldown_seconds", default: 60)
///     static let flags: [any FlagDefinitionConvertible] = [resendCooldown]
///
///     init(reading values: some RuntimeConfigurationReading) {
///         auth = Auth(resendCooldown: .seconds(max(0, values.value(Self.resendCooldown))))
///     }
/// }
///
/// // Register the values with the app's flags:
/// //     static let typedFlags = AppRuntimeConfiguration.flags + […]
/// let config = flags.snapshot.configuration(AppRuntimeConfiguration.self)
/// ```
///
/// A value whose flag is missing from the registry reads as its declared default;
/// ``RuntimeConfigurationProvider`` reports such flags when it is created.
public protocol RuntimeConfiguration: Sendable, Equatable {
    /// Every typed value the configuration reads, for the app's ``FeatureFlagKey/typedFlags``.
    static var flags: [any FlagDefinitionConvertible] { get }

    /// Reads every member from `values`: a ``FlagSnapshot`` (one instant) or a
    /// ``FeatureFlagManager``.
    init(reading values: some RuntimeConfigurationReading)
}

/// Something that reads typed flag values: ``FeatureFlagManager`` and ``FlagSnapshot``.
public protocol RuntimeConfigurationReading {
    /// A typed value; its declared default when the registry does not have it.
    func value<Value>(_ flag: TypedFlag<Value>) -> Value
}

extension FeatureFlagManager: RuntimeConfigurationReading {}
extension FlagSnapshot: RuntimeConfigurationReading {}

extension FeatureFlagManager {
    /// The app's runtime configuration as resolved now, read from one snapshot.
    ///
    /// ```swift
    /// let config = flags.configuration(AppRuntimeConfiguration.self)
    /// ```
    public func configuration<Configuration: RuntimeConfiguration>(
        _ type: Configuration.Type = Configuration.self
    ) -> Configuration {
        Configuration(reading: snapshot)
    }
}

extension FlagSnapshot {
    /// The app's runtime configuration in this snapshot.
    public func configuration<Configuration: RuntimeConfiguration>(
        _ type: Configuration.Type = Configuration.self
    ) -> Configuration {
        Configuration(reading: self)
    }
}
