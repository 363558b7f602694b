import ExampleFlags
import FeatureFlags
import FeatureFlagsTesting
import Foundation
import Testing

struct OverrideTests {
    @Test func setAndClearOneOverride() {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .alpha)
        #expect(!flags.isEnabled(.terminalRedesign))
        flags.setOverride(.terminalRedesign, to: true)
        #expect(flags.isEnabled(.terminalRedesign))
        #expect(flags.isOverridden(.terminalRedesign))
        #expect(flags.details(.terminalRedesign).layer == .override)
        flags.setOverride(.terminalRedesign, to: nil)
        #expect(!flags.isEnabled(.terminalRedesign))
        #expect(!flags.isOverridden(.terminalRedesign))
    }

    @Test func anOverrideCanTurnAFlagOff() {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        flags.setOverride(.liquidGlassDesign, to: false)
        #expect(!flags.isEnabled(.liquidGlassDesign))
    }

    @Test func removeAllOverridesClearsEverything() {
        let flags = FeatureFlagManager<AppFlag>(
            FlagSetup(buildConfiguration: .debug, launchArguments: ["-ff.ideas_drawer", "YES"]))
        flags.setOverride(.terminalRedesign, to: true)
        flags.setOverride(AppConfig.pageSize, to: 99)
        #expect(flags.isEnabled(.ideasDrawer))
        flags.removeAllOverrides()
        #expect(!flags.isEnabled(.terminalRedesign))
        #expect(!flags.isEnabled(.ideasDrawer))
        #expect(flags.value(AppConfig.pageSize) == 10)
        #expect(flags.engine.overrides.isEmpty)
    }

    @Test func typedOverridesOfEveryKind() {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .internal)
        flags.setOverride(AppConfig.pageSize, to: 25)
        flags.setOverride(AppConfig.streamFlushInterval, to: 0.2)
        flags.setOverride(AppConfig.onboardingVariant, to: "guided")
        flags.setOverride(AppConfig.composerStyle, to: .floating)
        flags.setOverride(AppConfig.retryPolicy, to: RetryPolicy(attempts: 5, backoffSeconds: 2))
        #expect(flags.value(AppConfig.pageSize) == 25)
        #expect(flags.value(AppConfig.streamFlushInterval) == 0.2)
        #expect(flags.value(AppConfig.onboardingVariant) == "guided")
        #expect(flags.value(AppConfig.composerStyle) == .floating)
        #expect(flags.value(AppConfig.retryPolicy) == RetryPolicy(attempts: 5, backoffSeconds: 2))
    }

    @Test func overridesAreRefusedInReleaseBuilds() {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .release)
        flags.setOverride(.terminalRedesign, to: true)
        #expect(!flags.isEnabled(.terminalRedesign))
        #expect(throws: FlagOverrideError.self) { try flags.engine.setOverride(true, forKey: "terminal_redesign") }
    }

    @Test func storedOverridesAreIgnoredButKeptInReleaseBuilds() throws {
        let store = InMemoryFlagStore(["terminal_redesign": true])
        let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .release, overrideStore: store))
        #expect(!flags.isEnabled(.terminalRedesign))
        #expect(try store.load() == ["terminal_redesign": true])
    }

    @Test func ignoredOverridesAreNotReportedAsActiveInReleaseBuilds() throws {
        let store = InMemoryFlagStore(["terminal_redesign": true])
        let release = FeatureFlagManager<AppFlag>(
            FlagSetup(
                buildConfiguration: .release, overrideStore: store, launchArguments: ["-ff.ideas_drawer", "YES"]))
        #expect(!release.isOverridden(.terminalRedesign))
        #expect(!release.isOverridden(.ideasDrawer))
        #expect(release.engine.overrides.isEmpty)
        #expect(release.engine.storedOverrides == ["terminal_redesign": true, "ideas_drawer": true])
        #expect(try store.load() == ["terminal_redesign": true])

        let debug = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .debug, overrideStore: store))
        #expect(debug.isOverridden(.terminalRedesign))
        #expect(debug.engine.overrides == ["terminal_redesign": true])
    }

    @Test func theManagerRejectsUnknownKeysAndWrongTypes() {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        #expect {
            try flags.engine.setOverride(true, forKey: "no_such_flag")
        } throws: { error in
            "\(error)".contains("There is no flag 'no_such_flag'")
        }
        #expect {
            try flags.engine.setOverride("many", forKey: "page_size")
        } throws: { error in
            "\(error)" == "Flag 'page_size' is integer, so it cannot be set to \"many\"."
        }
        #expect(flags.value(AppConfig.pageSize) == 10)
    }

    @Test func overridesArePersistedAndRestored() throws {
        let directory = TemporaryDirectory()
        let store = JSONFileFlagStore(directory: directory.url)
        do {
            let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .debug, overrideStore: store))
            flags.setOverride(.sheetSystem, to: true)
            flags.setOverride(AppConfig.onboardingVariant, to: "guided")
        }
        #expect(try store.load() == ["sheet_system": true, "onboarding_variant": "guided"])
        let relaunched = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .debug, overrideStore: store))
        #expect(relaunched.isEnabled(.sheetSystem))
        #expect(relaunched.value(AppConfig.onboardingVariant) == "guided")
    }

    @Test func aStoreThatCannotWriteKeepsTheOverrideInMemoryAndReports() {
        let flags = FeatureFlagManager<AppFlag>(
            FlagSetup(buildConfiguration: .debug, overrideStore: UnwritableStore()))
        flags.setOverride(.sheetSystem, to: true)
        #expect(flags.isEnabled(.sheetSystem))
        #expect(flags.engine.diagnostics.contains { $0.kind == .unwritableStore })
    }
}

private struct UnwritableStore: FlagValueStore {
    func load() throws(FlagStoreError) -> [String: FlagValue] { [:] }
    func save(_ values: [String: FlagValue]) throws(FlagStoreError) {
        throw .unwritable(location: "nowhere", reason: "read-only")
    }
}
