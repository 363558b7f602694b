import FeatureFlags
import FeatureFlagsEvents
import FeatureFlagsRemote
import Foundation
import RemoteTestSupport
import Testing

/// A hostile or broken server (500s, 429 with a huge `Retry-After`, no answer, 413 for
/// everything) costs bounded work and memory.
extension FlagEventDeliveryTests {
    /// `count` tracked events named `event-0`, `event-1`…
    static func track(_ count: Int, on recorder: FlagEventRecorder, prefix: String = "event") {
        for index in 0..<count { recorder.track("\(prefix)-\(index)", unit: nil) }
    }

    @Test(arguments: [202, 413, 400, 500])
    func aFlushSendsAtMostItsBatchesWhateverTheServerAnswers(status: Int) async {
        let fixture = Fixture()
        let recorder = fixture.recorder()
        Self.track(100, on: recorder)
        let transport = EventTransport(.status(status))
        // 50 batches of 2 wait; a flush sends at most 20 (a failure ends it at once).
        let delivery = fixture.delivery(recorder, transport: transport, limits: .init(batchEvents: 2))
        _ = await delivery.flush()
        #expect(transport.requests.count == (status == 500 ? 1 : 20))
    }

    @Test func aServerAnswering413ToEverythingDropsEventByEventThenBacksOff() async {
        let fixture = Fixture(random: 1)
        let recorder = fixture.recorder()
        Self.track(8, on: recorder)
        let transport = EventTransport(.status(413))
        let delivery = fixture.delivery(recorder, transport: transport)
        let start = fixture.clock.now
        // 8 events halve down to single events, each dropped: 15 requests. Then the batch of
        // drop counts alone, which cannot be split or dropped: a failure, with backoff.
        var result = await delivery.flush()
        #expect(transport.requests.count == 16)
        #expect(transport.batches.map(\.eventCount) == [8, 4, 2, 1, 1, 2, 1, 1, 4, 2, 1, 1, 2, 1, 1, 0])
        #expect(transport.batches.last?.dropped == FlagEventDropCounts(tracked: 8))
        #expect(result.retryAt == start.addingTimeInterval(10))
        // Flushes during the wait send nothing; after it, one request, and the wait doubles.
        for _ in 0..<5 { _ = await delivery.flush() }
        #expect(transport.requests.count == 16)
        fixture.clock.advance(by: 10)
        result = await delivery.flush()
        #expect(transport.requests.count == 17)
        #expect(result.retryAt == start.addingTimeInterval(30))
        // The same batch of drop counts each time, not a new one per attempt.
        #expect(transport.batches.suffix(2).map(\.batchId) == ["batch-16", "batch-16"])
    }

    @Test func aBatchRefusedAsMalformedKeepsTheDropCountsItCarried() async {
        let fixture = Fixture()
        let recorder = fixture.recorder()
        recorder.track("a", unit: nil)
        recorder.track("b", unit: nil)
        let transport = EventTransport(.status(413), .status(400), .status(202))
        let delivery = fixture.delivery(recorder, transport: transport, limits: .init(batchEvents: 1))
        // "a" is too large and dropped (413); the next batch carries that drop with "b" and is
        // refused (400): both drops go in the batch after, one of drop counts alone.
        _ = await delivery.flush()
        #expect(transport.batches.map { $0.events.map(\.name) } == [["a"], ["b"], []])
        #expect(transport.batches.map(\.dropped) == [nil, FlagEventDropCounts(tracked: 1), FlagEventDropCounts(tracked: 2)])
    }

    @Test(arguments: ["99999999999", "Fri, 01 Jan 2100 00:00:00 GMT", "2100-01-01T00:00:00Z"])
    func aHugeRetryAfterIsHeldToADayAcrossARelaunch(retryAfter: String) async {
        let fixture = Fixture()
        let start = fixture.clock.now
        do {
            let recorder = fixture.recorder()
            recorder.track("opened", unit: nil)
            let delivery = fixture.delivery(recorder, transport: EventTransport(.status(429, headers: ["Retry-After": retryAfter])))
            #expect(await delivery.flush().retryAt == start.addingTimeInterval(86_400))
        }
        // Relaunched: the wait still holds, and ends after a day.
        let transport = EventTransport(.status(202))
        let delivery = fixture.delivery(fixture.recorder(), transport: transport)
        fixture.clock.advance(by: 86_399)
        #expect(await delivery.flush().retryAt == start.addingTimeInterval(86_400))
        #expect(transport.requests.isEmpty)
        fixture.clock.advance(by: 1)
        #expect(await delivery.flush().accepted == ["batch-1"])
    }

    @Test func aWaitReadFromTheFileIsHeldToADayWhenTheClockWasSetBack() async {
        let fixture = Fixture()
        do {
            let recorder = fixture.recorder()
            recorder.track("opened", unit: nil)
            let delivery = fixture.delivery(recorder, transport: EventTransport(.status(429, headers: ["Retry-After": "86400"])))
            _ = await delivery.flush()
        }
        // Relaunched with the device's clock a year earlier: the wait written a day after the
        // old time is a year and a day away; it is held to a day from now.
        let clock = ManualClock(now: fixture.clock.now.addingTimeInterval(-365 * 86_400))
        let transport = EventTransport(.status(202))
        let delivery = FlagEventDelivery(
            configuration: .init(endpoint: Self.endpoint, queueFile: fixture.queueFile),
            recorder: fixture.recorder(), transport: transport, clock: clock, random: { 0 })
        #expect(await delivery.flush().retryAt == clock.now.addingTimeInterval(86_400))
        // Held in the file too: the day counts from the first flush, not from each.
        clock.advance(by: 43_200)
        #expect(await delivery.flush().retryAt == clock.now.addingTimeInterval(43_200))
        clock.advance(by: 43_200)
        #expect(await delivery.flush().accepted.count == 1)
        #expect(transport.requests.count == 1)
    }

