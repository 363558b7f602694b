import ExampleFlags
import FeatureFlags
import FeatureFlagsTesting
import Observation
import Testing

/// Whether Observation reports a change after `read` ran under `withObservationTracking` and
/// then `change` ran.
func observes(_ read: () -> Void, _ change: () -> Void) -> Bool {
    let fired = ChangeCounter()
    withObservationTracking(read) { fired.increment() }
    change()
    return fired.count > 0
}

/// Every way of reading the typed manager, the engine and the debug model.
enum ObservedRead: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case isEnabled, subscriptRead, isEnabledChecking, intValue, stringValue, objectValue, details, typedDetails
    case isOverridden, snapshot, engineValue, engineDetails, engineOverrides, debugRows

    var testDescription: String { rawValue }

    func read(_ flags: FeatureFlagManager<AppFlag>) {
        switch self {
        case .isEnabled: _ = flags.isEnabled(.chatViewRedesign)
        case .subscriptRead: _ = flags[.chatViewRedesign]
        case .isEnabledChecking: _ = flags.isEnabled(.voiceInput, checking: .buildOnly)
        case .intValue: _ = flags.value(AppConfig.pageSize)
        case .stringValue: _ = flags.value(AppConfig.onboardingVariant)
        case .objectValue: _ = flags.value(AppConfig.retryPolicy)
        case .details: _ = flags.details(.chatViewRedesign)
        case .typedDetails: _ = flags.details(AppConfig.pageSize)
        case .isOverridden: _ = flags.isOverridden(.chatViewRedesign)
        case .snapshot: _ = flags.snapshot.isEnabled(.chatViewRedesign)
        case .engineValue: _ = flags.engine.value(forKey: "chat_view_redesign")
        case .engineDetails: _ = flags.engine.details(forKey: "chat_view_redesign")
        case .engineOverrides: _ = flags.engine.overrides
        case .debugRows: _ = FlagDebugModel(flags).rows(matching: "chat")
        }
    }
}

struct ObservationTests {
    @Test(arguments: ObservedRead.allCases)
    func everyReadIsObserved(_ path: ObservedRead) {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        #expect(observes({ path.read(flags) }, { flags.setOverride(.chatViewRedesign, to: false) }))
    }

    @Test(arguments: ObservedRead.allCases)
    func aReadWithoutAChangeIsNotNotified(_ path: ObservedRead) {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        // A setter refused in release builds publishes nothing.
        let release = FeatureFlagManager<AppFlag>(buildConfiguration: .release)
        #expect(!observes({ path.read(flags) }, { _ = flags.isEnabled(.ideasDrawer) }))
        #expect(!observes({ path.read(release) }, { release.setOverride(.chatViewRedesign, to: false) }))
    }

