import FeatureFlags
import FeatureFlagsRemote

/// The app's runtime configuration, in groups: `config.auth.magicLinkResendCooldown`.
///
/// An example of ``RuntimeConfiguration``: the app owns its groups and keys, declares each value
/// once as a ``TypedFlag`` (in ``AppRuntimeConfiguration/Flags``) and registers them in
/// ``AppFlag/typedFlags``. The keys are what the `config` member of an `app_config` payload, or
/// an OFREP server, uses.
///
/// ```swift
/// let config = flags.configuration(AppRuntimeConfiguration.self)
/// resendButton.cooldown = config.auth.magicLinkResendCooldown   // Duration
/// ```
public struct AppRuntimeConfiguration: RuntimeConfiguration, Hashable {
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

    public static let flags: [any FlagDefinitionConvertible] = Flags.all

    /// Reads every value; out-of-range values are clamped to what the app can use.
    public init(reading values: some RuntimeConfigurationReading) {
        auth = Auth(magicLinkResendCooldown: .seconds(max(0, values.value(Flags.magicLinkResendCooldown))))
        cues = Cues(pageSize: max(1, values.value(Flags.cuesPageSize)))
        let flush = values.value(Flags.analyticsFlushInterval)
        analytics = Analytics(
            sessionReplayEnabled: values.value(Flags.sessionReplayEnabled),
            firstPartyEventsEnabled: values.value(Flags.firstPartyEventsEnabled),
            flushInterval: .milliseconds(Int64((flush.isFinite ? min(max(0, flush), 86_400) : 0) * 1000)))
        devTools = DevTools(
            isDeveloperMenuAvailable: values.value(Flags.developerMenuAvailable),
            networkConsoleLogLimit: max(0, values.value(Flags.networkConsoleLogLimit)))
    }
}

extension AppRuntimeConfiguration {
    /// The typed values behind the configuration, resolved through the same layers as every flag.
    public enum Flags {
        /// Seconds before a magic link can be sent again.
        public static let magicLinkResendCooldown = TypedFlag<Int>(
            "auth.magic_link_resend_cooldown_seconds", default: 60,
            displayName: "Magic link resend cooldown (s)",
            description: "Seconds a user waits before another magic link can be sent.",
            owner: "identity", buildDefaults: [.debug: 5])

        /// Items per page in cue lists.
        public static let cuesPageSize = TypedFlag<Int>(
            "cues.page_size", default: 20,
            displayName: "Cues page size", description: "Items fetched per page of cues.", owner: "cues")

        /// Whether session replay is recorded.
        public static let sessionReplayEnabled = TypedFlag<Bool>(
            "analytics.session_replay_enabled", default: false,
            displayName: "Session replay", description: "Records session replays for analytics.", owner: "analytics")

        /// Whether first-party analytics events are sent.
        public static let firstPartyEventsEnabled = TypedFlag<Bool>(
            "analytics.first_party_events_enabled", default: true,
            displayName: "First-party events", description: "Sends first-party analytics events.", owner: "analytics")

        /// Seconds between analytics flushes.
        public static let analyticsFlushInterval = TypedFlag<Double>(
            "analytics.flush_interval_seconds", default: 30,
            displayName: "Analytics flush interval (s)", description: "Seconds between analytics uploads.",
            owner: "analytics", buildDefaults: [.debug: 5])

        /// Whether the developer menu can be opened.
        public static let developerMenuAvailable = TypedFlag<Bool>(
            "dev_tools.developer_menu_available", default: false,
            displayName: "Developer menu", description: "Whether the developer menu can be opened.",
            owner: "platform", buildDefaults: [.debug: true, .alpha: true, .internal: true])

        /// The most requests the network console keeps.
        public static let networkConsoleLogLimit = TypedFlag<Int>(
            "dev_tools.network_console_log_limit", default: 500,
            displayName: "Network console log limit", description: "Requests kept by the network console.",
            owner: "platform")

        /// Every value, for ``AppFlag/typedFlags``.
        public static let all: [any FlagDefinitionConvertible] = [
            magicLinkResendCooldown, cuesPageSize, sessionReplayEnabled, firstPartyEventsEnabled,
            analyticsFlushInterval, developerMenuAvailable, networkConsoleLogLimit,
        ]
    }
}
