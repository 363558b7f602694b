import FeatureFlags
import FeatureFlagsRemote

/// A runtime configuration as an app would declare it, registered by `TestFlag`.
struct TestRuntimeConfiguration: RuntimeConfiguration {
    struct Auth: Sendable, Hashable {
        var resendCooldown: Duration
    }

    struct Cues: Sendable, Hashable {
        var pageSize: Int
    }

    struct Analytics: Sendable, Hashable {
        var sessionReplayEnabled: Bool
        var firstPartyEventsEnabled: Bool
        var flushInterval: Duration
    }

    struct DevTools: Sendable, Hashable {
        var isDeveloperMenuAvailable: Bool
        var networkConsoleLogLimit: Int
    }

    var auth: Auth
    var cues: Cues
    var analytics: Analytics
    var devTools: DevTools

    static let resendCooldown = TypedFlag<Int>(
        "auth.magic_link_resend_cooldown_seconds", default: 60, buildDefaults: [.debug: 5])
    static let cuesPageSize = TypedFlag<Int>("cues.page_size", default: 20)
    static let sessionReplayEnabled = TypedFlag<Bool>("analytics.session_replay_enabled", default: false)
    static let firstPartyEventsEnabled = TypedFlag<Bool>("analytics.first_party_events_enabled", default: true)
    static let flushInterval = TypedFlag<Double>("analytics.flush_interval_seconds", default: 30)
    static let developerMenuAvailable = TypedFlag<Bool>(
        "dev_tools.developer_menu_available", default: false, buildDefaults: [.debug: true])
    static let networkConsoleLogLimit = TypedFlag<Int>("dev_tools.network_console_log_limit", default: 500)

    static let flags: [any FlagDefinitionConvertible] = [
        resendCooldown, cuesPageSize, sessionReplayEnabled, firstPartyEventsEnabled, flushInterval,
        developerMenuAvailable, networkConsoleLogLimit,
    ]

    init(reading values: some RuntimeConfigurationReading) {
        auth = Auth(resendCooldown: .seconds(max(0, values.value(Self.resendCooldown))))
        cues = Cues(pageSize: max(1, values.value(Self.cuesPageSize)))
        let flush = values.value(Self.flushInterval)
        analytics = Analytics(
            sessionReplayEnabled: values.value(Self.sessionReplayEnabled),
            firstPartyEventsEnabled: values.value(Self.firstPartyEventsEnabled),
            flushInterval: .milliseconds(Int64((flush.isFinite ? min(max(0, flush), 86_400) : 0) * 1000)))
        devTools = DevTools(
            isDeveloperMenuAvailable: values.value(Self.developerMenuAvailable),
            networkConsoleLogLimit: max(0, values.value(Self.networkConsoleLogLimit)))
    }
}