    /// Recording events changes what a check does besides reading (counting, exposures), not
    /// what Observation sees: a tracked read still registers, so its `onChange` fires.
    @Test(arguments: ObservedRead.allCases)
    func everyReadIsObservedWhileRecording(_ path: ObservedRead) {
        let recorder = FlagEventRecorder(.init(source: FlagEventSource(appVersion: "1", buildConfiguration: .debug)))
        let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .debug, eventRecorder: recorder))
        flags.engine.receiveRemoteValues(
            RemoteFlagValues(["chat_view_redesign": RemoteFlagValue(true, variant: "on")], source: "ofrep", unit: "u"))
        // The first read (the exposure, out of line) and a later one (counted inline).
        #expect(observes({ path.read(flags) }, { flags.setOverride(.chatViewRedesign, to: false) }))
        #expect(observes({ path.read(flags) }, { flags.setOverride(.chatViewRedesign, to: true) }))
    }

    @Test func anObservedCheckWhileRecordingFiresOnChangeAndIsCounted() {
        let recorder = FlagEventRecorder(.init(source: FlagEventSource(appVersion: "1", buildConfiguration: .debug)))
        let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .debug, eventRecorder: recorder))
        let fired = ChangeCounter()
        var seen: Bool?
        withObservationTracking { seen = flags.isEnabled(.terminalRedesign) } onChange: { fired.increment() }
        #expect(seen == false && fired.count == 0)
        flags.setOverride(.terminalRedesign, to: true)
        #expect(fired.count == 1)
        #expect(flags.untracked.isEnabled(.terminalRedesign))
        let counts = recorder.drain().events.compactMap { if case .summary(let summary) = $0 { summary.count } else { nil } }
        #expect(counts.reduce(0, +) == 2, "both reads counted, whether observed or not")
    }

    @Test func overridesAndTheirRemovalNotify() {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        #expect(observes({ _ = flags.isEnabled(.terminalRedesign) }, { flags.setOverride(.terminalRedesign, to: true) }))
        #expect(observes({ _ = flags.isEnabled(.terminalRedesign) }, { flags.setOverride(.terminalRedesign, to: nil) }))
        flags.setOverride(AppConfig.pageSize, to: 40)
        #expect(observes({ _ = flags.value(AppConfig.pageSize) }, { flags.removeAllOverrides() }))
    }

    @Test func userPreferencesNotify() {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        #expect(observes({ _ = flags.isEnabled(.offlineMode) }, { flags.setUserPreference(.offlineMode, to: true) }))
        #expect(flags.isEnabled(.offlineMode))
    }

    @Test func remoteValuesNotifyWhenTheyApply() {
        let immediate = FeatureFlagManager<AppFlag>(buildConfiguration: .release)
        #expect(
            observes(
                { _ = immediate.isEnabled(.chatViewRedesign) },
                { immediate.engine.receiveRemoteValues(RemoteFlagValues(values: ["chat_view_redesign": true])) }))
        #expect(immediate.isEnabled(.chatViewRedesign))

        let deferred = FeatureFlagManager<AppFlag>(
            FlagSetup(buildConfiguration: .release, remoteApplyPolicy: .atSafePoint))
        let values = RemoteFlagValues(values: ["chat_view_redesign": true])
        #expect(
            !observes({ _ = deferred.isEnabled(.chatViewRedesign) }, { deferred.engine.receiveRemoteValues(values) }),
            "values waiting for a safe point change nothing yet")
        #expect(observes({ _ = deferred.isEnabled(.chatViewRedesign) }, { deferred.applyPendingRemoteValues() }))
        #expect(deferred.isEnabled(.chatViewRedesign))
    }

    @Test func configurationAndReconfigurationNotify() {
        let flags = FeatureFlagManager<AppFlag>(logger: RecordingLogHandler().logger)
        #expect(observes({ _ = flags.isEnabled(.chatViewRedesign) }, { flags.configure(FlagSetup(buildConfiguration: .debug)) }))
        #expect(flags.isEnabled(.chatViewRedesign))
        #expect(observes({ _ = flags.isEnabled(.chatViewRedesign) }, { flags.configure(FlagSetup(buildConfiguration: .release)) }))
        #expect(!flags.isEnabled(.chatViewRedesign))
    }

    /// The documented granularity: the whole flag set. A change to another flag notifies too.
    @Test func aChangeToAnotherFlagNotifiesEveryObserver() {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        #expect(observes({ _ = flags.isEnabled(.chatViewRedesign) }, { flags.setOverride(AppConfig.pageSize, to: 33) }))
    }

    @Test func theRevisionCountsPublishedChanges() {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        let before = flags.engine.revision
        flags.setOverride(.terminalRedesign, to: true)
        flags.setOverride(.terminalRedesign, to: true)
        #expect(flags.engine.revision == before + 2, "the second set changes no value but is still published")
        flags.setOverride(.terminalRedesign, to: nil)
        #expect(flags.engine.revision == before + 3)
    }
}

/// The explicit untracked check reads the same value and is not observed.
struct UntrackedReadTests {
    @Test func untrackedChecksReadTheSameValueAndAreNotObserved() {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        for flag in AppFlag.allCases {
            #expect(flags.untracked.isEnabled(flag) == flags.isEnabled(flag))
            #expect(flags.untracked[flag] == flags[flag])
        }
        #expect(!observes({ _ = flags.untracked.isEnabled(.chatViewRedesign) }, { flags.setOverride(.chatViewRedesign, to: false) }))
        #expect(flags.untracked.isEnabled(.chatViewRedesign) == false)
        #expect(observes({ _ = flags.isEnabled(.chatViewRedesign) }, { flags.setOverride(.chatViewRedesign, to: true) }))
    }
    @Test func untrackedReadsByKeyReadTheSameValueAndAreNotObserved() {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        flags.setOverride(AppConfig.onboardingVariant, to: "checklist")
        for key in flags.engine.registry.definitions.map(\.key) + ["no_such_flag"] {
            #expect(flags.engine.untracked.value(forKey: key) == flags.engine.value(forKey: key))
        }
        let engine = flags.engine
        #expect(!observes({ _ = engine.untracked.value(forKey: "chat_view_redesign") }, { flags.setOverride(.chatViewRedesign, to: false) }))
        #expect(!observes({ _ = engine.untracked.value(forKey: "onboarding_variant") }, { flags.setOverride(AppConfig.onboardingVariant, to: "x") }))
        #expect(observes({ _ = engine.value(forKey: "chat_view_redesign") }, { flags.setOverride(.chatViewRedesign, to: true) }))
        #expect(observes({ _ = engine.value(forKey: "onboarding_variant") }, { flags.setOverride(AppConfig.onboardingVariant, to: "y") }))
    }
}
