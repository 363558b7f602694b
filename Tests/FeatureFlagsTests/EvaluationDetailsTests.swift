import ExampleFlags
import FeatureFlags
import FeatureFlagsTesting
import Testing

struct EvaluationDetailsTests {
    @Test func explainsEveryLayer() {
        let flags = FeatureFlagManager<AppFlag>.testing(
            .debug, overrides: [.chatViewRedesign: false],
            remote: RemoteFlagValues(["chat_view_redesign": RemoteFlagValue(true, variant: "on", reason: .targetingMatch)]))
        let details = flags.details(.chatViewRedesign)
        #expect(details.key == "chat_view_redesign")
        #expect(details.value == false)
        #expect(details.layer == .override)
        #expect(details.reason == .static)
        #expect(details.errorCode == nil)
        #expect(details.variant == nil)
        #expect(
            details.layers.map(\.description) == [
                "default: false (shadowed)", "build: true (shadowed)", "remote: true (shadowed)", "user: —",
                "override: false (selected)",
            ])
    }

    @Test func remoteValuesCarryTheProvidersReasonAndVariant() {
        let flags = FeatureFlagManager<AppFlag>.testing(
            .release,
            remote: RemoteFlagValues(["ideas_drawer": RemoteFlagValue(true, variant: "treatment", reason: .split)]))
        let details = flags.details(.ideasDrawer)
        #expect(details.layer == .remote)
        #expect(details.reason == .split)
        #expect(details.variant == "treatment")
        #expect(details.description == "ideas_drawer = true [remote, SPLIT]")
    }

    @Test func defaultsAreReportedAsDefault() {
        let details = FeatureFlagManager<AppFlag>(buildConfiguration: .release).details(.ideasDrawer)
        #expect(details.layer == .default)
        #expect(details.reason == .default)
    }

    @Test func unknownKeysAreFlagNotFound() {
        let details = FeatureFlagManager<AppFlag>(buildConfiguration: .release).engine.details(forKey: "nope")
        #expect(details.errorCode == .flagNotFound)
        #expect(details.reason == .error)
    }

    @Test func sensitiveValuesAreRedacted() {
        let flags = FeatureFlagManager<TestFlag>.testing(.debug)
        flags.setOverride(TestConfig.label, to: "secret-token")
        let details = flags.details(TestConfig.label)
        #expect(details.value == "secret-token")
        #expect(details.description == "label = <REDACTED> [override, STATIC]")
        #expect(details.layers.allSatisfy { !$0.description.contains("secret") })
        #expect(FlagDebugModel(flags).rows(matching: "label").first?.displayValue == "<REDACTED>")
    }
}
