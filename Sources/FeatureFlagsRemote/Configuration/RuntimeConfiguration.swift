import FeatureFlags

/// The runtime configuration at one instant, in groups: `config.auth.magicLinkResendCooldown`.
///
/// Built from a ``FeatureFlagManager`` instance or one of its snapshots, whose registry includes
/// ``RuntimeConfigurationFlags/all``. A value missing from the registry reads as its declared
/// default.
///
/// ```swift
/// let config = RuntimeConfiguration(flags.snapshot)
/// resendButton.cooldown = config.auth.magicLinkResendCooldown   // Duration
/// ```
public struct RuntimeConfiguration: Sendable, Hashable {
    /// Sign-in settings.
    public struct Auth: Sendable, Hashable {
        /// How long before a magic link can be sent again.
        public var magicLinkResendCooldown: Duration
    }

    /// Cue list settings.
    public struct Cues: Sendable, Hashable {
        /// Items fetched per page.
        public var pageSize: Int
    }

    /// Analytics settings.
    public struct Analytics: Sendable, Hashable {
        /// Whether session replay is recorded.
        public var sessionReplayEnabled: Bool
        /// Whether first-party events are sent.
        public var firstPartyEventsEnabled: Bool
        /// Time between uploads.
        public var flushInterval: Duration
    }

    /// Developer tool settings.
    public struct DevTools: Sendable, Hashable {
        /// Whether the developer menu can be opened.
        public var isDeveloperMenuAvailable: Bool
        /// The most requests the network console keeps.
        public var networkConsoleLogLimit: Int
    }

    public var auth: Auth
    public var cues: Cues
    public var analytics: Analytics
    public var devTools: DevTools

    /// Reads every value with `value`, a typed read such as `snapshot.value(_:)`.
    public init(reading value: (any RuntimeConfigurationReading)) {
        typealias Flags = RuntimeConfigurationFlags
        auth = Auth(magicLinkResendCooldown: .seconds(max(0, value.value(Flags.magicLinkResendCooldown))))
        cues = Cues(pageSize: max(1, value.value(Flags.cuesPageSize)))
        let flush = value.value(Flags.analyticsFlushInterval)
        analytics = Analytics(
            sessionReplayEnabled: value.value(Flags.sessionReplayEnabled),
            firstPartyEventsEnabled: value.value(Flags.firstPartyEventsEnabled),
            flushInterval: .milliseconds(Int64((flush.isFinite ? max(0, flush) : 0) * 1000)))
        devTools = DevTools(
            isDeveloperMenuAvailable: value.value(Flags.developerMenuAvailable),
            networkConsoleLogLimit: max(0, value.value(Flags.networkConsoleLogLimit)))
    }

    /// The configuration in a snapshot.
    public init<Key>(_ snapshot: FlagSnapshot<Key>) {
        self.init(reading: snapshot)
    }

    /// The configuration as the flags resolve it now.
    public init<Key>(_ flags: FeatureFlagManager<Key>) {
        self.init(reading: flags)
    }
}

/// Something that reads typed flag values: ``FeatureFlagManager`` and ``FlagSnapshot``.
public protocol RuntimeConfigurationReading {
    /// A typed value.
    func value<Value>(_ flag: TypedFlag<Value>) -> Value
}

extension FeatureFlagManager: RuntimeConfigurationReading {}
extension FlagSnapshot: RuntimeConfigurationReading {}

extension FeatureFlagManager {
    /// The runtime configuration as resolved now.
    public var runtimeConfiguration: RuntimeConfiguration { RuntimeConfiguration(reading: snapshot) }
}

extension FlagSnapshot {
    /// The runtime configuration in this snapshot.
    public var runtimeConfiguration: RuntimeConfiguration { RuntimeConfiguration(reading: self) }
}
