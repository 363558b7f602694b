import FeatureFlags
import FeatureFlagsEvents
import FeatureFlagsRemote
import Foundation
import RemoteTestSupport
import Testing

/// A day offline, then a relaunch, on the manual clock: a flush every minute, as delivery's loop
/// does, and an event recorded every ten.
extension FlagEventDeliveryTests {
    @Test func aDayOfflineAndARelaunchDeliverEverythingOnceAfterBoundedAttempts() async throws {
        let fixture = Fixture(random: 0.5)  // jitter factor 0.75
        let clock = fixture.clock
        let start = clock.now
        let day: TimeInterval = 86_400
        var recorded: [String] = []
        var attempts: [Date] = []

        let limits = FlagEventQueue.Limits(batchEvents: 50)

        // A day without a connection.
        do {
            let recorder = fixture.recorder()
            let transport = EventTransport(.connectionError)
            let delivery = fixture.delivery(recorder, transport: transport, limits: limits)
            for minute in 0..<Int(day / 60) {
                clock.advance(to: start.addingTimeInterval(TimeInterval(minute) * 60))
                if minute % 10 == 0 {
                    let name = "minute-\(minute)"
                    recorder.track(name, unit: "user-1")
                    recorded.append(name)
                }
                let before = transport.requests.count
                _ = await delivery.flush()
                if transport.requests.count > before { attempts.append(clock.now) }
                #expect(transport.requests.count - before <= 1, "one attempt per flush while offline")
                // Every event reached the file, attempt or not.
                #expect(await delivery.queuedEventCount == recorded.count)
            }
            // Every attempt retried the first batch; the later events wait behind it.
            #expect(Set(transport.batches.map(\.batchId)) == ["batch-1"])
        }
        // Attempts at 0, 1, 2, 3 and 4 minutes (the backoff, 7.5 s doubling, is shorter than the
        // interval), then after 120, 240, 480, 960 and 1,920 seconds, then every 2,700 (the
        // maximum, an hour, × 0.75): 40 in the day.
        let gaps = zip(attempts.dropFirst(), attempts).map { $0.timeIntervalSince($1) }
        #expect(Array(gaps.prefix(9)) == [60, 60, 60, 60, 120, 240, 480, 960, 1_920])
        #expect(gaps.dropFirst(9).allSatisfy { $0 == 2_700 })
        #expect(attempts.count == 40)
        let lastAttempt = try #require(attempts.last)

        // Relaunched at the end of the day; the server is back.
        clock.advance(to: start.addingTimeInterval(day))
        let recorder = fixture.recorder()
        let transport = EventTransport(.status(202))
        let delivery = fixture.delivery(recorder, transport: transport, limits: limits)
        recorder.track("after-the-relaunch", unit: "user-1")
        recorded.append("after-the-relaunch")
        var sentAt: Set<Date> = []
        for _ in 0..<100 {
            let before = transport.requests.count
            _ = await delivery.flush()
            if transport.requests.count > before { sentAt.insert(clock.now) }
            if await delivery.queuedEventCount == 0 { break }
            clock.advance(by: 60)
        }
        // The wait of the last failure survived the relaunch, and one flush sent everything:
        // 145 events in 4 batches.
        #expect(sentAt == [lastAttempt.addingTimeInterval(2_700)])
        #expect(transport.batches.map(\.eventCount) == [1, 50, 50, 44])
        let delivered = transport.batches.flatMap { $0.events.map(\.name) }
        #expect(delivered == recorded, "everything, once, in order")
        #expect(Set(transport.batches.map(\.batchId)).count == transport.batches.count)
        #expect(transport.batches.first?.batchId == "batch-1", "the batch tried all day kept its id")
        #expect(transport.batches.allSatisfy { $0.dropped == nil })
    }

    @Test func theLoopMovesEventsToTheFileEveryIntervalWhileItWaits() async throws {
        let fixture = Fixture()
        let clock = fixture.clock
        let start = clock.now
        let recorder = fixture.recorder()
        recorder.track("before", unit: nil)
        let transport = EventTransport(.status(503, headers: ["Retry-After": "3600"]))
        let delivery = fixture.delivery(recorder, transport: transport)
        await delivery.start()
        // The first flush failed and waits an hour; the loop sleeps an interval, not the hour.
        await clock.waitForSleeper { $0 > start.addingTimeInterval(30) }
        try #require(clock.sleepingUntil.filter { $0 > start.addingTimeInterval(30) } == [start.addingTimeInterval(60)])
        recorder.track("while-waiting", unit: nil)
        clock.advance(by: 60)
        await clock.waitForSleeper(until: start.addingTimeInterval(120))
        await delivery.stop()
        // Drained into the file (a relaunch finds it), and nothing sent before the hour.
        let pending = FlagEventQueue(url: fixture.queueFile).pendingEvents.map { event -> String in
            guard case .tracked(let tracked) = event else { return "\(event)" }
            return tracked.name
        }
        #expect(pending == ["while-waiting"])
        #expect(transport.requests.count == 1)
    }
}
