import FeatureFlags
import Testing

/// An app with a `BuildConfiguration` of its own reaches the library's through the module's
/// name. The deprecated alias `FeatureFlags<Flag>` (gone, with its package trait) hid the module,
/// so `FeatureFlags.BuildConfiguration` did not compile while it existed.
struct ModuleQualifiedNamesTests {
    /// The app's own type of the same name, as in the apps the alias broke.
    enum BuildConfiguration { case appStore }

    @Test func theModuleNameQualifiesTheLibrarysTypes() {
        let mine = BuildConfiguration.appStore
        let configuration: FeatureFlags.BuildConfiguration = .release
        let flags = FeatureFlags.FeatureFlagManager<TestFlag>(buildConfiguration: configuration)
        #expect(mine == .appStore)
        #expect(flags.buildConfiguration == .release)
        #expect(FeatureFlags.FlagEngine.self == type(of: flags.engine))
    }
}
