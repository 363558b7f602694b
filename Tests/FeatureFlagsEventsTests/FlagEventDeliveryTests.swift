import FeatureFlags
import FeatureFlagsEvents
import FeatureFlagsRemote
import Foundation
import RemoteTestSupport
import Synchronization
import Testing

/// Delivery of recorded events: batches, backoff, `Retry-After`, 413, relaunches.
struct FlagEventDeliveryTests {
    static let source = FlagEventSource(appVersion: "4.2", buildConfiguration: .release, platform: "TestOS")
    static let endpoint = URL(string: "https://flags.example.com/api/v1/events")!

    /// A recorder, a clock, a queue file and batch ids `batch-1`, `batch-2`… A second
    /// `delivery(...)` on the same fixture is the app relaunched: a new recorder and queue over
    /// the same file.
    final class Fixture: Sendable {
        let clock = ManualClock()
        let directory: URL
        let ids = BatchNumbers()
        let randomValue: Double

        init(random: Double = 0) {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("flag-events-\(UUID().uuidString)")
            randomValue = random
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        var queueFile: URL { directory.appendingPathComponent("events.json") }

        func recorder() -> FlagEventRecorder {
            let clock = self.clock
            return FlagEventRecorder(.init(source: FlagEventDeliveryTests.source, now: { clock.now }))
        }

        func delivery(
            _ recorder: FlagEventRecorder, transport: EventTransport, limits: FlagEventQueue.Limits = .init()
        ) -> FlagEventDelivery {
            let randomValue = self.randomValue
            let ids = self.ids
            return FlagEventDelivery(
                configuration: .init(
                    endpoint: FlagEventDeliveryTests.endpoint, headerFields: ["Authorization": "Bearer client-token"],
                    queueFile: queueFile, limits: limits, minimumBackoff: 10, maximumBackoff: 3_600),
                recorder: recorder, transport: transport, clock: clock, random: { randomValue },
                makeBatchID: { "batch-\(ids.next())" })
        }
    }

    @Test func aFlushSendsTheRecordedEventsInOneBatch() async throws {
        let fixture = Fixture()
        let recorder = fixture.recorder()
        recorder.recordExposure(
            flag: "new_checkout", variant: "treatment", value: .bool(true), isSensitive: false, reason: .split,
            revision: "12", unit: "user-1")
        recorder.track("purchase", value: 9.99, unit: "user-1")
        let transport = EventTransport(.status(202))
        let delivery = fixture.delivery(recorder, transport: transport)
        let result = await delivery.flush()
        #expect(result.accepted == ["batch-1"])
        #expect(!result.remaining)
        let request = try #require(transport.requests.first)
        #expect(request.method == .post)
        #expect(request.url == Self.endpoint)
        #expect(request.headerFields["Idempotency-Key"] == "batch-1")
        #expect(request.headerFields["Authorization"] == "Bearer client-token")
        let body = try #require(request.body.map { String(decoding: $0, as: UTF8.self) })
        let time = Int64(fixture.clock.now.timeIntervalSince1970 * 1000)
        #expect(
            body
                == #"{"batchId":"batch-1","events":[{"attributes":{},"name":"purchase","time":\#(time),"unit":"user-1","value":9.99,"variants":{"new_checkout":"treatment"}}],"exposures":[{"flag":"new_checkout","reason":"SPLIT","revision":"12","time":\#(time),"unit":"user-1","value":true,"variant":"treatment"}],"source":{"appVersion":"4.2","buildConfiguration":"release","platform":"TestOS"},"summaries":[],"version":1}"#
        )
        #expect(await delivery.queuedEventCount == 0)
        // Nothing new: nothing sent.
        _ = await delivery.flush()
        #expect(transport.requests.count == 1)
    }

    @Test func sessionHealthIsSentFirstWithTheHealthPriority() async throws {
        let fixture = Fixture()
        let recorder = fixture.recorder()
        recorder.track("purchase", value: 9.99, unit: "user-1")
        let transport = EventTransport(.status(202))
        let delivery = fixture.delivery(recorder, transport: transport)
        _ = await delivery.flush()
        let before = transport.requests.count
        recorder.track("search", unit: "user-1")
        let crash = TrackedFlagEvent(
            name: SessionHealthMonitor.crashEventName, value: nil, attributes: [:], unit: "user-1",
            variants: ["new_checkout": "treatment"], time: fixture.clock.now, source: Self.source)
        try await delivery.enqueue([.tracked(crash)], once: "session-1")
        _ = await delivery.flush()
        let requests = Array(transport.requests.dropFirst(before))
        #expect(requests.count == 2)
        #expect(requests.first?.headerFields["Flag-Event-Priority"] == "health")
        #expect(requests.first?.body.map { String(decoding: $0, as: UTF8.self) }?.contains("\"$crash\"") == true)
        #expect(requests.last?.headerFields["Flag-Event-Priority"] == nil)
        #expect(requests.last?.body.map { String(decoding: $0, as: UTF8.self) }?.contains("\"search\"") == true)
    }

