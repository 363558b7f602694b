import FeatureFlags
import Testing

struct BuildConfigurationTests {
    @Test func matchesAgainstASet() {
        let current = BuildConfiguration.alpha
        #expect(current ~= [.debug, .alpha])
        #expect(!(current ~= [.internal, .release]))
        switch current {
        case [.debug, .alpha]: break
        default: Issue.record("a switch over a set of configurations should match alpha")
        }
    }

    @Test(arguments: [
        ("debug", BuildConfiguration.debug), ("Development", .debug), ("alpha", .alpha), ("branch", .alpha),
        ("internal", .internal), ("TestFlight", .internal), ("staging", .internal), ("release", .release),
        ("App-Store", .release), ("prod", .release),
    ])
    func readsNamesAndAliases(name: String, expected: BuildConfiguration) {
        #expect(BuildConfiguration(name: name) == expected)
    }

    @Test func readsTheEnvironment() {
        #expect(BuildConfiguration(environment: ["FEATURE_FLAGS_BUILD_CONFIGURATION": "internal"]) == .internal)
        #expect(BuildConfiguration(environment: ["APP_BUILD": "alpha"], variable: "APP_BUILD") == .alpha)
        #expect(BuildConfiguration(environment: [:]) == nil)
        #expect(BuildConfiguration(environment: ["FEATURE_FLAGS_BUILD_CONFIGURATION": "nightly"]) == nil)
    }

    @Test func overridesArePermittedEverywhereButRelease() {
        #expect(BuildConfiguration.overridableByDefault == [.debug, .alpha, .internal])
    }

    @Test func phasePolicyEnablesPhasesZeroToTwoInDebugOnly() {
        let policy = PhasePolicy.standard
        #expect((0...2).allSatisfy { policy.enables(phase: $0, in: .debug) })
        #expect(!policy.enables(phase: 3, in: .debug))
        for configuration in [BuildConfiguration.alpha, .internal, .release] {
            #expect(!policy.enables(phase: 0, in: configuration))
        }
    }
}
