import ExampleFlags
import FeatureFlags
import Testing

/// What the SwiftUI gates do with the managers in the environment, decided without SwiftUI.
struct FeatureGateDecisionTests {
    @Test func theManagerOfTheFlagsTypeDecides() {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        let managers = FeatureFlagManagers().inserting(flags)
        #expect(FeatureGateDecision.decide(AppFlag.chatViewRedesign, in: managers, lastConfigured: .debug) == .on)
        #expect(FeatureGateDecision.decide(AppFlag.ideasDrawer, in: managers, lastConfigured: .debug) == .off)
        flags.setOverride(.ideasDrawer, to: true)
        #expect(FeatureGateDecision.decide(AppFlag.ideasDrawer, in: managers, lastConfigured: .release) == .on)
    }

    /// An app whose modules each have a flag enum: a nested `.featureFlags(_:)` adds its
    /// manager, and gates on the outer module's flags still find theirs.
    @Test func managersOfSeveralFlagTypesLiveSideBySide() {
        let app = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        let module = FeatureFlagManager<TestFlag>(buildConfiguration: .debug)
        module.setOverride(.base, to: true)
        let outer = FeatureFlagManagers().inserting(app)
        let nested = outer.inserting(module)
        #expect(nested.count == 2)
        #expect(nested.manager(for: AppFlag.self) === app)
        #expect(nested.manager(for: TestFlag.self) === module)
        #expect(FeatureGateDecision.decide(AppFlag.chatViewRedesign, in: nested, lastConfigured: .debug) == .on)
        #expect(FeatureGateDecision.decide(TestFlag.base, in: nested, lastConfigured: .debug) == .on)
        #expect(outer.manager(for: TestFlag.self) == nil, "the outer subtree is unchanged")
    }

    @Test func aNestedManagerOfTheSameTypeReplacesTheOuterOne() {
        let outer = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        let inner = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        inner.setOverride(.chatViewRedesign, to: false)
        let managers = FeatureFlagManagers().inserting(outer).inserting(inner)
        #expect(managers.count == 1)
        #expect(managers.manager(for: AppFlag.self) === inner)
        #expect(FeatureGateDecision.decide(AppFlag.chatViewRedesign, in: managers, lastConfigured: .debug) == .off)
    }

    @Test func missingFlagsAreReportedOutsideRelease() {
        let expected = FeatureGateDecision.misconfigured(
            "featureGated(AppFlag.quickSettings) found no feature flags in the environment, so the view stays hidden. Add .featureFlags(flags) to an ancestor view, or pass the flags: .featureGated(.quickSettings, in: flags)."
        )
        for configuration in [BuildConfiguration.debug, .alpha, .internal] {
            #expect(FeatureGateDecision.decide(AppFlag.quickSettings, in: FeatureFlagManagers(), lastConfigured: configuration) == expected)
        }
        // No flags were configured at all: a programmer error, reported.
        #expect(FeatureGateDecision.decide(AppFlag.quickSettings, in: FeatureFlagManagers(), lastConfigured: nil) == expected)
        // Release builds keep the unfinished feature hidden, quietly.
        #expect(FeatureGateDecision.decide(AppFlag.quickSettings, in: FeatureFlagManagers(), lastConfigured: .release) == .off)
    }

    /// The decision follows the app's build configuration at run time, not the package's
    /// `#if DEBUG`: an Alpha or Internal build reports, whatever Xcode compiled the package as.
    @Test func theManagersConfigurationDecidesWhetherToReport() {
        let other = FeatureFlagManager<TestFlag>(buildConfiguration: .internal)
        let managers = FeatureFlagManagers().inserting(other)
        #expect(
            FeatureGateDecision.decide(AppFlag.quickSettings, in: managers, lastConfigured: .release)
                == .misconfigured(
                    "featureGated(AppFlag.quickSettings) found FeatureFlagManager<TestFlag> in the environment, but no FeatureFlagManager<AppFlag>, so the view stays hidden. Add .featureFlags(_:) with the manager of AppFlag to an ancestor view."
                ))
        other.configure(FlagSetup(buildConfiguration: .release))
        #expect(FeatureGateDecision.decide(AppFlag.quickSettings, in: managers, lastConfigured: .debug) == .off)
        #expect(FeatureGateDecision.reportsMisconfiguration(in: FeatureFlagManagers(), lastConfigured: .alpha))
        #expect(!FeatureGateDecision.reportsMisconfiguration(in: managers, lastConfigured: .alpha))
    }

    @Test func configuringFlagsRecordsTheConfigurationForGatesWithoutFlags() {
        _ = FeatureFlagManager<AppFlag>(buildConfiguration: .alpha)
        // Other tests configure flags concurrently, so only "some configuration" is certain.
        #expect(FlagEngine.lastConfiguredBuildConfiguration != nil)
    }
}