    @Test func failuresBackOffExponentiallyWithJitterAndKeepTheBatchID() async {
        let fixture = Fixture(random: 0.5)  // jitter factor 0.75
        let recorder = fixture.recorder()
        recorder.track("opened", unit: nil)
        let transport = EventTransport(.status(500), .connectionError, .status(503), .status(200))
        let delivery = fixture.delivery(recorder, transport: transport)
        let start = fixture.clock.now

        var result = await delivery.flush()
        #expect(result.retryAt == start.addingTimeInterval(7.5))  // 10 s × 0.75
        fixture.clock.advance(by: 7)
        result = await delivery.flush()
        #expect(transport.requests.count == 1)  // still waiting
        fixture.clock.advance(by: 0.5)
        result = await delivery.flush()
        #expect(result.retryAt == start.addingTimeInterval(7.5 + 15))  // 20 s × 0.75
        fixture.clock.advance(by: 15)
        result = await delivery.flush()
        #expect(result.retryAt == start.addingTimeInterval(22.5 + 30))  // 40 s × 0.75
        fixture.clock.advance(by: 30)
        result = await delivery.flush()
        #expect(result.accepted == ["batch-1"])
        #expect(transport.batches.map(\.batchId) == ["batch-1", "batch-1", "batch-1", "batch-1"])
        // Success starts the backoff over.
        recorder.track("opened-again", unit: nil)
        let again = EventTransport(.status(500))
        let next = fixture.delivery(recorder, transport: again)
        #expect(await next.flush().retryAt == fixture.clock.now.addingTimeInterval(7.5))
    }

    @Test func theBackoffStopsGrowingAtItsMaximum() async {
        let fixture = Fixture(random: 1)
        let recorder = fixture.recorder()
        recorder.track("opened", unit: nil)
        let delivery = fixture.delivery(recorder, transport: EventTransport(.status(500)))
        var waits: [TimeInterval] = []
        for _ in 0..<12 {
            let before = fixture.clock.now
            guard let retryAt = await delivery.flush().retryAt else { break }
            waits.append(retryAt.timeIntervalSince(before))
            fixture.clock.advance(to: retryAt)
        }
        #expect(waits == [10, 20, 40, 80, 160, 320, 640, 1_280, 2_560, 3_600, 3_600, 3_600])
    }

    @Test func retryAfterIsHonouredAndHeldToADay() async {
        let fixture = Fixture()
        let recorder = fixture.recorder()
        recorder.track("opened", unit: nil)
        let transport = EventTransport(.status(429, headers: ["Retry-After": "120"]), .status(503, headers: ["Retry-After": "99999999999"]), .status(200))
        let delivery = fixture.delivery(recorder, transport: transport)
        let start = fixture.clock.now
        #expect(await delivery.flush().retryAt == start.addingTimeInterval(120))
        fixture.clock.advance(by: 119)
        _ = await delivery.flush()
        #expect(transport.requests.count == 1)
        fixture.clock.advance(by: 1)
        #expect(await delivery.flush().retryAt == start.addingTimeInterval(120 + 86_400))
        fixture.clock.advance(by: 86_400)
        #expect(await delivery.flush().accepted == ["batch-1"])
        #expect(transport.requests.count == 3)
    }

