import ExampleFlags
import FeatureFlags
import Testing

/// What the SwiftUI gates do with the flags in the environment, decided without SwiftUI.
struct FeatureGateDecisionTests {
    @Test func flagsInTheEnvironmentDecide() {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        #expect(FeatureGateDecision.decide(AppFlag.chatViewRedesign, environmentFlags: flags, reportsMisconfiguration: true) == .on)
        #expect(FeatureGateDecision.decide(AppFlag.ideasDrawer, environmentFlags: flags, reportsMisconfiguration: true) == .off)
        flags.setOverride(.ideasDrawer, to: true)
        #expect(FeatureGateDecision.decide(AppFlag.ideasDrawer, environmentFlags: flags, reportsMisconfiguration: false) == .on)
    }

    @Test func missingFlagsAreReportedInDebugBuilds() {
        #expect(
            FeatureGateDecision.decide(AppFlag.quickSettings, environmentFlags: nil, reportsMisconfiguration: true)
                == .misconfigured(
                    "featureGated(AppFlag.quickSettings) found no feature flags in the environment, so the view stays hidden. Add .featureFlags(flags) to an ancestor view, or pass the flags: .featureGated(.quickSettings, in: flags)."
                ))
        // Release builds keep the unfinished feature hidden, quietly.
        #expect(FeatureGateDecision.decide(AppFlag.quickSettings, environmentFlags: nil, reportsMisconfiguration: false) == .off)
    }

    @Test func flagsOfAnotherTypeAreReported() {
        let other = FeatureFlagManager<TestFlag>(buildConfiguration: .debug)
        #expect(
            FeatureGateDecision.decide(AppFlag.quickSettings, environmentFlags: other, reportsMisconfiguration: true)
                == .misconfigured(
                    "featureGated(AppFlag.quickSettings) found FeatureFlagManager<TestFlag> in the environment, not FeatureFlagManager<AppFlag>, so the view stays hidden. Give .featureFlags(_:) the manager of AppFlag."
                ))
        #expect(FeatureGateDecision.decide(AppFlag.quickSettings, environmentFlags: other, reportsMisconfiguration: false) == .off)
    }
}
