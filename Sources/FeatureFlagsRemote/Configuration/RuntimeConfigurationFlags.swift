import FeatureFlags

/// The typed runtime configuration values, declared once as ``TypedFlag``s so that they resolve
/// through the same layers as every flag (code default, build configuration, remote, override).
///
/// Register them with the app's flags:
///
/// ```swift
/// enum AppFlag: String, CaseIterable, FeatureFlagKey {
///     …
///     static let typedFlags: [any FlagDefinitionConvertible] = RuntimeConfigurationFlags.all
/// }
/// ```
///
/// then read them grouped through ``RuntimeConfiguration``. The keys are what the
/// `config` member of an `app_config` payload, or an OFREP server, uses.
public enum RuntimeConfigurationFlags {
    // MARK: Auth

    /// Seconds before a magic link can be sent again.
    public static let magicLinkResendCooldown = TypedFlag<Int>(
        "auth.magic_link_resend_cooldown_seconds", default: 60,
        displayName: "Magic link resend cooldown (s)",
        description: "Seconds a user waits before another magic link can be sent.",
        owner: "identity", buildDefaults: [.debug: 5])

    // MARK: Cues

    /// Items per page in cue lists.
    public static let cuesPageSize = TypedFlag<Int>(
        "cues.page_size", default: 20,
        displayName: "Cues page size", description: "Items fetched per page of cues.", owner: "cues")

    // MARK: Analytics

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

    // MARK: Developer tools

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

    /// Every runtime configuration value, for ``FeatureFlagKey/typedFlags``.
    public static let all: [any FlagDefinitionConvertible] = [
        magicLinkResendCooldown, cuesPageSize, sessionReplayEnabled, firstPartyEventsEnabled,
        analyticsFlushInterval, developerMenuAvailable, networkConsoleLogLimit,
    ]
}
