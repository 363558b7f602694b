import FeatureFlags
import Testing

/// The non-default flags for crash reporters: worked out at publish, shown as variant names or
/// short values, never a sensitive value, and streamed when what they show changes.
struct FlagCrashReportSnapshotTests {
    static func flags() -> FeatureFlagManager<TestFlag> {
        FeatureFlagManager<TestFlag>(FlagSetup(buildConfiguration: .release, overridableConfigurations: [.release]))
    }

    @Test func beforeConfigurationNothingIsAwayFromItsDefault() {
        let flags = FeatureFlagManager<TestFlag>()
        #expect(flags.crashReportSnapshot == .empty)
        flags.configure(FlagSetup(buildConfiguration: .release))
        flags.engine.receiveRemoteValues(RemoteFlagValues(["right": RemoteFlagValue(true, variant: "on")]))
        #expect(flags.crashReportSnapshot.texts == ["right": "on"])
    }

    @Test func aRemoteValueAtItsDefaultIsListedByItsVariant() {
        let flags = Self.flags()
        // The control arm serves the code default: a crash still says which arm the user was in.
        flags.engine.receiveRemoteValues(
            RemoteFlagValues(["right": RemoteFlagValue(false, variant: "control", reason: .split)]))
        #expect(flags.crashReportSnapshot.texts == ["right": "control"])
    }

    @Test func overridesShowTheirValueAndSensitiveFlagsNeverDo() {
        let flags = Self.flags()
        flags.setOverride(TestConfig.limit, to: 42)
        flags.setOverride(TestConfig.label, to: "hunter2")
        flags.setOverride(.right, to: true)
        #expect(flags.crashReportSnapshot.texts == ["limit": "42", "label": "<REDACTED>", "right": "true"])
        flags.setOverride(TestConfig.label, to: nil)
        flags.setOverride(TestConfig.limit, to: 10)  // the code default: no longer listed
        #expect(flags.crashReportSnapshot.texts == ["right": "true"])
    }

    @Test func longValuesAreCutAtACharacterBoundary() {
        let flags = Self.flags()
        let long = String(repeating: "é", count: 200)  // 2 bytes each
        flags.engine.receiveRemoteValues(RemoteFlagValues(["right": RemoteFlagValue(true, variant: long)]))
        let shown = flags.crashReportSnapshot.texts["right"] ?? ""
        #expect(shown.utf8.count <= FlagCrashReportSnapshot.maximumTextLength)
        #expect(shown.hasSuffix("…"))
        #expect(shown.dropLast().allSatisfy { $0 == "é" })
        #expect(shown.count == 1 + (FlagCrashReportSnapshot.maximumTextLength - "…".utf8.count) / 2)
    }

    @Test func changesSayWhatToSetAndWhatToClear() {
        let before = FlagCrashReportSnapshot(texts: ["a": "on", "b": "blue", "c": "3"])
        let after = FlagCrashReportSnapshot(texts: ["a": "on", "b": "green", "d": "<REDACTED>"])
        let set: [String: String?] = ["b": "green", "c": nil, "d": "<REDACTED>"]
        #expect(after.changes(since: before) == set)
        #expect(after.changes(since: after).isEmpty)
        let all: [String: String?] = ["a": "on", "b": "green", "d": "<REDACTED>"]
        #expect(after.changes(since: .empty) == all)
    }

    @Test func updatesStartWithTheCurrentFlagsAndFollowEachChangeOfWhatTheyShow() async {
        let flags = Self.flags()
        flags.engine.receiveRemoteValues(RemoteFlagValues(["right": RemoteFlagValue(true, variant: "a")]))
        var updates = flags.crashReportUpdates().makeAsyncIterator()
        #expect(await next(&updates)?.texts == ["right": "a"])
        // The same value under another variant name: the value streams stay quiet, this one not.
        flags.engine.receiveRemoteValues(RemoteFlagValues(["right": RemoteFlagValue(true, variant: "b")]))
        #expect(await next(&updates)?.texts == ["right": "b"])
        // A publish that changes nothing shown sends nothing: the next element is the next change.
        flags.setOverride(.left, to: false)
        flags.setOverride(TestConfig.limit, to: 11)
        #expect(await next(&updates)?.texts == ["right": "b", "limit": "11"])
        flags.setOverride(TestConfig.limit, to: nil)
        #expect(await next(&updates)?.texts == ["right": "b"])
    }

    @Test func updateStreamsAreRemovedWhenTheConsumerStops() async {
        let flags = Self.flags()
        #expect(flags.engine.subscriberCount == 0)
        do {
            var iterator = flags.crashReportUpdates().makeAsyncIterator()
            _ = await next(&iterator)
            #expect(flags.engine.subscriberCount == 1)
        }
        #expect(flags.engine.subscriberCount == 0)
    }
}
