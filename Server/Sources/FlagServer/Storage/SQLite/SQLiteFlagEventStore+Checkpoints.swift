import Foundation
import Logging
import SQLiteNIO

/// The event database's checkpoints: copying its log back into the database beside the ingests,
/// and starting the log over before it outgrows its bounds.
extension SQLiteFlagEventStore {
    /// The size of the log's file (0 without one).
    func logFileBytes() -> Int {
        guard let logFile, let attributes = try? FileManager.default.attributesOfItem(atPath: logFile) else { return 0 }
        return (attributes[.size] as? Int) ?? 0
    }

    /// Returns once no checkpoint runs or is asked for (for tests, and ``close()``).
    func waitForCheckpoints() async {
        while let running = runningCheckpoint {
            await running.value
        }
    }

    /// Counts a write (an ingest, a deletion), and starts a checkpoint (or asks for one after the
    /// one running) every ``checkpointInterval`` writes, or at once when the log's file has
    /// reached ``truncateLogBytes``. Not awaited: the writer's caller does not wait for it.
    func wrote() {
        guard checkpointer != nil else { return }
        ingestsSinceCheckpoint += 1
        guard ingestsSinceCheckpoint >= checkpointInterval || logFileBytes() >= truncateLogBytes else { return }
        ingestsSinceCheckpoint = 0
        guard runningCheckpoint == nil else {
            checkpointRequested = true
            return
        }
        runningCheckpoint = Task { await self.checkpointWhileAsked() }
    }

    func checkpointWhileAsked() async {
        repeat {
            checkpointRequested = false
            await checkpoint()
        } while checkpointRequested
        runningCheckpoint = nil
    }

    /// Copies the log into the database on the checkpointer's connection (`PASSIVE`: ingests go on
    /// meanwhile), again while the ingests made during the last copy add more than
    /// ``handOverBytes`` (at most ``maximumPassiveCopies`` copies). Once the log outgrew its bounds
    /// (more than ``maximumLogBytes`` of frames, or a file of ``truncateLogBytes``), the last frames
    /// are copied with the writer held off for that copy only: the next ingest then finds the log
    /// whole copied and starts it over from its beginning, cutting its file back to the
    /// connection's `journal_size_limit`. Under ingests that follow one another closely, a log
    /// copied only beside them is never found whole copied and would grow without end (280 MiB
    /// seen); a checkpoint that waits for the write lock instead (`TRUNCATE`) is starved by them,
    /// and holds the lock for as long as another process reads. A failure is logged: the log keeps
    /// the data, and the next checkpoint copies it.
    func checkpoint() async {
        guard let checkpointer else { return }
        do {
            let pageSize = try await readPageBytes(on: checkpointer)
            var copy = try await Self.copyLog(on: checkpointer)
            var copies = 1
            while copy.left * pageSize > handOverBytes, copies < Self.maximumPassiveCopies {
                copy = try await Self.copyLog(on: checkpointer)
                copies += 1
            }
            guard copy.frames * pageSize > maximumLogBytes || logFileBytes() >= truncateLogBytes else { return }
            // On the checkpointer's connection, with no ingest running (they wait for `serial`):
            // the writer's connection holds no snapshot that would keep frames from being copied,
            // and no ingest that began before the copy ended appends to the log after it. Also
            // when the last copy left nothing: an ingest running beside it may have added frames
            // since, and the log is started over only by an ingest that finds it whole copied.
            try await run {
                _ = try await Self.copyLog(on: checkpointer)
            }
        } catch {
            logger.warning("checkpointing the event database failed; the log keeps the events until the next checkpoint: \(error)")
        }
    }

    /// ``pageBytes``, read on `connection` the first time.
    private func readPageBytes(on connection: SQLiteConnection) async throws -> Int {
        if let pageBytes { return pageBytes }
        let read = try await connection.query("PRAGMA page_size").first?.column("page_size")?.integer ?? 4096
        pageBytes = read
        return read
    }

    /// At most this many copies beside the ingests before the last one holds them off.
    static let maximumPassiveCopies = 4

    /// What is left in the log after a copy beside the ingests that is small enough to copy with
    /// the ingests held off: 1 MiB, a few milliseconds of copying.
    var handOverBytes: Int { min(1024 * 1024, truncateLogBytes / 4) }

    /// One `PASSIVE` checkpoint on `connection`: the frames in the log and those of them not yet
    /// copied into the database.
    private static func copyLog(on connection: SQLiteConnection) async throws -> (frames: Int, left: Int) {
        let row = try await connection.query("PRAGMA wal_checkpoint(PASSIVE)").first
        let frames = row?.column("log")?.integer ?? 0
        let copied = row?.column("checkpointed")?.integer ?? 0
        return (frames, max(0, frames - copied))
    }
}