    @Test func aBatchTooLargeIsSplitInHalvesWithNewIDs() async {
        let fixture = Fixture()
        let recorder = fixture.recorder()
        for index in 0..<5 { recorder.track("event-\(index)", unit: nil) }
        let transport = EventTransport(.status(413), .status(413), .status(200))
        let delivery = fixture.delivery(recorder, transport: transport)
        let result = await delivery.flush()
        // 5 → 2 + 3; the 2 → 1 + 1.
        #expect(transport.batches.map(\.batchId) == ["batch-1", "batch-2", "batch-4", "batch-5", "batch-3"])
        #expect(transport.batches.map { $0.events.map(\.name) } == [
            ["event-0", "event-1", "event-2", "event-3", "event-4"], ["event-0", "event-1"], ["event-0"], ["event-1"],
            ["event-2", "event-3", "event-4"],
        ])
        #expect(result.accepted == ["batch-4", "batch-5", "batch-3"])
    }

    @Test func aSingleEventTooLargeIsDroppedAndReported() async {
        let fixture = Fixture()
        let recorder = fixture.recorder()
        recorder.track("huge", unit: nil)
        let transport = EventTransport(.status(413), .status(200))
        let delivery = fixture.delivery(recorder, transport: transport)
        _ = await delivery.flush()
        #expect(transport.batches.map(\.batchId) == ["batch-1", "batch-2"])
        #expect(transport.batches.last?.dropped == FlagEventDropCounts(tracked: 1))
        #expect(transport.batches.last?.eventCount == 0)
    }

    @Test func aMalformedBatchIsDroppedAndCountedNotRetried() async {
        let fixture = Fixture()
        let recorder = fixture.recorder()
        recorder.track("a", unit: nil)
        recorder.track("b", unit: nil)
        let transport = EventTransport(.status(400), .status(200))
        let delivery = fixture.delivery(recorder, transport: transport)
        _ = await delivery.flush()
        #expect(transport.batches.map(\.batchId) == ["batch-1", "batch-2"])
        #expect(transport.batches.last?.dropped == FlagEventDropCounts(tracked: 2))
    }

    @Test func aRelaunchSendsTheSameBatchAfterTheSameWait() async throws {
        let fixture = Fixture()
        do {
            let recorder = fixture.recorder()
            recorder.track("before-the-crash", unit: "user-1")
            let delivery = fixture.delivery(recorder, transport: EventTransport(.connectionError))
            #expect(await delivery.flush().retryAt == fixture.clock.now.addingTimeInterval(5))
        }
        // Relaunched: a new recorder and a new queue over the same file.
        let transport = EventTransport(.status(200))
        let recorder = fixture.recorder()
        let delivery = fixture.delivery(recorder, transport: transport)
        recorder.track("after-the-relaunch", unit: "user-1")
        _ = await delivery.flush()
        #expect(transport.requests.isEmpty)  // the backoff survived the relaunch
        fixture.clock.advance(by: 5)
        let result = await delivery.flush()
        #expect(transport.batches.map(\.batchId) == ["batch-1", "batch-2"])
        #expect(transport.batches.map { $0.events.map(\.name) } == [["before-the-crash"], ["after-the-relaunch"]])
        #expect(result.accepted == ["batch-1", "batch-2"])
        // Accepted batches are gone from the file: a third launch sends nothing.
        let third = EventTransport(.status(200))
        _ = await fixture.delivery(fixture.recorder(), transport: third).flush()
        #expect(third.requests.isEmpty)
    }

    @Test func theLoopFlushesAtTheThresholdAndOnTheInterval() async throws {
        let fixture = Fixture()
        let clock = fixture.clock
        let recorder = FlagEventRecorder(.init(source: Self.source, flushThreshold: 3, now: { clock.now }))
        let transport = EventTransport(.status(200))
        let delivery = fixture.delivery(recorder, transport: transport)
        let start = clock.now
        await delivery.start()
        // The first flush found nothing; the loop waits for the interval.
        await clock.waitForSleeper(until: start.addingTimeInterval(60))
        #expect(transport.requests.isEmpty)
        var requests = transport.requestStream.makeAsyncIterator()
        for name in ["a", "b", "c"] { recorder.track(name, unit: nil) }
        // The threshold wakes the loop before the interval is up.
        let early = try #require(await requests.next())
        #expect(try JSONDecoder().decode(FlagEventBatch.self, from: early.body ?? Data()).events.map(\.name) == ["a", "b", "c"])
        #expect(clock.now == start)
        recorder.track("d", unit: nil)
        await clock.waitForSleeper(until: start.addingTimeInterval(60))
        clock.advance(by: 60)
        let onInterval = try #require(await requests.next())
        #expect(try JSONDecoder().decode(FlagEventBatch.self, from: onInterval.body ?? Data()).events.map(\.name) == ["d"])
        await delivery.stop()
    }

    @Test func flagsRecordAndDeliveryDrains() async throws {
        let fixture = Fixture()
        let recorder = fixture.recorder()
        let flags = FeatureFlagManager<TestFlag>(FlagSetup(buildConfiguration: .release, eventRecorder: recorder))
        flags.engine.receiveRemoteValues(
            RemoteFlagValues(
                ["offline_mode": RemoteFlagValue(true, variant: "on", reason: .targetingMatch)], source: "ofrep",
                unit: "user-1", revision: "3"))
        for _ in 0..<3 { _ = flags.isEnabled(.offlineMode) }
        flags.track("sync", attributes: [:])
        let transport = EventTransport(.status(200))
        _ = await fixture.delivery(recorder, transport: transport).flush()
        let batch = try #require(transport.batches.first)
        #expect(batch.exposures.map { "\($0.flag)=\($0.variant ?? "")@\($0.unit ?? "")#\($0.revision ?? "")" } == ["offline_mode=on@user-1#3"])
        #expect(batch.summaries.map { "\($0.flag)=\($0.variant ?? "") \($0.reason) ×\($0.count)" } == ["offline_mode=on TARGETING_MATCH ×3"])
        #expect(batch.events.map(\.variants) == [["offline_mode": "on"]])
    }
}

/// Numbers 1, 2, 3… from any thread.
final class BatchNumbers: Sendable {
    private let value = Mutex(0)

    func next() -> Int {
        value.withLock { value in
            value += 1
            return value
        }
    }
}
