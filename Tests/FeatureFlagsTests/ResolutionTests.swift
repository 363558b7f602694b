import ExampleFlags
import FeatureFlags
import FeatureFlagsTesting
import Testing

struct ResolutionTests {
    // MARK: Defaults per build configuration

    @Test func debugBuildsEnablePhasesZeroToTwo() {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        for flag in AppFlag.allCases {
            let phase = flag.metadata.phase ?? 99
            let expected = phase <= 2 || flag.metadata.defaultValue || (flag.metadata.enabledIn?.contains(.debug) ?? false)
            #expect(flags.isEnabled(flag) == expected, "\(flag.rawValue) in debug")
        }
        #expect(flags.isEnabled(.liquidGlassDesign))
        #expect(flags.details(.liquidGlassDesign).layer == .buildConfiguration)
        #expect(!flags.isEnabled(.streamInteractions))
    }

    @Test(arguments: [BuildConfiguration.alpha, .internal, .release])
    func otherBuildsUseDeclaredDefaults(configuration: BuildConfiguration) {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: configuration)
        for flag in AppFlag.allCases {
            let expected = flag.metadata.enabledIn.map { $0.contains(configuration) } ?? flag.metadata.defaultValue
            #expect(flags.isEnabled(flag) == expected, "\(flag.rawValue) in \(configuration)")
        }
        #expect(!flags.isEnabled(.liquidGlassDesign))
        #expect(flags.isEnabled(.messageRetry))
        #expect(flags.isEnabled(.exportShare) == (configuration != .release))
    }

    @Test func typedValuesHaveBuildDefaults() {
        #expect(FeatureFlagManager<AppFlag>(buildConfiguration: .debug).value(AppConfig.pageSize) == 10)
        #expect(FeatureFlagManager<AppFlag>(buildConfiguration: .release).value(AppConfig.pageSize) == 50)
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .release)
        #expect(flags.value(AppConfig.streamFlushInterval) == 0.05)
        #expect(flags.value(AppConfig.onboardingVariant) == "classic")
        #expect(flags.value(AppConfig.composerStyle) == .classic)
        #expect(flags.value(AppConfig.retryPolicy) == RetryPolicy(attempts: 3, backoffSeconds: 1.5))
    }

    @Test func aCustomPhasePolicyApplies() {
        let flags = FeatureFlagManager<AppFlag>(
            FlagSetup(buildConfiguration: .alpha, phasePolicy: PhasePolicy([.alpha: 0...4])))
        #expect(flags.isEnabled(.quickSettings))
        #expect(!flags.isEnabled(.terminalRedesign))
    }

    // MARK: The full precedence matrix

    struct Layers: CustomTestStringConvertible, Sendable {
        var build, remote, user, override: Bool
        var testDescription: String {
            "build:\(build) remote:\(remote) user:\(user) override:\(override)"
        }
    }

    static let allLayerCombinations: [Layers] = (0..<16).map {
        Layers(build: $0 & 1 != 0, remote: $0 & 2 != 0, user: $0 & 4 != 0, override: $0 & 8 != 0)
    }

    @Test(arguments: allLayerCombinations, [BuildConfiguration.debug, .release])
    func theHighestLayerThatSaysSomethingWins(layers: Layers, configuration: BuildConfiguration) throws {
        var definition = FlagDefinition(key: "n", type: .integer, default: 0, isUserTogglable: true, checking: .userOnly)
        if layers.build { definition.buildDefaults = [configuration: 1] }
        let registry = try FlagRegistry([definition])
        let manager = FlagEngine(
            registry: registry,
            setup: FlagSetup(
                buildConfiguration: configuration,
                overrideStore: InMemoryFlagStore(layers.override ? ["n": 4] : [:]),
                userPreferenceStore: InMemoryFlagStore(layers.user ? ["n": 3] : [:]),
                remoteProvider: TestRemoteProvider(cached: layers.remote ? RemoteFlagValues(values: ["n": 2]) : nil),
                remoteApplyPolicy: .nextLaunch))

        let overrideApplies = layers.override && configuration != .release
        let expected: (value: Int, layer: FlagLayer) =
            overrideApplies ? (4, .override)
            : layers.user ? (3, .userPreference)
            : layers.remote ? (2, .remote)
            : layers.build ? (1, .buildConfiguration)
            : (0, .default)
        let details = manager.details(forKey: "n")
        #expect(details.value == .int(expected.value))
        #expect(details.layer == expected.layer)
        let selected = details.layers.filter { $0.status == .selected }.map(\.layer)
        #expect(selected == [expected.layer])
        if layers.override && !overrideApplies {
            #expect(details.layers[FlagLayer.override.rawValue].status == .ignored("overrides are not permitted in release"))
        }
    }

    // MARK: Checking modes

    @Test func buildAndUserNeedsBothOn() {
        let flags = FeatureFlagManager<TestFlag>.testing(.release)
        #expect(flags.isEnabled(.toggle))
        flags.setUserPreference(.toggle, to: false)
        #expect(!flags.isEnabled(.toggle))
        #expect(flags.details(.toggle).layer == .userPreference)
        flags.setUserPreference(.toggle, to: true)
        #expect(flags.isEnabled(.toggle))
        // The user cannot switch on what the build has off.
        flags.setOverride(.toggle, to: false)
        flags.setUserPreference(.toggle, to: true)
        #expect(!flags.isEnabled(.toggle))
    }

    @Test func userOnlyUsesThePreferenceWhenSet() {
        let flags = FeatureFlagManager<TestFlag>.testing(.release)
        #expect(!flags.isEnabled(.userOnly))
        flags.setUserPreference(.userOnly, to: true)
        #expect(flags.isEnabled(.userOnly))
        flags.setUserPreference(.userOnly, to: nil)
        #expect(!flags.isEnabled(.userOnly))
    }

    @Test func buildOnlyIgnoresThePreference() {
        let flags = FeatureFlagManager<TestFlag>.testing(.release)
        flags.setUserPreference(.buildOnly, to: false)
        #expect(flags.isEnabled(.buildOnly))
        #expect(flags.details(.buildOnly).layers[FlagLayer.userPreference.rawValue].status == .ignored("checking mode is buildOnly"))
    }

    @Test func aCheckingModeCanBeChosenPerCheck() {
        let flags = FeatureFlagManager<TestFlag>.testing(.release)
        flags.setUserPreference(.toggle, to: false)
        #expect(!flags.isEnabled(.toggle))
        #expect(flags.isEnabled(.toggle, checking: .buildOnly))
        #expect(!flags.isEnabled(.toggle, checking: .userOnly))
        flags.setUserPreference(.userOnly, to: true)
        #expect(flags.isEnabled(.userOnly, checking: .userOnly))
        #expect(!flags.isEnabled(.userOnly, checking: .buildOnly))
    }

    @Test func preferencesOfFlagsThatAreNotUserTogglableAreRefused() {
        let flags = FeatureFlagManager<TestFlag>.testing(.release)
        #expect(throws: FlagOverrideError.self) { try flags.engine.setUserPreference(true, forKey: "base") }
        flags.setUserPreference(.base, to: true)
        #expect(!flags.isEnabled(.base))
    }

    // MARK: Dependencies and conflicts

    @Test func aFlagWhosePrerequisiteIsOffIsOff() {
        let flags = FeatureFlagManager<TestFlag>.testing(.debug, overrides: [.grandchild: true, .child: true])
        #expect(!flags.isEnabled(.child))
        #expect(!flags.isEnabled(.grandchild))
        let details = flags.details(.child)
        #expect(details.reason == .disabled)
        #expect(details.message?.contains("requires 'base', which is off") == true)
        #expect(flags.details(.grandchild).message?.contains("requires 'child'") == true)

        flags.setOverride(.base, to: true)
        #expect(flags.isEnabled(.child))
        #expect(flags.isEnabled(.grandchild))
        #expect(flags.details(.child).reason == .static)
    }

    @Test func ofTwoConflictingFlagsTheHigherLayerWins() {
        // right comes from an override, left from a remote value: right wins.
        let flags = FeatureFlagManager<TestFlag>.testing(
            .debug, overrides: [.right: true], remote: RemoteFlagValues(values: ["left": true]))
        #expect(flags.isEnabled(.right))
        #expect(!flags.isEnabled(.left))
        #expect(flags.details(.left).message?.contains("conflicts with 'right'") == true)
        #expect(flags.details(.left).message?.contains("override value outranks this flag's remote value") == true)
    }

    @Test func onATieTheFlagDeclaredFirstWins() {
        let flags = FeatureFlagManager<TestFlag>.testing(.debug, overrides: [.left: true, .right: true])
        #expect(flags.isEnabled(.left))
        #expect(!flags.isEnabled(.right))
        #expect(flags.details(.right).message?.contains("declared first") == true)
    }

    @Test func flagsRequiringAConflictLoserAreOff() throws {
        let registry = try FlagRegistry([
            FlagDefinition(key: "winner", type: .boolean, default: true, conflicts: ["loser"]),
            FlagDefinition(key: "loser", type: .boolean, default: true),
            FlagDefinition(key: "dependent", type: .boolean, default: true, requires: ["loser"]),
        ])
        let manager = FlagEngine(registry: registry, setup: FlagSetup(buildConfiguration: .release))
        #expect(manager.value(forKey: "winner") == true)
        #expect(manager.value(forKey: "loser") == false)
        #expect(manager.value(forKey: "dependent") == false)
        #expect(manager.details(forKey: "dependent").message?.contains("requires 'loser'") == true)
    }

    @Test func theExampleRegistryAppliesItsConflict() {
        let flags = FeatureFlagManager<AppFlag>.testing(.internal, overrides: [.icloudSync: true])
        flags.setUserPreference(.offlineMode, to: true)
        // The override outranks the user's preference.
        #expect(flags.isEnabled(.icloudSync))
        #expect(!flags.isEnabled(.offlineMode))
    }
}

struct TypedFlagPositionTests {
    @Test func aTypedFlagReadsCorrectlyFromRegistriesWithDifferentLayouts() throws {
        let shared = TypedFlag<Int>("shared", default: 1)
        let first = FlagEngine(
            registry: try FlagRegistry([shared.definition]), setup: FlagSetup(buildConfiguration: .release))
        let second = FlagEngine(
            registry: try FlagRegistry([FlagDefinition(key: "other", type: .boolean, default: false), shared.definition]),
            setup: FlagSetup(buildConfiguration: .release))
        #expect(first.registry.index(of: shared) == 0)
        #expect(second.registry.index(of: shared) == 1)
        #expect(first.registry.index(of: shared) == 0)
        let absent = TypedFlag<Int>("absent", default: 7)
        #expect(first.registry.index(of: absent) == nil)
        #expect(FeatureFlagManager<AppFlag>(buildConfiguration: .release).value(absent) == 7)
    }
}
