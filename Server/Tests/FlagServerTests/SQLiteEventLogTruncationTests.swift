@testable import FlagServer
import Foundation
import SQLiteNIO
import Testing

/// Under sustained ingest the event database's log is truncated once its file passes
/// ``SQLiteFlagEventStore/truncateLogBytes``, checked after every write, instead of growing
/// until the periodic checkpoint (every ``SQLiteFlagEventStore/checkpointInterval`` writes).
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
}
