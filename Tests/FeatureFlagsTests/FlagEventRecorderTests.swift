import Foundation
import Synchronization
import Testing

@testable import FeatureFlags

/// Exposures, read counts, tracked events and hooks, recorded by the flags' checks.
struct FlagEventRecorderTests {
    static let source = FlagEventSource(appVersion: "4.2", buildConfiguration: .release, platform: "TestOS")
    static let start = Date(timeIntervalSince1970: 1_900_000_000)

    /// A recorder whose clock the test moves, and flags recording into it.
    struct Fixture {
        let recorder: FlagEventRecorder
        let flags: FeatureFlagManager<TestFlag>
        let hook: RecordingHook

        init(allowedAttributes: Set<String> = [], maximumBufferedEvents: Int = 1_000, flushThreshold: Int = 200) {
            let hook = RecordingHook()
            self.hook = hook
            recorder = FlagEventRecorder(
                .init(
                    source: FlagEventRecorderTests.source, allowedAttributes: allowedAttributes,
                    maximumBufferedEvents: maximumBufferedEvents, flushThreshold: flushThreshold, hooks: [hook],
                    now: { FlagEventRecorderTests.now }))
            flags = FeatureFlagManager<TestFlag>(FlagSetup(buildConfiguration: .release, eventRecorder: recorder))
        }

        func serve(_ values: [String: RemoteFlagValue], unit: String?, revision: String? = "7") {
            flags.engine.receiveRemoteValues(RemoteFlagValues(values, source: "ofrep", unit: unit, revision: revision))
        }

        func exposures() -> [FlagExposure] {
            recorder.drain().events.compactMap { if case .exposure(let exposure) = $0 { exposure } else { nil } }
        }
    }

    static var now: Date { start }