    @Test func aServerThatNeverAnswersTimesOutOnTheClockAndIsRetriedWithBackoff() async throws {
        let fixture = Fixture(random: 1)
        let clock = fixture.clock
        let start = clock.now
        let recorder = fixture.recorder()
        recorder.track("opened", unit: nil)
        let transport = EventTransport(.hang, .hangIgnoringCancellation, .status(202))
        let delivery = fixture.delivery(recorder, transport: transport)
        defer { transport.releaseHangs() }

        // No answer: the request is cancelled after its timeout (30 s), a failure.
        let first = Task { await delivery.flush() }
        await clock.waitForSleeper(until: start.addingTimeInterval(30))
        clock.advance(by: 30)
        #expect(await first.value.retryAt == start.addingTimeInterval(30 + 10))
        #expect(transport.hanging == 0)

        // A connection that ignores cancellation holds the request, not delivery.
        clock.advance(to: start.addingTimeInterval(40))
        let second = Task { await delivery.flush() }
        await clock.waitForSleeper(until: start.addingTimeInterval(70))
        clock.advance(by: 30)
        #expect(await second.value.retryAt == start.addingTimeInterval(70 + 20))
        #expect(transport.hanging == 1)

        clock.advance(to: start.addingTimeInterval(90))
        #expect(await delivery.flush().accepted == ["batch-1"])
        #expect(transport.batches.map(\.batchId) == ["batch-1", "batch-1", "batch-1"])
    }

    @Test func theQueueStaysWithinItsBoundsWhileTheServerFailsAndDropsAreCountedOnce() async throws {
        let fixture = Fixture(random: 1)
        let clock = fixture.clock
        let limits = FlagEventQueue.Limits(maximumEvents: 60, maximumBytes: 12_000, batchEvents: 20)
        var tracked = 0
        var exposures = 0
        var reads = 0

        // Five hours of recording, an event, an exposure and three flag reads a minute, flushed
        // every minute, while the server answers 500.
        let recorder = fixture.recorder()
        let flags = FeatureFlagManager<TestFlag>(FlagSetup(buildConfiguration: .release, eventRecorder: recorder))
        let failing = EventTransport(.status(500))
        let delivery = fixture.delivery(recorder, transport: failing, limits: limits)
        var largestFile = 0
        for minute in 0..<300 {
            recorder.track("minute-\(minute)", unit: "user-1")
            tracked += 1
            recorder.recordExposure(
                flag: "new_checkout", variant: "treatment", value: .bool(true), isSensitive: false, reason: .split,
                revision: "1", unit: "user-\(minute)")
            exposures += 1
            for _ in 0..<3 { _ = flags.isEnabled(.offlineMode) }
            reads += 3
            _ = await delivery.flush()
            let queue = FlagEventQueue(url: fixture.queueFile, limits: limits)
            #expect(queue.eventCount <= 60)
            #expect(queue.byteCount <= 12_000)
            largestFile = max(largestFile, try Data(contentsOf: fixture.queueFile).count)
            clock.advance(by: 60)
        }
        // The file adds a little to the events' own JSON (each pending event's size, the
        // structure), so it stays within a small multiple of the limit.
        #expect(largestFile <= 2 * 12_000)
        // Backoff (10 s doubling, at most an hour; a flush a minute): attempts at 0, 1, 2, 3, 5,
        // 8, 14, 25 and 47 minutes, then every hour: 13 in five hours, however much was recorded.
        #expect(failing.requests.count == 13)

        // Relaunched; the server is back. What arrives and what is reported dropped add up to
        // what was recorded, and the reads, merged into summaries, are all counted.
        let transport = EventTransport(.status(202))
        let relaunched = fixture.delivery(fixture.recorder(), transport: transport, limits: limits)
        var flushes = 0
        while await relaunched.queuedEventCount > 0, flushes < 10 {
            clock.advance(by: 3_600)
            _ = await relaunched.flush()
            flushes += 1
        }
        #expect(await relaunched.queuedEventCount == 0)
        let batches = transport.batches
        let dropped = batches.compactMap(\.dropped).reduce(FlagEventDropCounts(), +)
        #expect(Set(batches.map(\.batchId)).count == batches.count)
        #expect(batches.reduce(0) { $0 + $1.events.count } + dropped.tracked == tracked)
        #expect(batches.reduce(0) { $0 + $1.exposures.count } + dropped.exposures == exposures)
        #expect(dropped.tracked > 0 && dropped.exposures > 0)
        #expect(dropped.summaries == 0)
        #expect(batches.flatMap(\.summaries).reduce(0) { $0 + $1.count } == reads)
    }
}
