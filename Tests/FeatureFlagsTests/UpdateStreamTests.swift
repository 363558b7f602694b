import ExampleFlags
@testable import FeatureFlags
import FeatureFlagsTesting
import Testing

struct UpdateStreamTests {
    @Test func snapshotStreamsStartWithTheCurrentValuesAndDeliverASecondChange() async {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .alpha)
        var updates = flags.updates().makeAsyncIterator()
        #expect(await next(&updates)?.isEnabled(.terminalRedesign) == false)
        flags.setOverride(.terminalRedesign, to: true)
        #expect(await next(&updates)?.isEnabled(.terminalRedesign) == true)
        flags.setOverride(.terminalRedesign, to: false)
        #expect(await next(&updates)?.isEnabled(.terminalRedesign) == false)
    }

    @Test func aSlowConsumerSeesTheNewestSnapshot() async {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .alpha)
        var updates = flags.updates().makeAsyncIterator()
        _ = await next(&updates)
        flags.setOverride(AppConfig.pageSize, to: 1)
        flags.setOverride(AppConfig.pageSize, to: 2)
        flags.setOverride(AppConfig.pageSize, to: 3)
        #expect(await next(&updates)?.value(AppConfig.pageSize) == 3)
    }

    @Test func boolStreamsDeliverOnlyChangesOfTheirFlag() async {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .alpha)
        var updates = flags.updates(of: .ideasDrawer).makeAsyncIterator()
        #expect(await next(&updates) == false)
        flags.setOverride(.terminalRedesign, to: true)  // another flag: nothing delivered
        flags.setOverride(.ideasDrawer, to: true)
        #expect(await next(&updates) == true)
        flags.setOverride(.ideasDrawer, to: false)
        #expect(await next(&updates) == false)
    }

    @Test func intStreamsDeliverASecondChange() async {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .release)
        var updates = flags.updates(of: AppConfig.pageSize).makeAsyncIterator()
        #expect(await next(&updates) == 50)
        flags.engine.receiveRemoteValues(RemoteFlagValues(values: ["page_size": 75]))
        #expect(await next(&updates) == 75)
        flags.engine.receiveRemoteValues(RemoteFlagValues(values: ["page_size": 80]))
        #expect(await next(&updates) == 80)
    }

    @Test func doubleStreamsDeliverASecondChange() async {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        var updates = flags.updates(of: AppConfig.streamFlushInterval).makeAsyncIterator()
        #expect(await next(&updates) == 0.05)
        flags.setOverride(AppConfig.streamFlushInterval, to: 0.1)
        #expect(await next(&updates) == 0.1)
        flags.setOverride(AppConfig.streamFlushInterval, to: 0.2)
        #expect(await next(&updates) == 0.2)
    }

    @Test func stringStreamsDeliverASecondChange() async {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        var updates = flags.updates(of: AppConfig.onboardingVariant).makeAsyncIterator()
        #expect(await next(&updates) == "classic")
        flags.setOverride(AppConfig.onboardingVariant, to: "guided")
        #expect(await next(&updates) == "guided")
        flags.setOverride(AppConfig.onboardingVariant, to: "video")
        #expect(await next(&updates) == "video")
    }

    @Test func enumStreamsDeliverASecondChange() async {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        var updates = flags.updates(of: AppConfig.composerStyle).makeAsyncIterator()
        #expect(await next(&updates) == .classic)
        flags.setOverride(AppConfig.composerStyle, to: .compact)
        #expect(await next(&updates) == .compact)
        flags.setOverride(AppConfig.composerStyle, to: .floating)
        #expect(await next(&updates) == .floating)
    }

    @Test func codableStreamsDeliverASecondChange() async {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        var updates = flags.updates(of: AppConfig.retryPolicy).makeAsyncIterator()
        #expect(await next(&updates) == RetryPolicy(attempts: 3, backoffSeconds: 1.5))
        flags.setOverride(AppConfig.retryPolicy, to: RetryPolicy(attempts: 1, backoffSeconds: 0))
        #expect(await next(&updates) == RetryPolicy(attempts: 1, backoffSeconds: 0))
        flags.setOverride(AppConfig.retryPolicy, to: RetryPolicy(attempts: 9, backoffSeconds: 4))
        #expect(await next(&updates) == RetryPolicy(attempts: 9, backoffSeconds: 4))
    }

    @Test func subscriptionsAreRemovedWhenTheConsumerStops() async {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        #expect(flags.engine.subscriberCount == 0)
        let task = Task {
            for await _ in flags.updates(of: .ideasDrawer) {}
        }
        var stream = flags.updates().makeAsyncIterator()
        _ = await next(&stream)
        task.cancel()
        await task.value
        #expect(flags.engine.subscriberCount == 1)
        do {
            var iterator = flags.updates(of: AppConfig.pageSize).makeAsyncIterator()
            _ = await next(&iterator)
            #expect(flags.engine.subscriberCount == 2)
        }
        #expect(flags.engine.subscriberCount == 1)
    }

    @Test func snapshotsDoNotChangeUnderTheReader() {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        let before = flags.snapshot
        flags.setOverride(.chatViewRedesign, to: false)
        flags.setOverride(AppConfig.pageSize, to: 99)
        let after = flags.snapshot
        #expect(before.isEnabled(.chatViewRedesign))
        #expect(before.value(AppConfig.pageSize) == 10)
        #expect(!after.isEnabled(.chatViewRedesign))
        #expect(after.value(AppConfig.pageSize) == 99)
        #expect(before != after)
        #expect(before.buildConfiguration == .debug)
        #expect(before.values["page_size"] == 10)
        #expect(before.enabledFlags.contains(.liquidGlassDesign))
    }

    @Test func theSnapshotIsObservable() {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        let changed = ChangeCounter()
        withObservationTracking {
            _ = flags.snapshot.isEnabled(.ideasDrawer)
        } onChange: {
            changed.increment()
        }
        flags.setOverride(.ideasDrawer, to: true)
        #expect(changed.count == 1)
    }
}

