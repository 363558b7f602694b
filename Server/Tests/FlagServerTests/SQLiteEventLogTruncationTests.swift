@testable import FlagServer
import Foundation
import SQLiteNIO
import Testing

/// Under sustained ingest the event database's log is started over, and its file cut back, once
/// the file passes ``SQLiteFlagEventStore/truncateLogBytes``, checked after every write, instead
/// of growing until the periodic checkpoint (every ``SQLiteFlagEventStore/checkpointInterval``
/// writes); and a checkpoint never holds the ingests up while another connection reads.
struct SQLiteEventLogTruncationTests {
    typealias Fixtures = FlagEventStoreCompatibilityTests

    @Test
    func theLogsFileIsTruncatedOnceItPassesItsSizeWhateverTheCountOfIngests() async throws {
        let directory = TemporaryDirectory().path
        let truncateAt = 64 * 1024
        // No periodic checkpoint within the test: only the log's size can start one.
        let store = try await SQLiteFlagEventStore(
            path: directory + "/events.sqlite", checkpointInterval: 1_000_000, truncateLogBytes: truncateAt)
        func logBytes() throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: directory + "/events.sqlite-wal")[.size] as? Int) ?? 0
        }
        do {
            try await store.migrate()
            var largest = 0
            var truncations = 0
            var previous = try logBytes()
            for index in 0..<80 {
                let summaries = (0..<40).map { Fixtures.summary("flag-\(index)-\($0)", count: 1, start: Fixtures.t0) }
                #expect(try await store.ingest([Fixtures.batch("sustained-\(index)", summaries: summaries)]) == [true])
                await store.waitForCheckpoints()
                let bytes = try logBytes()
                if bytes < previous { truncations += 1 }
                largest = max(largest, bytes)
                previous = bytes
            }
            // Without the size check the file holds all 80 ingests (more than 512 KiB).
            #expect(truncations >= 2)
            #expect(largest < 2 * truncateAt, "the log's file reached \(largest) bytes")
            // Nothing is lost: every batch is in the database.
            let batches = try await store.connection.query("SELECT COUNT(*) AS n FROM flag_event_batches")
            #expect(batches.first?.column("n")?.integer == 80)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    /// Ingests from several callers at once, with no pause between them: the checkpoint copies
    /// the log beside them, then copies its last frames with them held off, so the next one
    /// starts the log over. (A `TRUNCATE` checkpoint on the checkpointer's connection waited for
    /// the write lock the ingests kept taking back, and the log grew with every ingest.)
    @Test
    func theLogStaysBoundedUnderIngestsThatFollowOneAnotherClosely() async throws {
        let directory = TemporaryDirectory().path
        let truncateAt = 64 * 1024
        let store = try await SQLiteFlagEventStore(
            path: directory + "/events.sqlite", checkpointInterval: 8, truncateLogBytes: truncateAt)
        do {
            try await store.migrate()
            // Each caller returns the largest size of the log's file it saw after its ingests.
            let peak = try await withThrowingTaskGroup(of: Int.self) { group in
                for caller in 0..<4 {
                    group.addTask {
                        var largest = 0
                        for index in 0..<60 {
                            let summaries = (0..<40).map { Fixtures.summary("flag-\(caller)-\(index)-\($0)", count: 1, start: Fixtures.t0) }
                            let stored = try await store.ingest([Fixtures.batch("c\(caller)-\(index)", summaries: summaries)])
                            #expect(stored == [true])
                            largest = max(largest, Self.logBytes(directory))
                        }
                        return largest
                    }
                }
                return try await group.reduce(0) { max($0, $1) }
            }
            await store.waitForCheckpoints()
            // The 240 ingests wrote about 6 MiB to the log.
            #expect(peak < 16 * truncateAt, "the log's file reached \(peak) bytes")
            let batches = try await store.connection.query("SELECT COUNT(*) AS n FROM flag_event_batches")
            #expect(batches.first?.column("n")?.integer == 240)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    /// Another connection holding a read transaction (another process reading the file) keeps the
    /// log from being copied past its snapshot; the ingests go on all the same, and once it ends
    /// the log is started over. (A `TRUNCATE` checkpoint held the write lock while it waited for
    /// the reader, up to the busy timeout, and the ingests behind it failed "database is locked".)
    @Test
    func ingestsGoOnWhileAnotherConnectionReadsAndTheLogIsCutBackAfter() async throws {
        let directory = TemporaryDirectory().path
        let truncateAt = 64 * 1024
        let store = try await SQLiteFlagEventStore(
            path: directory + "/events.sqlite", checkpointInterval: 2, truncateLogBytes: truncateAt)
        let reader = try await SQLiteConnection.open(storage: .file(path: directory + "/events.sqlite"))
        do {
            try await store.migrate()
            #expect(try await store.ingest([Fixtures.batch("before", summaries: [Fixtures.summary(count: 1, start: Fixtures.t0)])]) == [true])
            _ = try await reader.query("BEGIN")
            let seen = try await reader.query("SELECT COUNT(*) AS n FROM flag_event_batches")
            #expect(seen.first?.column("n")?.integer == 1)
            for index in 0..<30 {
                let summaries = (0..<40).map { Fixtures.summary("flag-\(index)-\($0)", count: 1, start: Fixtures.t0) }
                #expect(try await store.ingest([Fixtures.batch("while-\(index)", summaries: summaries)]) == [true])
            }
            await store.waitForCheckpoints()
            // The reader's snapshot kept the log from starting over: it holds the 30 ingests.
            #expect(Self.logBytes(directory) > 4 * truncateAt)
            _ = try await reader.query("COMMIT")
            // The next checkpoint copies the whole log; the ingest after it starts the log over.
            for index in 0..<3 {
                #expect(try await store.ingest([Fixtures.batch("after-\(index)", summaries: [Fixtures.summary(count: 1, start: Fixtures.t0)])]) == [true])
                await store.waitForCheckpoints()
            }
            #expect(Self.logBytes(directory) <= truncateAt / 2)
            let batches = try await store.connection.query("SELECT COUNT(*) AS n FROM flag_event_batches")
            #expect(batches.first?.column("n")?.integer == 34)
        } catch {
            try? await reader.close()
            await store.close()
            throw error
        }
        try await reader.close()
        await store.close()
    }

    private static func logBytes(_ directory: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: directory + "/events.sqlite-wal"))?[.size] as? Int) ?? 0
    }
}
