import ExampleFlags
import FeatureFlags
import FeatureFlagsTesting
import Observation
import Testing

/// Whether Observation reports a change after `read` ran under `withObservationTracking` and
/// then the asynchronous `change` ran.
func observesAsync(_ read: () -> Void, _ change: () async -> Void) async -> Bool {
    let fired = ChangeCounter()
    withObservationTracking(read) { fired.increment() }
    await change()
    return fired.count > 0
}

/// What each debug-menu view body reads, read the same way here: the status section reads
/// `status`, the flag list reads `list(_:)` (and each row its `FlagDebugRow`, which the list
/// hands down). For every change the menu shows, the body's read must be told of it.
struct FlagDebugObservationTests {
    /// The status section's body read.
    static func statusRead(_ menu: FlagDebugModel) -> () -> Void { { _ = menu.status } }
    /// The flag list's body read.
    static func listRead(_ menu: FlagDebugModel, _ filter: FlagDebugFilter = FlagDebugFilter()) -> () -> Void {
        { _ = menu.list(filter) }
    }

    @Test func remoteValuesWaitingForASafePointRedrawTheStatus() {
        let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .debug, remoteApplyPolicy: .atSafePoint))
        let menu = FlagDebugModel(flags)
        #expect(!menu.status.hasPendingRemoteValues)
        #expect(
            observes(Self.statusRead(menu)) {
                flags.engine.receiveRemoteValues(RemoteFlagValues(values: ["page_size": 70], source: "app_config"))
            })
        #expect(menu.status.hasPendingRemoteValues, "the Apply Waiting Remote Values button shows")
    }

    @Test func applyingWaitingValuesRedrawsStatusAndList() {
        let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .debug, remoteApplyPolicy: .atSafePoint))
        let menu = FlagDebugModel(flags)
        flags.engine.receiveRemoteValues(RemoteFlagValues(values: ["page_size": 70], source: "app_config"))
        #expect(observes(Self.statusRead(menu)) { menu.applyPendingRemoteValues() })
        #expect(!menu.status.hasPendingRemoteValues)
        #expect(menu.status.remoteSource == "app_config")

        flags.engine.receiveRemoteValues(RemoteFlagValues(values: ["page_size": 80], source: "app_config"))
        #expect(observes(Self.listRead(menu)) { menu.applyPendingRemoteValues() })
        #expect(menu.list().sections[0].rows.first { $0.key == "page_size" }?.value == 80)
    }

    @Test func aFailedRefreshRedrawsTheStatusWithItsDiagnostic() async {
        let provider = TestRemoteProvider(loaded: RemoteFlagValues(values: [:], source: "app_config"))
        let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .debug, remoteProvider: provider))
        let menu = FlagDebugModel(flags)
        provider.setFailure(TestProviderFailure("the server said 503"))
        let before = menu.status.diagnostics.count
        #expect(await observesAsync(Self.statusRead(menu)) { await menu.refreshRemoteValues() })
        #expect(menu.status.diagnostics.count == before + 1)
        #expect(menu.status.diagnostics.last?.message.contains("the server said 503") == true)
    }

    @Test func ignoredRemoteValuesRedrawTheStatus() {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        let menu = FlagDebugModel(flags)
        #expect(
            observes(Self.statusRead(menu)) {
                flags.engine.receiveRemoteValues(RemoteFlagValues(values: ["gone_flag": true], source: "app_config"))
            })
        #expect(menu.status.diagnostics.map(\.key) == ["gone_flag"])
    }

    @Test func aNewRemoteSourceRedrawsTheStatus() {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        let menu = FlagDebugModel(flags)
        #expect(
            observes(Self.statusRead(menu)) {
                flags.engine.receiveRemoteValues(RemoteFlagValues(values: ["page_size": 70], source: "app_config"))
            })
        #expect(menu.status.remoteSource == "app_config")
    }

    @Test func reconfiguringRedrawsTheStatus() {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        let menu = FlagDebugModel(flags)
        #expect(observes(Self.statusRead(menu)) { flags.configure(FlagSetup(buildConfiguration: .release)) })
        #expect(menu.status.buildConfiguration == .release)
        #expect(!menu.status.overridesPermitted)
    }

    @Test func theRemoteLoadersStatusRedrawsTheStatus() {
        let loader = ObservedLoader()
        let menu = FlagDebugModel(FeatureFlagManager<AppFlag>(buildConfiguration: .debug), remote: loader)
        #expect(observes(Self.statusRead(menu)) { loader.set(FlagDebugRemoteStatus(state: "error", error: "offline")) })
        #expect(menu.status.remote?.error == "offline")
    }

    @Test(arguments: [
        FlagDebugFilter(), FlagDebugFilter(search: "chat"), FlagDebugFilter(overriddenOnly: true),
        FlagDebugFilter(phase: 2, grouping: .owner), FlagDebugFilter(grouping: .phase),
    ])
    func everyListChangeRedrawsTheList(filter: FlagDebugFilter) throws {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        let menu = FlagDebugModel(flags)
        let changes: [(String, () -> Void)] = [
            ("override set", { try? menu.toggle("chat_view_redesign") }),
            ("override cleared", { try? menu.clearOverride(forKey: "chat_view_redesign") }),
            ("typed override", { try? menu.setOverride(parsing: "25", forKey: "page_size") }),
            ("reset all", { menu.resetAll() }),
            ("user preference", { try? menu.setUserPreference("floating", forKey: "composer_style") }),
            ("import", { _ = try? menu.importOverrides(fromJSON: #"{"ideas_drawer": true}"#) }),
            (
                "remote values",
                { flags.engine.receiveRemoteValues(RemoteFlagValues(values: ["page_size": 90], source: "app_config")) }
            ),
        ]
        for (name, change) in changes {
            #expect(observes(Self.listRead(menu, filter), change), "\(name)")
        }
    }

    /// The share button's body reads the export; a gate's body reads its decision.
    @Test func theShareButtonAndTheGatesRedrawOnOverrides() {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        let menu = FlagDebugModel(flags)
        #expect(observes({ _ = menu.exportOverrides() }) { try? menu.toggle("ideas_drawer") })
        let managers = FeatureFlagManagers().inserting(flags)
        #expect(
            observes({ _ = FeatureGateDecision.decide(AppFlag.ideasDrawer, in: managers) }) {
                flags.setOverride(.ideasDrawer, to: false)
            })
    }

    /// The status is observed apart from the values: a diagnostic does not redraw every view
    /// that read a flag.
    @Test func aDiagnosticDoesNotNotifyFlagReaders() async {
        let provider = TestRemoteProvider(loaded: RemoteFlagValues(values: [:], source: "app_config"))
        let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .debug, remoteProvider: provider))
        provider.setFailure(TestProviderFailure("the server said 503"))
        #expect(!(await observesAsync({ _ = flags.isEnabled(.chatViewRedesign) }) { await flags.refreshRemoteValues() }))
        #expect(flags.diagnostics.last?.message.contains("the server said 503") == true)
    }
}

/// A remote loader double that announces its changes to Observation, as the protocol requires.
final class ObservedLoader: FlagDebugRemoteStatusReporting {
    private let registrar = ObservationRegistrar()
    private let status = Locked(FlagDebugRemoteStatus(state: "ready"))

    var debugRemoteStatus: FlagDebugRemoteStatus {
        registrar.access(self, keyPath: \.debugRemoteStatus)
        return status.withLock { $0 }
    }

    func set(_ new: FlagDebugRemoteStatus) {
        registrar.withMutation(of: self, keyPath: \.debugRemoteStatus) { status.withLock { $0 = new } }
    }
}
