import ExampleFlags
import FeatureFlags
import Testing

struct LaunchArgumentOverridesTests {
    let registry = try! FlagRegistry(AppFlag.self)

    @Test func parsesFlagArgumentsAmongOthers() {
        let (overrides, problems) = LaunchArgumentOverrides.parse(
            [
                "/path/to/App", "-NSDoubleLocalizedStrings", "YES", "-ff.chat_view_redesign", "YES",
                "-ff.ideas_drawer", "off", "-ff.page_size=25", "-ff.stream_flush_interval", "0.5",
                "-ff.onboarding_variant", "guided tour", "-ff.composer_style", "compact",
                "-ff.retry_policy", #"{"attempts":1,"backoffSeconds":0}"#,
            ], registry: registry)
        #expect(problems.isEmpty)
        #expect(
            overrides == [
                "chat_view_redesign": true, "ideas_drawer": false, "page_size": 25, "stream_flush_interval": 0.5,
                "onboarding_variant": "guided tour", "composer_style": "compact",
                "retry_policy": ["attempts": 1, "backoffSeconds": 0],
            ])
    }

    @Test(arguments: [("YES", true), ("no", false), ("true", true), ("FALSE", false), ("1", true), ("0", false), ("on", true), ("Off", false)])
    func booleanSpellings(text: String, expected: Bool) {
        #expect(LaunchArgumentOverrides.value(from: text, as: .boolean) == .bool(expected))
    }

    @Test func reportsWhatItCannotUse() {
        let (overrides, problems) = LaunchArgumentOverrides.parse(
            ["-ff.no_such_flag", "YES", "-ff.page_size", "many", "-ff.chat_view_redesign", "maybe", "-ff.ideas_drawer"],
            registry: registry)
        #expect(overrides.isEmpty)
        #expect(
            problems == [
                "Launch argument '-ff.no_such_flag' names no known flag; it was ignored.",
                "Launch argument '-ff.page_size many' is not a valid integer for 'page_size'; it was ignored.",
                "Launch argument '-ff.chat_view_redesign maybe' is not a valid boolean for 'chat_view_redesign'; it was ignored.",
                "Launch argument '-ff.ideas_drawer' has no value; it was ignored.",
            ])
    }

    @Test func launchOverridesApplyForThisLaunchOnly() throws {
        let store = InMemoryFlagStore()
        let flags = FeatureFlagManager<AppFlag>(
            FlagSetup(
                buildConfiguration: .alpha, overrideStore: store,
                launchArguments: ["-ff.chat_view_redesign", "YES", "-ff.bogus", "1"]))
        #expect(flags.isEnabled(.chatViewRedesign))
        #expect(flags.details(.chatViewRedesign).layer == .override)
        #expect(try store.load() == [:])
        #expect(flags.engine.diagnostics.map(\.kind) == [.invalidLaunchArgument])
    }

    @Test func launchOverridesDoNotApplyInReleaseBuilds() {
        let flags = FeatureFlagManager<AppFlag>(
            FlagSetup(buildConfiguration: .release, launchArguments: ["-ff.chat_view_redesign", "YES"]))
        #expect(!flags.isEnabled(.chatViewRedesign))
    }
}