    @Test func firstReadOfARemoteValueIsOneExposure() {
        let fixture = Fixture()
        fixture.serve(["right": RemoteFlagValue(true, variant: "on", reason: .split)], unit: "user-1")
        for _ in 0..<5 { _ = fixture.flags.isEnabled(.right) }
        _ = fixture.flags.untracked.isEnabled(.right)
        _ = fixture.flags.isEnabled(.left)  // not from the server: no exposure
        let exposures = fixture.exposures()
        #expect(
            exposures == [
                FlagExposure(
                    flag: "right", variant: "on", value: .bool(true), reason: .split, revision: "7", unit: "user-1",
                    time: Self.start, source: Self.source)
            ])
        #expect(fixture.hook.exposures.withLock { $0 } == exposures)
    }

    /// Many threads make the first read of a newly published value together: one of them
    /// records the exposure, and afterwards the flag's reads are only counted (its mark no longer
    /// sends them out of line).
    @Test func theFirstReadFromManyThreadsIsOneExposureAndLaterReadsOnlyCount() async throws {
        let fixture = Fixture()
        fixture.serve(["right": RemoteFlagValue(true, variant: "on", reason: .split)], unit: "user-1")
        let flags = fixture.flags
        let index = try #require(flags.engine.registry.index(ofKey: "right"))
        #expect(flags.engine.slots.mark(at: index) & FlagReadMarks.slow != 0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { for _ in 0..<1_000 { _ = flags.untracked.isEnabled(.right) } }
            }
        }
        #expect(flags.engine.slots.mark(at: index) == UInt64(flags.engine.slots.counterOffset(of: index)))
        let events = fixture.recorder.drain().events
        #expect(events.compactMap { if case .exposure(let exposure) = $0 { exposure.flag } else { nil } } == ["right"])
        #expect(fixture.hook.exposures.withLock { $0.count } == 1)
        let counted = events.compactMap { if case .summary(let summary) = $0 { summary.count } else { nil } }.reduce(0, +)
        #expect((1...4_000).contains(counted), "threads meeting in one row may lose counts, never add any")
    }

    /// Exposures are remembered per session: after ``FlagEventRecorder/beginSession()`` the next
    /// read of the same published value is an exposure again (and hooks see it), while reads
    /// within a session stay counted only.
    @Test func aNewSessionExposesTheSameValueAgainAtItsFirstRead() throws {
        let fixture = Fixture()
        fixture.serve(["right": RemoteFlagValue(true, variant: "on", reason: .split)], unit: "user-1")
        for _ in 0..<3 { _ = fixture.flags.isEnabled(.right) }
        #expect(fixture.exposures().map(\.flag) == ["right"])
        #expect(fixture.recorder.exposedVariants(of: "user-1") == ["right": "on"])
        fixture.recorder.beginSession()
        #expect(fixture.recorder.exposedVariants(of: "user-1") == [:])
        for _ in 0..<3 { _ = fixture.flags.isEnabled(.right) }
        #expect(fixture.exposures().map(\.flag) == ["right"])
        #expect(fixture.hook.exposures.withLock { $0.map(\.flag) } == ["right", "right"])
        // Flags that are not the server's stay out of line-free: nothing to expose.
        let index = try #require(fixture.flags.engine.registry.index(ofKey: "left"))
        #expect(fixture.flags.engine.slots.mark(at: index) & FlagReadMarks.slow == 0)
    }

    @Test func republishingTheSameVariantIsNotASecondExposure() {
        let fixture = Fixture()
        fixture.serve(["right": RemoteFlagValue(true, variant: "on", reason: .split)], unit: "user-1")
        _ = fixture.flags.isEnabled(.right)
        // A refresh with another revision but the same variant for the same unit.
        fixture.serve(["right": RemoteFlagValue(true, variant: "on", reason: .split)], unit: "user-1", revision: "8")
        _ = fixture.flags.isEnabled(.right)
        fixture.serve(["right": RemoteFlagValue(false, variant: "off", reason: .split)], unit: "user-1", revision: "9")
        _ = fixture.flags.isEnabled(.right)
        #expect(fixture.exposures().map { "\($0.variant ?? "-")@\($0.revision ?? "-")" } == ["on@7", "off@9"])
    }

    @Test func aUnitSwitchAttributesEachExposureToItsUnit() {
        let fixture = Fixture()
        fixture.serve(["right": RemoteFlagValue(true, variant: "on", reason: .targetingMatch)], unit: "anonymous-1")
        _ = fixture.flags.isEnabled(.right)
        // Signed in: the app reads before the new values arrive, then after.
        _ = fixture.flags.isEnabled(.right)
        fixture.serve(["right": RemoteFlagValue(true, variant: "on", reason: .targetingMatch)], unit: "user-9")
        _ = fixture.flags.isEnabled(.right)
        fixture.serve(["right": RemoteFlagValue(true, variant: "on", reason: .targetingMatch)], unit: nil)
        _ = fixture.flags.isEnabled(.right)
        #expect(fixture.exposures().map(\.unit) == ["anonymous-1", "user-9", nil])
    }

    @Test func sensitiveFlagsSendTheirVariantNeverTheirValue() throws {
        let fixture = Fixture()
        fixture.serve(["label": RemoteFlagValue(.string("secret-code"), variant: "b", reason: .split)], unit: "user-1")
        #expect(fixture.flags.value(TestConfig.label) == "secret-code")
        let exposure = try #require(fixture.exposures().first)
        #expect(exposure.flag == "label")
        #expect(exposure.variant == "b")
        #expect(exposure.value == nil)
    }

    @Test func readsByKeyRecordToo() {
        let fixture = Fixture()
        fixture.serve(["limit": RemoteFlagValue(.int(40), variant: "large", reason: .split)], unit: "user-1")
        #expect(fixture.flags.engine.value(forKey: "limit") == .int(40))
        #expect(fixture.flags.engine.value(forKey: "limit") == .int(40))
        let drained = fixture.recorder.drain()
        #expect(drained.events.count == 2)
        let exposedValue: FlagValue?? = drained.events.first.map { event -> FlagValue? in
            if case .exposure(let exposure) = event { exposure.value } else { nil }
        }
        #expect(exposedValue == .some(.int(40)))
        #expect(
            drained.events.last
                == .summary(
                    FlagEvaluationSummary(
                        flag: "limit", variant: "large", reason: .split, count: 2, start: Self.start, end: Self.start,
                        source: Self.source)))
    }

    @Test func summariesCountEveryReadByVariantAndReason() {
        let fixture = Fixture()
        for _ in 0..<3 { _ = fixture.flags.isEnabled(.left) }
        fixture.serve(["left": RemoteFlagValue(true, variant: "treatment", reason: .split)], unit: "user-1")
        for _ in 0..<4 { _ = fixture.flags.untracked.isEnabled(.left) }
        for _ in 0..<2 { _ = fixture.flags.value(TestConfig.limit) }
        let summaries = fixture.recorder.drain().events.compactMap { if case .summary(let summary) = $0 { summary } else { nil } }
        #expect(
            summaries.map { "\($0.flag)/\($0.variant ?? "-")/\($0.reason)=\($0.count)" } == [
                "left/-/DEFAULT=3", "left/treatment/SPLIT=4", "limit/-/DEFAULT=2",
            ])
        #expect(fixture.hook.summaries.withLock { $0.count } == 1)
        // Counted once: the next drain starts from zero.
        #expect(fixture.recorder.drain().events.isEmpty)
    }

    @Test func readsFromManyThreadsAreCountedWithoutLosingTheTotalWhenThreadsDoNotShareARow() async {
        // Each task reads a flag of its own, so a lost count (two threads in one row of
        // counters) could only come from the same flag: the totals must be exact per flag.
        let fixture = Fixture()
        let flags = fixture.flags
        await withTaskGroup(of: Void.self) { group in
            for flag in [TestFlag.left, .right, .base, .toggle] {
                group.addTask { for _ in 0..<10_000 { _ = flags.untracked.isEnabled(flag) } }
            }
        }
        let counts = fixture.recorder.drain().events.compactMap { if case .summary(let summary) = $0 { summary.count } else { nil } }
        #expect(counts == [10_000, 10_000, 10_000, 10_000])
    }

    @Test func trackedEventsKeepAllowedAttributesAndNameTheExposedVariants() throws {
        let fixture = Fixture(allowedAttributes: ["plan"])
        fixture.serve(["right": RemoteFlagValue(true, variant: "on", reason: .split)], unit: "user-1")
        _ = fixture.flags.isEnabled(.right)
        fixture.flags.track("checkout", value: 42.5, attributes: ["plan": "pro", "email": "a@example.com"])
        let drained = fixture.recorder.drain()
        let tracked = try #require(drained.events.compactMap { if case .tracked(let event) = $0 { event } else { nil } }.first)
        #expect(
            tracked
                == TrackedFlagEvent(
                    name: "checkout", value: 42.5, attributes: ["plan": "pro"], unit: "user-1", variants: ["right": "on"],
                    time: Self.start, source: Self.source))
        #expect(fixture.hook.tracked.withLock { $0 } == [tracked])
    }

    @Test func badTrackedEventsAreRefusedAndCounted() {
        let fixture = Fixture()
        fixture.flags.track("")
        fixture.flags.track(String(repeating: "x", count: FlagEventRecorder.maximumNameLength + 1))
        fixture.flags.track("ok", value: .infinity)
        // Reserved for session health's own events: an app's `$crash` would skew crash rates.
        fixture.flags.track("$crash")
        let drained = fixture.recorder.drain()
        #expect(drained.events.isEmpty)
        #expect(drained.dropped == FlagEventDropCounts(tracked: 4))
    }

    @Test func theBufferIsBoundedAndCountsWhatItDrops() {
        let fixture = Fixture(maximumBufferedEvents: 2)
        for index in 0..<5 { fixture.flags.track("event-\(index)") }
        let drained = fixture.recorder.drain()
        #expect(drained.events.count == 2)
        #expect(drained.dropped == FlagEventDropCounts(tracked: 3))
        #expect(fixture.recorder.drain().dropped.isEmpty)
    }

    @Test func theFlushThresholdWakesDeliveryOnce() {
        let fixture = Fixture(flushThreshold: 2)
        let wakes = Mutex(0)
        fixture.recorder.onFlushThreshold { wakes.withLock { $0 += 1 } }
        fixture.flags.track("a")
        #expect(wakes.withLock { $0 } == 0)
        fixture.flags.track("b")
        fixture.flags.track("c")
        #expect(wakes.withLock { $0 } == 1)
        _ = fixture.recorder.drain()
        fixture.flags.track("d")
        fixture.flags.track("e")
        #expect(wakes.withLock { $0 } == 2)
    }

    @Test func theMemoryOfExposuresIsBounded() {
        let recorder = FlagEventRecorder(.init(source: Self.source, maximumRememberedExposures: 2, now: { Self.start }))
        func expose(_ flag: String, unit: String) {
            recorder.recordExposure(
                flag: flag, variant: "on", value: .bool(true), isSensitive: false, reason: .split, revision: nil, unit: unit)
        }
        expose("a", unit: "u1")
        expose("b", unit: "u1")
        expose("a", unit: "u1")  // remembered: not recorded again
        expose("c", unit: "u2")  // full: the memory starts over with the current unit
        expose("a", unit: "u1")  // forgotten: recorded again
        let flags = recorder.drain().events.compactMap { if case .exposure(let exposure) = $0 { exposure.flag } else { nil } }
        #expect(flags == ["a", "b", "c", "a"])
        #expect(recorder.exposedVariants(of: "u1") == ["a": "on"])
    }

    @Test func theNonDefaultFlagsForCrashReportsNameVariantsAndHideSensitiveValues() {
        let flags = FeatureFlagManager<TestFlag>(FlagSetup(buildConfiguration: .release))
        flags.engine.receiveRemoteValues(
            RemoteFlagValues([
                "right": RemoteFlagValue(true, variant: "on", reason: .split),
                "label": RemoteFlagValue(.string("secret-code"), reason: .static),
                "limit": RemoteFlagValue(.int(25)),
            ]))
        // `toggle` defaults to true in code: at its default, not listed.
        #expect(flags.engine.nonDefaultFlags() == ["right": "on", "label": "<REDACTED>", "limit": "25"])
    }

    @Test func withoutARecorderNothingIsCountedOrExposed() {
        let recorder = FlagEventRecorder(.init(source: Self.source))
        let flags = FeatureFlagManager<TestFlag>(FlagSetup(buildConfiguration: .release, eventRecorder: recorder))
        _ = flags.isEnabled(.left)
        // Reconfigured without the recorder: the reads before count, those after do not.
        flags.configure(FlagSetup(buildConfiguration: .release))
        flags.engine.receiveRemoteValues(RemoteFlagValues(["right": RemoteFlagValue(true, variant: "on")], unit: "u"))
        _ = flags.isEnabled(.left)
        _ = flags.isEnabled(.right)
        flags.track("ignored")
        let events = recorder.drain().events
        #expect(events.count == 1)
        #expect(events.first.map { if case .summary(let summary) = $0 { summary.count } else { 0 } } == 1)
    }
}

/// A hook that keeps what it is given.
final class RecordingHook: FlagEventHook {
    let exposures = Mutex<[FlagExposure]>([])
    let tracked = Mutex<[TrackedFlagEvent]>([])
    let summaries = Mutex<[[FlagEvaluationSummary]]>([])

    func didExpose(_ exposure: FlagExposure) { exposures.withLock { $0.append(exposure) } }
    func didTrack(_ event: TrackedFlagEvent) { tracked.withLock { $0.append(event) } }
    func didSummarize(_ summaries: [FlagEvaluationSummary]) { self.summaries.withLock { $0.append(summaries) } }
}