import Observation

final class ChangeCounter: Sendable {
    private let value = Locked(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

struct UpdateStreamQuietTests {
    @Test func snapshotStreamsStayQuietWhenNoValueChanges() {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        let sent = ChangeCounter()
        let stream = flags.engine.subscribe(index: nil) { _ in sent.increment() }
        #expect(sent.count == 1, "the current values first")
        // Same value as the build default: the winning layer changes, the value does not.
        flags.setOverride(.chatViewRedesign, to: true)
        #expect(sent.count == 1)
        #expect(flags.snapshot.details(.chatViewRedesign).layer == .override)
        flags.setOverride(.ideasDrawer, to: true)
        #expect(sent.count == 2)
        _ = stream
    }

    @Test func safePointValuesEqualToTheCurrentOnesClearAnOlderPendingSet() {
        let flags = FeatureFlagManager<AppFlag>(
            FlagSetup(buildConfiguration: .release, remoteProvider: TestRemoteProvider(), remoteApplyPolicy: .atSafePoint))
        flags.engine.receiveRemoteValues(RemoteFlagValues(values: ["ideas_drawer": true]))
        #expect(flags.engine.hasPendingRemoteValues)
        flags.engine.receiveRemoteValues(.empty)
        #expect(!flags.engine.hasPendingRemoteValues)
        flags.applyPendingRemoteValues()
        #expect(!flags.isEnabled(.ideasDrawer))
    }
}

struct LargeRegistryNotificationTests {
    /// 10,000 flags, a subscriber on each; a remote payload that changes ten of them reaches
    /// exactly those ten subscribers.
    @Test func onlySubscribersOfChangedFlagsAreNotified() throws {
        let count = 10_000
        let registry = try FlagRegistry((0..<count).map { FlagDefinition(key: "flag_\($0)", type: .integer, default: 0) })
        let manager = FlagEngine(
            registry: registry,
            setup: FlagSetup(buildConfiguration: .release, remoteProvider: TestRemoteProvider(), remoteApplyPolicy: .immediately))
        let notified = Locked<[Int]>([])
        let streams = (0..<count).map { index in
            manager.subscribe(index: index) { table in notified.withLock { $0.append(index) }; return table.values[index] }
        }
        #expect(notified.withLock { $0.count } == count, "each subscriber first gets the current value")
        notified.withLock { $0.removeAll() }

        var values = [String: FlagValue](uniqueKeysWithValues: (0..<count).map { ("flag_\($0)", .int(1)) })
        manager.receiveRemoteValues(RemoteFlagValues(values: values))
        #expect(notified.withLock { $0.count } == count, "every value changed from 0 to 1")
        notified.withLock { $0.removeAll() }

        let changed = [3, 99, 1_000, 2_500, 4_242, 5_000, 6_001, 7_777, 8_888, 9_999]
        for index in changed { values["flag_\(index)"] = .int(2) }
        manager.receiveRemoteValues(RemoteFlagValues(values: values))
        #expect(notified.withLock { $0.sorted() } == changed)
        #expect(manager.value(forKey: "flag_4242") == 2)
        _ = streams
    }

    @Test func keyedStreamsFollowOneFlag() async throws {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        var updates = flags.engine.updates(forKey: "page_size").makeAsyncIterator()
        #expect(await updates.next() == 10)
        flags.setOverride(AppConfig.pageSize, to: 30)
        #expect(await updates.next() == 30)
        var missing = flags.engine.updates(forKey: "nope").makeAsyncIterator()
        #expect(await missing.next() == nil)
    }
}
