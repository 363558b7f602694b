import ExampleFlags
import FeatureFlags
import FeatureFlagsTesting
import Logging
import Testing

struct UnconfiguredTests {
    @Test func readsBeforeConfigurationReturnDefaultsAndWarnOncePerFlag() {
        let log = RecordingLogHandler()
        let flags = FeatureFlagManager<AppFlag>(logger: log.logger)
        #expect(!flags.isConfigured)
        // The code default, not a silent false: message_retry defaults to on.
        #expect(flags.isEnabled(.messageRetry))
        #expect(flags.isEnabled(.messageRetry))
        #expect(!flags.isEnabled(.chatViewRedesign))
        #expect(flags.value(AppConfig.pageSize) == 50)
        let warnings = log.messages(at: .warning)
        #expect(warnings.count == 3)
        #expect(warnings[0].contains("'message_retry' was read before the feature flags were configured"))
        #expect(warnings[0].contains("code default true"))
        #expect(flags.details(.chatViewRedesign).errorCode == .providerNotReady)

        flags.configure(FlagSetup(buildConfiguration: .debug))
        #expect(flags.isConfigured)
        #expect(flags.isEnabled(.chatViewRedesign))
        #expect(log.messages(at: .warning).count == 3)
    }

    /// Every way of checking goes out of line before configuration (a warning once per flag),
    /// and counts reads like any other check once configured with a recorder.
    @Test func everyCheckWarnsBeforeConfigurationAndCountsAfterIt() {
        let log = RecordingLogHandler()
        let flags = FeatureFlagManager<AppFlag>(logger: log.logger)
        _ = flags.untracked.isEnabled(.messageRetry)
        _ = flags.engine.value(forKey: "chat_view_redesign")
        _ = flags.engine.untracked.value(forKey: "onboarding_variant")
        _ = flags.value(AppConfig.onboardingVariant)
        #expect(log.messages(at: .warning).count == 3)
        #expect(log.messages(at: .warning).allSatisfy { $0.contains("was read before the feature flags were configured") })

        let recorder = FlagEventRecorder(.init(source: FlagEventSource(appVersion: "1", buildConfiguration: .debug)))
        flags.configure(FlagSetup(buildConfiguration: .debug, eventRecorder: recorder))
        for _ in 0..<3 { _ = flags.untracked.isEnabled(.messageRetry) }
        _ = flags.engine.value(forKey: "message_retry")
        #expect(log.messages(at: .warning).count == 3, "no warning once configured")
        let counts = recorder.drain().events.compactMap { if case .summary(let summary) = $0 { summary } else { nil } }
        #expect(counts.map { "\($0.flag)=\($0.count)" } == ["message_retry=4"])
    }

    @Test func snapshotReadsBeforeConfigurationWarnOncePerFlagLikeChecks() {
        let log = RecordingLogHandler()
        let flags = FeatureFlagManager<AppFlag>(logger: log.logger)
        let snapshot = flags.snapshot
        #expect(snapshot.isEnabled(.messageRetry))
        #expect(snapshot[.messageRetry])
        #expect(snapshot.value(AppConfig.pageSize) == 50)
        #expect(flags.isEnabled(.messageRetry), "the same flag through the manager: no second warning")
        let warnings = log.messages(at: .warning)
        #expect(warnings.count == 2)
        #expect(warnings.first?.contains("'message_retry' was read before the feature flags were configured") == true)
        #expect(warnings.last?.contains("'page_size'") == true)

        flags.configure(FlagSetup(buildConfiguration: .debug))
        _ = flags.snapshot.isEnabled(.chatViewRedesign)
        #expect(log.messages(at: .warning).count == 2, "a snapshot taken after configuration does not warn")
    }

    @Test func diagnosticsAreReachableFromTheTypedManager() {
        let flags = FeatureFlagManager<AppFlag>(
            FlagSetup(buildConfiguration: .debug, launchArguments: ["-ff.no_such_flag", "YES"]))
        #expect(flags.diagnostics.map(\.kind) == [.invalidLaunchArgument])
        #expect(flags.diagnostics == flags.engine.diagnostics)
    }
}
