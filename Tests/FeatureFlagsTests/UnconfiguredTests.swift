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
}
