import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import HTTPTypes
import Logging
import NIOCore
import Synchronization
import Testing

/// The parts of ingestion without a server: the batch decoder, the group-commit queue, the
/// bulk body's advertisement, the `serve` options and retention.
struct EventIngestionPartsTests {
    static let now: Int64 = 1_900_000_000_000

    static func decode(_ text: String, options: EventIngestionOptions = EventIngestionOptions()) throws(APIError) -> EventBatch {
        try EventBatchDecoder.decode(Array(text.utf8), environment: "production", receivedAt: now, options: options)
    }

    /// The DocC article's example (FeatureFlagsEvents, "Events"), as the library writes it.
    static let example = #"""
        {"version": 1, "batchId": "6F9619FF-8B86-D011-B42D-00C04FC964FF",
         "source": {"appVersion": "4.2", "buildConfiguration": "release", "platform": "iOS"},
         "dropped": {"exposures": 0, "summaries": 0, "tracked": 12},
         "exposures": [{"flag": "new_checkout", "variant": "treatment", "value": true, "reason": "SPLIT",
                        "revision": "\"r42\"", "unit": "user-123", "time": 1900000000000}],
         "summaries": [{"flag": "new_checkout", "variant": "treatment", "reason": "SPLIT", "count": 18231,
                        "start": 1900000000000, "end": 1900000060000}],
         "events": [{"name": "checkout", "value": 42.5, "attributes": {"plan": "pro"}, "unit": "user-123",
                     "variants": {"new_checkout": "treatment"}, "time": 1900000030000}]}
        """#

    @Test
    func theArticlesExampleDecodesToTheBatchItDescribes() throws {
        let batch = try Self.decode(Self.example)
        #expect(batch == EventBatch(
            id: "6F9619FF-8B86-D011-B42D-00C04FC964FF", environment: "production", receivedAt: Self.now,
            source: .init(appVersion: "4.2", buildConfiguration: "release", platform: "iOS"),
            dropped: .init(exposures: 0, summaries: 0, tracked: 12),
            exposures: [.init(
                flag: "new_checkout", variant: "treatment", value: true, reason: "SPLIT", revision: "\"r42\"", unit: "user-123",
                time: 1_900_000_000_000)],
            summaries: [.init(flag: "new_checkout", variant: "treatment", reason: "SPLIT", count: 18231, start: 1_900_000_000_000, end: 1_900_000_060_000)],
            tracked: [.init(
                name: "checkout", value: 42.5, attributes: ["plan": "pro"], unit: "user-123", variants: ["new_checkout": "treatment"],
                time: 1_900_000_030_000)]))
    }

    @Test
    func optionalMembersDefaultAndUnknownMembersAreIgnored() throws {
        let batch = try Self.decode(#"""
            {"version": 1.0, "batchId": "b", "source": {}, "future": [1], "exposures": null,
             "summaries": [{"flag": "f", "reason": "DEFAULT", "count": 3, "start": 1900000000000, "end": 1900000000000, "extra": 1}],
             "events": [{"name": "e", "value": 3, "time": 1900000000000}]}
            """#)
        #expect(batch.source == .init(appVersion: "", buildConfiguration: "", platform: ""))
        #expect(batch.exposures.isEmpty)
        #expect(batch.summaries.first?.variant == "")
        #expect(batch.tracked.first?.value == 3)
        #expect(batch.tracked.first?.unit == nil)
    }

    @Test
    func everyProblemIsNamedUpToALimit() throws {
        let exposures = (0..<30).map { _ in #"{"flag": "", "reason": "SPLIT", "time": 1900000000000}"# }.joined(separator: ",")
        let error = try #require(throws: APIError.self) {
            try Self.decode(#"{"version": 1, "batchId": "b", "source": {}, "exposures": [\#(exposures)]}"#)
        }
        #expect(error.status == .unprocessableContent)
        #expect(error.problems.count == EventBatchDecoder.maximumProblems)
        #expect(error.problems.first?.field == "exposures[0].flag")
        #expect(error.message.hasSuffix("and 10 more"))
    }

    @Test
    func boundsAreInUTF8BytesAndTimesWithinTheServersWindow() throws {
        var options = EventIngestionOptions()
        options.maximumStringBytes = 4
        // "éé" is 2 characters and 4 bytes; "ééé" 6 bytes.
        #expect(try Self.decode(#"{"version": 1, "batchId": "b", "source": {"platform": "éé"}}"#, options: options).source.platform == "éé")
        let long = try #require(throws: APIError.self) {
            try Self.decode(#"{"version": 1, "batchId": "b", "source": {"platform": "ééé"}}"#, options: options)
        }
        #expect(long.problems.map(\.field) == ["source.platform"])
        for (time, accepted) in [
            (Self.now - 400 * 86_400_000, true), (Self.now - 400 * 86_400_000 - 1, false), (Self.now + 86_400_000, true),
            (Self.now + 86_400_001, false),
        ] {
            let body = #"{"version": 1, "batchId": "b", "source": {}, "events": [{"name": "e", "time": \#(time)}]}"#
            if !accepted {
                #expect(throws: APIError.self) { try Self.decode(body) }
            }
            if accepted { #expect(throws: Never.self) { try Self.decode(body) } }
        }
        // JSON text cannot hold an infinite number (the parser refuses `1e400`); a value can.
        let infinite: JSONValue = [
            "version": 1, "batchId": "b", "source": [:], "events": [["name": "e", "value": .double(.infinity), "time": 1_900_000_000_000]],
        ]
        let huge = try #require(throws: APIError.self) {
            try EventBatchDecoder.decode(infinite, environment: "production", receivedAt: Self.now, options: EventIngestionOptions())
        }
        #expect(huge.problems.map(\.field) == ["events[0].value"])
    }

    @Test
    func aGroupTakesTheWaitingBatchesUpToItsBounds() async throws {
        let store = RecordingEventStore()
        var options = EventIngestionOptions()
        options.maximumBatchesPerCommit = 2
        options.maximumEventsPerCommit = 5
        let queue = EventIngestionQueue(store: store, options: options)
        await store.hold()
        async let first = queue.commit(Self.batch("first", events: 1))
        await store.waitForCalls(1)
        // Queued in this order while the first is stored: a and b (the batch bound), c alone (the
        // event bound: 3 + 3 > 5), d alone, then e alone although it is larger than the bound.
        var waiting: [Task<EventIngestionQueue.Outcome?, Never>] = []
        var queued = 1
        for (id, events) in [("a", 1), ("b", 1), ("c", 3), ("d", 3), ("e", 6)] {
            waiting.append(Task { await queue.commit(Self.batch(id, events: events)) })
            queued += events
            while queue.load.events < queued { await Task.yield() }
        }
        await store.release()
        #expect(await first == .stored(new: true))
        for task in waiting { #expect(await task.value == .stored(new: true)) }
        #expect(await store.calls.map { $0.map(\.id) } == [["first"], ["a", "b"], ["c"], ["d"], ["e"]])
        #expect(queue.load.events == 0)
    }

    @Test
    func theQueueShedsByEventsAndByBytes() async throws {
        let store = RecordingEventStore()
        var options = EventIngestionOptions()
        options.maximumQueuedEvents = 2
        options.maximumQueuedBytes = 100
        options.healthReserve = 0
        let queue = EventIngestionQueue(store: store, options: options)
        let reservation = try #require(queue.reserve(bytes: 60))
        #expect(queue.reserve(bytes: 41) == nil)
        let second = try #require(queue.reserve(bytes: 40))
        queue.release(reservation)
        queue.release(second)
        #expect(queue.load.bytes == 0)
        // A batch larger than the whole bound goes when nothing waits; then the queue is full.
        let large = EventBatch(
            id: "large", environment: "production", receivedAt: Self.now, source: .init(appVersion: "", buildConfiguration: "", platform: ""),
            tracked: (0..<3).map { _ in .init(name: "e", unit: nil, time: Self.now) })
        await store.hold()
        async let stored = queue.commit(large)
        await store.waitForCalls(1)
        var small = large
        small.id = "small"
        small.tracked = [small.tracked[0]]
        #expect(await queue.commit(small) == nil)
        await store.release()
        #expect(await stored == .stored(new: true))
        #expect(await store.calls.count == 1)
    }

    /// A clock the test moves by hand.
    final class HandClock: Sendable {
        private let offset = Mutex(Duration.zero)
        private let origin = ContinuousClock.now

        var now: ContinuousClock.Instant { origin + offset.withLock { $0 } }

        func advance(by duration: Duration) {
            offset.withLock { $0 += duration }
        }
    }

    /// The share of time the ingest's work took, when a request asking now would be refused.
    static func refusedShare(_ queue: EventIngestionQueue) -> Double? {
        switch queue.admit(token: "t") {
        case .success(let reservation):
            queue.release(reservation)
            return nil
        case .failure(.share(let share)): return share
        case .failure(.bytes), .failure(.tokenBytes): return -1
        }
    }

    /// Processor time the test sets by hand.
    final class HandProcessorTime: Sendable {
        private let used = Mutex(Duration.zero)

        var total: Duration { used.withLock { $0 } }

        func spend(_ duration: Duration) {
            used.withLock { $0 += duration }
        }
    }

    /// A batch of `events` tracked events named `name`, in production.
    static func batch(_ id: String, events: Int = 1, name: String = "e") -> EventBatch {
        EventBatch(
            id: id, environment: "production", receivedAt: now, source: .init(appVersion: "", buildConfiguration: "", platform: ""),
            tracked: (0..<events).map { _ in .init(name: name, unit: nil, time: now) })
    }

    @Test
    func theQueueShedsWhileIngestingUsedMoreThanItsShareOfACoreOverTheLastWindow() async throws {
        var options = EventIngestionOptions()
        options.maximumIngestShare = 0.5
        options.ingestShareWindow = .seconds(1)
        let clock = HandClock()
        let cpu = HandProcessorTime()
        let queue = EventIngestionQueue(
            store: RecordingEventStore(), options: options, clock: { clock.now }, processorTime: { cpu.total })
        #expect(Self.refusedShare(queue) == nil)
        // 0.4 s of processor time over 0.5 s: 40 % of a core over a window, admitted.
        clock.advance(by: .milliseconds(500))
        cpu.spend(.milliseconds(400))
        #expect(Self.refusedShare(queue) == nil)
        // 0.2 s more: 60 %, refused however much room the queue has.
        clock.advance(by: .milliseconds(200))
        cpu.spend(.milliseconds(200))
        let share = try #require(Self.refusedShare(queue))
        #expect(abs(share - 0.6) < 1e-9)
        #expect(queue.load.bytes == 0)
        // A second later with nothing more used: the readings the 0.6 s were spent after are a
        // window old, and requests are admitted again.
        clock.advance(by: .seconds(1))
        #expect(Self.refusedShare(queue) == nil)
        #expect(queue.workShare < 0.5)
    }

    @Test
    func callersWaitingOnTheStoreAtOnceCountTheProcessorTimeTheyCauseNotTheirWaits() async throws {
        // Eight commits in flight for a whole second, each waiting (a disk's flush, the writer's
        // lock) while the store's threads use 0.1 s of processor time in all: 10 % of a core,
        // admitted. Counted as wall-clock time added up, it was 800 % and every caller was shed.
        let store = RecordingEventStore()
        var options = EventIngestionOptions()
        options.concurrentCommits = 8
        options.maximumBatchesPerCommit = 1
        options.ingestShareWindow = .seconds(1)
        let clock = HandClock()
        let cpu = HandProcessorTime()
        let queue = EventIngestionQueue(store: store, options: options, clock: { clock.now }, processorTime: { cpu.total })
        #expect(Self.refusedShare(queue) == nil)
        await store.hold()
        try await withThrowingTaskGroup(of: EventIngestionQueue.Outcome?.self) { group in
            for index in 0..<8 {
                group.addTask { await queue.commit(Self.batch("b\(index)")) }
            }
            await store.waitForCalls(8)
            clock.advance(by: .seconds(1))
            cpu.spend(.milliseconds(100))
            #expect(Self.refusedShare(queue) == nil)
            #expect(abs(queue.workShare - 0.1) < 1e-9)
            await store.release()
            for try await outcome in group {
                #expect(outcome == .stored(new: true))
            }
        }
    }

    @Test
    func sessionHealthIsAdmittedWhileTheShareShedsOtherBatches() throws {
        var options = EventIngestionOptions()
        options.maximumIngestShare = 0.5
        let clock = HandClock()
        let cpu = HandProcessorTime()
        let queue = EventIngestionQueue(
            store: RecordingEventStore(), options: options, clock: { clock.now }, processorTime: { cpu.total })
        _ = queue.workShare
        clock.advance(by: .seconds(1))
        cpu.spend(.milliseconds(900))
        #expect(Self.refusedShare(queue) != nil)
        let health = try queue.admit(token: "t", priority: .health).get()
        #expect(health.priority == .health)
        queue.release(health)
    }

    @Test
    func theHealthReserveOfBytesAndEventsIsLeftToSessionHealth() async throws {
        let store = RecordingEventStore()
        var options = EventIngestionOptions()
        options.maximumQueuedBytes = 1_000
        options.maximumQueuedEvents = 10
        options.healthReserve = 0.2
        let queue = EventIngestionQueue(store: store, options: options)
        // Normal requests hold at most 800 of the 1,000 bytes.
        var normal = try queue.admit(token: "a").get()
        #expect(queue.hold(801, in: &normal) == .bytes)
        #expect(queue.hold(800, in: &normal) == nil)
        #expect(throws: EventIngestionQueue.Refusal.bytes) { try queue.admit(token: "b").get() }
        // Health takes the rest.
        var health = try queue.admit(token: "b", priority: .health).get()
        #expect(queue.hold(201, in: &health) == .bytes)
        #expect(queue.hold(200, in: &health) == nil)
        queue.release(normal)
        queue.release(health)
        // Events: 8 of 10 for normal batches, the last 2 for health.
        await store.hold()
        async let held = queue.commit(Self.batch("held", events: 8, name: "checkout"))
        await store.waitForCalls(1)
        #expect(await queue.commit(Self.batch("shed", events: 1, name: "checkout")) == nil)
        async let crash = queue.commit(Self.batch("crash", events: 2, name: "$crash"), priority: .health)
        while queue.load.events < 10 { await Task.yield() }
        #expect(await queue.commit(Self.batch("full", events: 1, name: "$crash"), priority: .health) == nil)
        await store.release()
        #expect(await held == .stored(new: true))
        #expect(await crash == .stored(new: true))
    }

    @Test
    func aTokensNormalRequestsLeaveItsHealthReserveToItsHealthBatches() throws {
        var options = EventIngestionOptions()
        options.maximumQueuedBytes = 10_000
        options.maximumQueuedBytesPerToken = 1_000
        options.healthReserve = 0.2
        let queue = EventIngestionQueue(store: RecordingEventStore(), options: options)
        // A flood with the app's own token holds at most 800 of the token's 1,000 bytes…
        var flood = try queue.admit(token: "app").get()
        #expect(queue.hold(801, in: &flood) == .tokenBytes)
        #expect(queue.hold(800, in: &flood) == nil)
        #expect(throws: EventIngestionQueue.Refusal.tokenBytes) { try queue.admit(token: "app").get() }
        #expect(throws: EventIngestionQueue.Refusal.tokenBytes) { try queue.admit(token: "app", declared: 100).get() }
        // …and the app's crash reports, sent with the same token, take the rest.
        var health = try queue.admit(token: "app", priority: .health, declared: 200).get()
        #expect(queue.hold(201, in: &health) == .tokenBytes)
        #expect(queue.hold(200, in: &health) == nil)
        #expect(queue.bytes(of: "app") == 1_000)
        queue.release(flood)
        queue.release(health)
        #expect(queue.bytes(of: "app") == 0)
    }

    @Test
    func healthBatchesAreStoredBeforeOthersThatWaitedLonger() async throws {
        let store = RecordingEventStore()
        var options = EventIngestionOptions()
        options.concurrentCommits = 1
        options.maximumBatchesPerCommit = 2
        let queue = EventIngestionQueue(store: store, options: options)
        await store.hold()
        async let first = queue.commit(Self.batch("exposures-1", name: "checkout"))
        await store.waitForCalls(1)
        async let second = queue.commit(Self.batch("exposures-2", name: "checkout"))
        while queue.load.events < 2 { await Task.yield() }
        async let third = queue.commit(Self.batch("exposures-3", name: "checkout"))
        while queue.load.events < 3 { await Task.yield() }
        async let crash = queue.commit(Self.batch("crash", name: "$crash"), priority: .health)
        while queue.load.events < 4 { await Task.yield() }
        await store.release()
        #expect(await [first, second, third, crash] == Array(repeating: .stored(new: true), count: 4))
        // The crash, queued last, goes with the first group after the one in flight.
        #expect(await store.calls.map { $0.map(\.id) } == [["exposures-1"], ["crash", "exposures-2"], ["exposures-3"]])
    }

    @Test
    func aPauseInReadingsSpreadsTheTimeUsedOverThePauseNotOneWindow() {
        var share = IngestWorkShare(window: .seconds(1))
        let start = ContinuousClock.now
        #expect(share.share(at: start, cpu: .zero) == 0)
        // No reading for 10 s, in which 2 s of processor time were used: 20 % of a core, not 200 %.
        #expect(abs(share.share(at: start + .seconds(10), cpu: .seconds(2)) - 0.2) < 1e-9)
        // Readings every 0.1 s from then: once a window passed, only the window counts.
        var now = start + .seconds(10)
        var cpu = Duration.seconds(2)
        for _ in 0..<20 {
            now += .milliseconds(100)
            cpu += .milliseconds(30)
            _ = share.share(at: now, cpu: cpu)
        }
        #expect(abs(share.share(at: now, cpu: cpu) - 0.3) < 1e-9)
    }

    @Test
    func decodingCountsTheProcessorTimeOfTheThreadThatDecodes() {
        let queue = EventIngestionQueue(store: RecordingEventStore(), options: EventIngestionOptions())
        #expect(queue.workShare == 0)
        // Work that keeps the thread busy until its processor clock moves.
        let spent = queue.measuringWork { () -> Duration in
            let start = ThreadCPUTime.current()
            while ThreadCPUTime.current() - start < .milliseconds(20) {}
            return ThreadCPUTime.current() - start
        }
        #expect(spent >= .milliseconds(20))
        #expect(queue.workShare >= 0.02)
    }

    /// Threads' clocks readable from another thread are Linux's (`pthread_getcpuclockid`); the
    /// server's other platforms count decoding only.
    @Test(.enabled(if: ThreadCPUTime.clockOfCurrentThread() != nil))
    func theSQLiteStoreReportsTheProcessorTimeOfItsThreads() async throws {
        let store = try await SQLiteFlagEventStore(path: nil)
        try await store.migrate()
        let before = store.threadProcessorTime
        #expect(before > .zero)
        let batches = (0..<50).map { index in
            EventBatch(
                id: "cpu-\(index)", environment: "production", receivedAt: Self.now,
                source: .init(appVersion: "", buildConfiguration: "", platform: ""),
                tracked: (0..<200).map { _ in .init(name: "e", unit: "u\(index)", time: Self.now) })
        }
        _ = try await store.ingest(batches)
        #expect(store.threadProcessorTime > before)
        await store.close()
        #expect(store.threadProcessorTime == .zero)
    }

    @Test
    func theBulkBodyAdvertisesIngestionInKeyOrder() throws {
        let advertisement = EventIngestionRoutes.advertisement(EventIngestionOptions())
        let compiled = try #require(CompiledEnvironment(
            state: CompiledEnvironmentTests.state, environment: "production", ttlSeconds: 60, eventIngestion: advertisement))
        let now = Date()
        var expected = try #require(try CompiledEnvironmentTests.expectedBulk(["targetingKey": "u"], now: now).objectValue)
        expected["eventIngestion"] = advertisement
        #expect(String(buffer: OFREPBodies.bulk(context: ["targetingKey": "u"], in: compiled, now: now)) == JSONValue.object(expected).serialized())
        // A write recompiling one flag keeps it.
        let updated = try #require(CompiledEnvironment(
            updating: compiled, state: CompiledEnvironmentTests.state, flags: ["banner"], segmentsChanged: false, ttlSeconds: 60,
            eventIngestion: advertisement))
        #expect(updated.bulkBytes == compiled.bulkBytes)
        // With and without the member, the same context and revision have other ETags (a client's
        // cached answer without it is not confirmed by a server that advertises it); without it,
        // the ETag is what it always was.
        let plain = try #require(CompiledEnvironment(state: CompiledEnvironmentTests.state, environment: "production", ttlSeconds: 60))
        #expect(compiled.bulkETag(context: ["targetingKey": "u"]) != plain.bulkETag(context: ["targetingKey": "u"]))
        #expect(updated.bulkETag(context: ["targetingKey": "u"]) == compiled.bulkETag(context: ["targetingKey": "u"]))
        #expect(plain.bulkETag(context: [:]).hasPrefix("\"production-7-"))
    }

    @Test
    func serveKeepsEventsBesideTheFlagDatabaseUnlessToldOtherwise() throws {
        let sqlite = try ServerConfiguration(dataDirectory: "/var/lib/flags", environment: [:])
        let defaults = try EventStorageConfiguration(server: sqlite, environment: [:])
        #expect(defaults.location == .sqlite(path: "/var/lib/flags/flags-events.sqlite"))
        #expect(defaults.retention == EventRetention(rawDays: 30, hourlyDays: 14))
        #expect(try EventStorageConfiguration(events: false, server: sqlite, environment: [:]).location == .off)
        #expect(try EventStorageConfiguration(server: sqlite, environment: ["FLAG_SERVER_EVENTS": "false"]).location == .off)
        #expect(try EventStorageConfiguration(events: true, server: sqlite, environment: ["FLAG_SERVER_EVENTS": "false"]).location != .off)
        let elsewhere = try EventStorageConfiguration(
            eventsDatabase: "/fast/events.sqlite", retentionDays: 7, server: sqlite,
            environment: ["FLAG_SERVER_EVENTS_RETENTION_DAYS": "90", "FLAG_SERVER_EVENTS_HOURLY_RETENTION_DAYS": "3"])
        #expect(elsewhere.location == .sqlite(path: "/fast/events.sqlite"))
        #expect(elsewhere.retention == EventRetention(rawDays: 7, hourlyDays: 3))
        #expect(throws: ConfigurationError.self) { try EventStorageConfiguration(retentionDays: 0, server: sqlite, environment: [:]) }
        #expect(throws: ConfigurationError.self) {
            try EventStorageConfiguration(server: sqlite, environment: ["FLAG_SERVER_EVENTS_RETENTION_DAYS": "a month"])
        }
        #expect(throws: ConfigurationError.self) { try EventStorageConfiguration(server: sqlite, environment: ["FLAG_SERVER_EVENTS": "maybe"]) }

        let postgres = try ServerConfiguration(databaseURL: "postgres://flags:secret@db:5432/flags", environment: [:])
        let shared = try EventStorageConfiguration(server: postgres, environment: [:])
        #expect(shared.location == .postgres(try #require(postgres.postgres)))
        let refused = try #require(throws: ConfigurationError.self) {
            try EventStorageConfiguration(eventsDatabase: "/tmp/e.sqlite", server: postgres, environment: [:])
        }
        #expect(refused.description.contains("--events-database"))
        #expect(!refused.description.contains("secret"))
    }

    /// `flag-server serve` reads the event options, and refuses a bad one before it opens anything.
    @Test(.enabled(if: CommandLineTests.built))
    func serveRefusesABadEventOptionNamingIt() throws {
        let directory = TemporaryDirectory().path
        let (status, output) = try CommandLineTests.run(["serve", "--data-directory", directory, "--events-retention-days", "0"])
        #expect(status != 0)
        #expect(output.contains("--events-retention-days must be in 1…3650, got 0"), "\(output)")
        let (postgresStatus, postgresOutput) = try CommandLineTests.run([
            "serve", "--database-url", "postgres://flags:secret@127.0.0.1:1/flags", "--events-database", directory + "/e.sqlite",
        ])
        #expect(postgresStatus != 0)
        #expect(postgresOutput.contains("--events-database names a SQLite file"), "\(postgresOutput)")
        #expect(!postgresOutput.contains("secret"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/flags.sqlite"))
    }

    @Test
    func aSweepDeletesWhatIsOlderThanTheRetention() async throws {
        let store = RecordingEventStore()
        let retention = EventRetention(rawDays: 30, hourlyDays: 14)
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        #expect(await retention.sweep(store, now: now, logger: Logger(label: "test")) == 0)
        let deletions = await store.deletions
        #expect(deletions.count == 1)
        let expected: (raw: Int64, hourly: Int64) = (1_900_000_000_000 - 30 * 86_400_000, 1_900_000_000_000 - 14 * 86_400_000)
        #expect(deletions.map(\.rawBefore) == [expected.raw])
        #expect(deletions.map(\.hourlyBefore) == [expected.hourly])
        await store.fail(with: .unavailable("down"))
        #expect(await retention.sweep(store, now: now, logger: Logger(label: "test")) == nil)
    }
}
