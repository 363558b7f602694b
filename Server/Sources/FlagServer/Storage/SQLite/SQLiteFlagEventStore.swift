import FlagEvaluation
import FlagServerModel
import Foundation
public import Logging
import NIOCore
import NIOPosix
import SQLiteNIO
import Synchronization

/// The embedded event store: a SQLite file of its own, beside the flag store's, with a connection
/// of its own, so that ingesting events never waits for SQLite's write lock behind a flag write
/// (nor a flag write behind an ingest).
///
/// The database runs in WAL mode with `synchronous=FULL`, like ``SQLiteFlagStore``: when
/// ``ingest(_:)`` returns, its batches survive a crash of the process or the machine. One ingest
/// is one transaction of a few multi-row statements: the batch ids (a repeated id is recorded
/// nowhere), the raw exposures and tracked events, then the rollups, each aggregated in memory
/// first so that a call of many batches adds to each rollup row once.
///
/// ```swift
/// let events = try await SQLiteFlagEventStore(path: "data/events.sqlite")
/// try await events.migrate()
/// ```
public actor SQLiteFlagEventStore: FlagEventStore {
    let connection: SQLiteConnection
    /// A second connection to the same file that copies the log back into the database
    /// (``checkpoint()``) while ingests go on; `nil` for an in-memory database, which has no log.
    let checkpointer: SQLiteConnection?
    /// The threads the connections run on, one each, shut down by ``close()``.
    private let threadPools: [NIOThreadPool]
    /// The processor-time clocks of those threads, emptied by ``close()`` before they end (a
    /// clock names its thread by an id the kernel reuses).
    private let threadClocks: Mutex<[ThreadCPUTime.Clock]>
    /// One operation at a time on the connection: the actor is reentrant at every `await`.
    private let serial = AsyncLock()
    /// Ingests between two checkpoints.
    let checkpointInterval: Int
    var ingestsSinceCheckpoint = 0
    /// The checkpoint running, if one is; ``checkpointRequested`` asks for another after it.
    var runningCheckpoint: Task<Void, Never>?
    var checkpointRequested = false
    /// The database's page size (a log frame holds one page), read at the first checkpoint: it is
    /// fixed once the database has its tables, which a checkpoint finds made.
    var pageBytes: Int?
    let logger: Logger

    /// The log's size (its frames) past which a checkpoint ends by holding the ingests off for its
    /// last copy, so that the next one starts the log over: ingests that follow one another so
    /// closely that a checkpoint never finds the log whole copied would otherwise let it grow
    /// without end. The log's file is cut back to at most this size when the log starts over
    /// (``restartedLogBytes``): a file grown in a burst does not keep its size for the life of the
    /// database.
    let maximumLogBytes: Int

    /// The default of ``maximumLogBytes``: 64 MiB.
    public static let defaultMaximumLogBytes = 64 * 1024 * 1024

    /// The log file's size past which a checkpoint starts at once (whatever the count of ingests
    /// since the last) and ends by having the log started over (``checkpoint()``). Under sustained
    /// ingest the periodic checkpoint alone lets the file reach ``maximumLogBytes`` plus all
    /// that ingests add while one checkpoint runs (147 MB seen); checked after every write, the
    /// file stays near this size plus what one checkpoint lets in.
    let truncateLogBytes: Int

    /// The default of ``truncateLogBytes``: 16 MiB.
    public static let defaultTruncateLogBytes = 16 * 1024 * 1024

    /// The size the log's file is cut back to when the writer starts the log over (SQLite's
    /// `journal_size_limit`): half of ``truncateLogBytes``, or ``maximumLogBytes`` if smaller.
    var restartedLogBytes: Int { Self.restartedLogBytes(maximumLogBytes: maximumLogBytes, truncateLogBytes: truncateLogBytes) }

    private static func restartedLogBytes(maximumLogBytes: Int, truncateLogBytes: Int) -> Int {
        max(1, min(maximumLogBytes, truncateLogBytes / 2))
    }

    /// The log's file (`<path>-wal`); `nil` for an in-memory database.
    let logFile: String?

    /// Opens (creating if needed) the database at `path`; `nil` opens a private in-memory database.
    ///
    /// - Parameters:
    ///   - threadNiceness: the nice value of the threads SQLite's calls run on (Linux; 0: the
    ///     process's priority). A server gives them a higher one than delivery's threads
    ///     (``EventIngestionOptions/ingestThreadNiceness``).
    ///   - checkpointInterval: ingests between two checkpoints, which copy the log into the database
    ///     on a connection of their own while ingests go on, instead of in the commit that fills
    ///     the log (SQLite's automatic checkpoint), whose caller would wait for it.
    ///   - maximumLogBytes: the log's bound (``maximumLogBytes``).
    ///   - truncateLogBytes: the log file's size that starts a checkpoint at once and has it
    ///     truncate the log (``truncateLogBytes``).
    public init(
        path: String?, threadNiceness: Int32 = 0, checkpointInterval: Int = 64,
        maximumLogBytes: Int = SQLiteFlagEventStore.defaultMaximumLogBytes,
        truncateLogBytes: Int = SQLiteFlagEventStore.defaultTruncateLogBytes,
        logger: Logger = Logger(label: "flag-server.sqlite-events")
    ) async throws(StoreError) {
        self.logger = logger
        self.checkpointInterval = max(1, checkpointInterval)
        self.maximumLogBytes = max(1, maximumLogBytes)
        self.truncateLogBytes = max(1, truncateLogBytes)
        logFile = path.map { $0 + "-wal" }
        let restartedLogBytes = Self.restartedLogBytes(maximumLogBytes: self.maximumLogBytes, truncateLogBytes: self.truncateLogBytes)
        // The connections' calls run on threads of the store's own, not NIO's shared pool: an
        // ingest's work then neither waits behind other blocking work nor (at a higher nice value)
        // takes the cores from the threads serving delivery.
        let writerThread = await IngestThreads.singleThread(niceness: threadNiceness)
        let checkpointThread = path == nil ? nil : await IngestThreads.singleThread(niceness: threadNiceness)
        threadPools = [writerThread] + (checkpointThread.map { [$0] } ?? [])
        var clocks: [ThreadCPUTime.Clock] = []
        for pool in threadPools {
            if let clock = try? await pool.runIfActive({ ThreadCPUTime.clockOfCurrentThread() }) {
                clocks.append(clock)
            }
        }
        threadClocks = Mutex(clocks)
        let storage: SQLiteConnection.Storage = path.map { .file(path: $0) } ?? .memory
        let eventLoop = MultiThreadedEventLoopGroup.singleton.any()
        var opened: [SQLiteConnection] = []
        do {
            let connection = try await SQLiteConnection.open(storage: storage, threadPool: writerThread, logger: logger, on: eventLoop)
            opened.append(connection)
            // Pages of 1 KB rather than SQLite's 4: an ingest changes pages scattered over its
            // B-trees (an exposure index page per flag it names, a few per rollup bucket) and a
            // commit writes every page it changed to the log whole; smaller pages log (and
            // checkpoint) fewer bytes for the same rows. Only takes effect in a new database (set
            // before the first table); one created earlier keeps its page size.
            _ = try await connection.query("PRAGMA page_size=1024")
            if path != nil {
                _ = try await connection.query("PRAGMA journal_mode=WAL")
            }
            _ = try await connection.query("PRAGMA synchronous=FULL")
            // Another process writing the same file (a second replica on one laptop) holds the
            // write lock for one ingest at a time, but SQLite's busy handler is not fair: a writer
            // that sleeps while the other commits ingest after ingest can wait for several of
            // them. 5 s was not enough on a loaded CI machine; 30 s keeps such a wait from
            // failing an ingest, whose callers answer 503 only once it does.
            _ = try await connection.query("PRAGMA busy_timeout=30000")
            // An ingest touches rollup and unit pages all over their tables: a page cache that
            // holds them (bounded: 64 MB) is what keeps it from spilling and re-reading pages
            // mid-transaction; statement journals (multi-row upserts) stay in memory.
            _ = try await connection.query("PRAGMA cache_size=-65536")
            _ = try await connection.query("PRAGMA temp_store=MEMORY")
            // No checkpoint in a commit: ``checkpoint()`` runs them beside the ingests.
            _ = try await connection.query("PRAGMA wal_autocheckpoint=0")
            // The log's file is cut back to this size when the writer starts the log over: below
            // the size that starts a checkpoint at once, so that a log started over does not.
            _ = try await connection.query("PRAGMA journal_size_limit=\(restartedLogBytes)")
            self.connection = connection
            if let checkpointThread {
                let checkpointer = try await SQLiteConnection.open(
                    storage: storage, threadPool: checkpointThread, logger: logger, on: eventLoop)
                opened.append(checkpointer)
                _ = try await checkpointer.query("PRAGMA synchronous=FULL")
                _ = try await checkpointer.query("PRAGMA busy_timeout=30000")
                _ = try await checkpointer.query("PRAGMA wal_autocheckpoint=0")
                _ = try await checkpointer.query("PRAGMA journal_size_limit=\(restartedLogBytes)")
                self.checkpointer = checkpointer
            } else {
                checkpointer = nil
            }
        } catch {
            for connection in opened { try? await connection.close() }
            for pool in [writerThread] + (checkpointThread.map { [$0] } ?? []) { try? await pool.shutdownGracefully() }
            throw .database("cannot open \(path ?? ":memory:"): \(error)")
        }
    }

    /// The processor time the store's two threads (the writer's, the checkpointer's) used so far;
    /// zero once closed.
    public nonisolated var threadProcessorTime: Duration {
        threadClocks.withLock { clocks in
            clocks.reduce(.zero) { $0 + (ThreadCPUTime.read($1) ?? .zero) }
        }
    }

    /// Waits for a running checkpoint, then closes both connections and stops counting their threads' time.
    public func close() async {
        await waitForCheckpoints()
        try? await checkpointer?.close()
        try? await connection.close()
        threadClocks.withLock { $0.removeAll() }
        for pool in threadPools { try? await pool.shutdownGracefully() }
    }

    /// Applies the event migrations newer than the file's `flag_event_migrations`, each in a transaction of its own.
    public func migrate() async throws(StoreError) {
        try await run {
            _ = try await connection.query(
                "CREATE TABLE IF NOT EXISTS flag_event_migrations (version INTEGER PRIMARY KEY NOT NULL, applied_at REAL NOT NULL)")
            let rows = try await connection.query("SELECT MAX(version) AS version FROM flag_event_migrations")
            let current = rows.first?.column("version")?.integer ?? 0
            for migration in SQLiteEventMigrations.all where migration.version > current {
                try await transaction {
                    for statement in migration.statements {
                        _ = try await connection.query(statement)
                    }
                    _ = try await connection.query(
                        "INSERT INTO flag_event_migrations (version, applied_at) VALUES (?, ?)",
                        [.integer(migration.version), .float(Date().timeIntervalSince1970)])
                }
            }
        }
    }

    /// Stores `batches` in one transaction (see the type's notes) and counts the write towards the next
    /// checkpoint; returns for each batch whether it was stored (false: a repeated id).
    public func ingest(_ batches: [EventBatch]) async throws(StoreError) -> [Bool] {
        guard !batches.isEmpty else { return [] }
        let stored = try await run {
            try await transaction {
                var stored = Array(repeating: false, count: batches.count)
                let candidates = FlagEventRows.candidates(batches)
                // The ids recorded now; those recorded before are not returned, and not stored again.
                var recorded: [FlagEventRows.BatchKey: Int64] = [:]
                try await insert(
                    """
                    INSERT INTO flag_event_batches (environment, id, received_at, app_version, build_configuration, platform,
                        dropped_exposures, dropped_summaries, dropped_tracked)
                    """,
                    columns: 9,
                    candidates.map { candidate in
                        let batch = candidate.batch
                        return [
                            .text(batch.environment), .text(batch.id), .integer(Int(batch.receivedAt)),
                            .text(batch.source.appVersion), .text(batch.source.buildConfiguration), .text(batch.source.platform),
                            .integer(batch.dropped.exposures), .integer(batch.dropped.summaries), .integer(batch.dropped.tracked),
                        ]
                    },
                    // The text comes back as bytes: SQLite's text ends at a NUL, and an id cut short
                    // would match no candidate (the batch recorded, its events not).
                    then: """
                         ON CONFLICT (environment, id) DO NOTHING
                        RETURNING seq, CAST(environment AS BLOB) AS environment, CAST(id AS BLOB) AS id
                        """
                ) { row in
                    recorded[FlagEventRows.BatchKey(environment: Self.text(row.column("environment")), id: Self.text(row.column("id")))] =
                        Int64(row.column("seq")?.integer ?? 0)
                }
                var newBatches: [(id: Int64, batch: EventBatch)] = []
                for candidate in candidates {
                    guard let id = recorded.removeValue(forKey: FlagEventRows.BatchKey(environment: candidate.batch.environment, id: candidate.batch.id))
                    else { continue }
                    stored[candidate.index] = true
                    newBatches.append((id, candidate.batch))
                }
                // A batch recorded now that matches no candidate would be stored without its events
                // and answered as a duplicate on every retry: fail the whole call instead.
                guard recorded.isEmpty else {
                    throw StoreError.database("the event store recorded \(recorded.count) batch ids it was not given")
                }
                try await write(FlagEventRows(stored: newBatches, daily: false))
                return stored
            }
        }
        // After the transaction (and the lock): a failed ingest wrote nothing to checkpoint.
        wrote()
        return stored
    }

    /// The text of a column returned as a blob (``ingest(_:)``), or of a text column; "" for
    /// anything else.
    private static func text(_ data: SQLiteData?) -> String {
        switch data {
        case .blob(let bytes)?: String(decoding: bytes.readableBytesView, as: UTF8.self)
        case .text(let text)?: text
        default: ""
        }
    }

    /// Writes the raw events and adds to the rollups.
    private func write(_ rows: FlagEventRows) async throws {
        try await insert(
            "INSERT INTO flag_event_exposures (batch, ordinal, environment, flag, variant, value, reason, revision, unit, time)",
            columns: 10,
            rows.exposures.map { row in
                let exposure = row.exposure
                return [
                    .integer(Int(row.batch)), .integer(row.ordinal), .text(row.environment), .text(exposure.flag),
                    .text(exposure.variant), exposure.value.map { .text($0.serialized()) } ?? .null, .text(exposure.reason),
                    exposure.revision.map(SQLiteData.text) ?? .null, exposure.unit.map(SQLiteData.text) ?? .null,
                    .integer(Int(exposure.time)),
                ]
            })
        try await insert(
            "INSERT INTO flag_event_tracked (batch, ordinal, environment, name, value, attributes, unit, variants, time)",
            columns: 9,
            rows.tracked.map { row in
                let event = row.event
                return [
                    .integer(Int(row.batch)), .integer(row.ordinal), .text(row.environment), .text(event.name),
                    event.value.map(SQLiteData.float) ?? .null,
                    FlagEventRows.text(event.attributes).map(SQLiteData.text) ?? .null,
                    event.unit.map(SQLiteData.text) ?? .null,
                    FlagEventRows.text(event.variants).map(SQLiteData.text) ?? .null, .integer(Int(event.time)),
                ]
            })
        // Hours only: a day's rollups are its folded hours plus the hours kept (``rollups``).
        for (table, rollups) in [("flag_event_rollups_hourly", rows.hourly)] {
            try await insert(
                "INSERT INTO \(table) (bucket, environment, flag, variant, reason, app_version, platform, evaluations, exposures)",
                columns: 9,
                rollups.map { key, counts in
                    [
                        .integer(Int(key.bucket)), .text(key.environment), .text(key.flag), .text(key.variant), .text(key.reason),
                        .text(key.appVersion), .text(key.platform), .integer(counts.evaluations), .integer(counts.exposures),
                    ]
                },
                then: """
                     ON CONFLICT (bucket, environment, flag, variant, reason, app_version, platform) DO UPDATE SET
                    evaluations = evaluations + excluded.evaluations, exposures = exposures + excluded.exposures
                    """)
        }
        var newUnits: [FlagEventRows.UnitKey] = []
        try await insert(
            "INSERT INTO flag_event_units (day, environment, flag, variant, unit)", columns: 5,
            rows.units.map { [.integer(Int($0.day)), .text($0.environment), .text($0.flag), .text($0.variant), .text($0.unit)] },
            then: " ON CONFLICT DO NOTHING RETURNING day, environment, flag, variant"
        ) { row in
            newUnits.append(FlagEventRows.UnitKey(
                day: Int64(row.column("day")?.integer ?? 0), environment: row.column("environment")?.string ?? "",
                flag: row.column("flag")?.string ?? "", variant: row.column("variant")?.string ?? "", unit: ""))
        }
        try await insert(
            "INSERT INTO flag_event_unit_counts (day, environment, flag, variant, units)", columns: 5,
            FlagEventRows.unitCounts(newUnits).map {
                [.integer(Int($0.day)), .text($0.environment), .text($0.flag), .text($0.variant), .integer($0.units)]
            },
            then: " ON CONFLICT (day, environment, flag, variant) DO UPDATE SET units = units + excluded.units")
        try await insert(
            "INSERT INTO flag_event_tracked_daily (day, environment, name, count, value_sum)", columns: 5,
            rows.trackedDaily.map { key, totals in
                [.integer(Int(key.day)), .text(key.environment), .text(key.name), .integer(totals.count), .float(totals.sum)]
            },
            then: """
                 ON CONFLICT (day, environment, name) DO UPDATE SET
                count = count + excluded.count, value_sum = value_sum + excluded.value_sum
                """)
        try await insert(
            "INSERT INTO flag_event_last_evaluated (environment, flag, time)", columns: 3,
            rows.lastEvaluated.map { key, time in [.text(key.environment), .text(key.flag), .integer(Int(time))] },
            then: " ON CONFLICT (environment, flag) DO UPDATE SET time = max(time, excluded.time)")
    }

    /// Reads the hourly rollups, or for days the daily rollups (folded when their hours expired) added
    /// to the hours still kept, summed by day; ordered as ``FlagEventStore`` asks.
    public func rollups(
        environment: String, flag: String?, granularity: RollupGranularity, from: Int64, to: Int64
    ) async throws(StoreError) -> [EvaluationRollup] {
        let order = " ORDER BY bucket, flag, variant, reason, app_version, platform"
        let sql: String
        var binds: [SQLiteData] = [.text(environment), .integer(Int(from)), .integer(Int(to))]
        let flagFilter = flag == nil ? "" : " AND flag = ?"
        if let flag { binds.append(.text(flag)) }
        switch granularity {
        case .hour:
            sql = "SELECT * FROM flag_event_rollups_hourly WHERE environment = ? AND bucket >= ? AND bucket < ?" + flagFilter + order
        case .day:
            // The days folded when their hours expired, and the hours kept, summed by day. An hour
            // falls in a day in `from ..< to` when it lies between the first day start at or after
            // `from` and the first at or after `to`.
            sql = """
                SELECT bucket, flag, variant, reason, app_version, platform,
                    SUM(evaluations) AS evaluations, SUM(exposures) AS exposures
                FROM (
                    SELECT bucket, flag, variant, reason, app_version, platform, evaluations, exposures
                    FROM flag_event_rollups_daily WHERE environment = ? AND bucket >= ? AND bucket < ?\(flagFilter)
                    UNION ALL
                    SELECT bucket - (bucket % 86400000 + 86400000) % 86400000, flag, variant, reason, app_version, platform, evaluations, exposures
                    FROM flag_event_rollups_hourly WHERE environment = ? AND bucket >= ? AND bucket < ?\(flagFilter)
                )
                GROUP BY bucket, flag, variant, reason, app_version, platform
                """ + order
            binds += [.text(environment), .integer(Int(Self.dayStart(atOrAfter: from))), .integer(Int(Self.dayStart(atOrAfter: to)))]
            if let flag { binds.append(.text(flag)) }
        }
        return try await run {
            try await connection.query(sql, binds).map { row in
                EvaluationRollup(
                    bucket: Int64(row.column("bucket")?.integer ?? 0), flag: row.column("flag")?.string ?? "",
                    variant: row.column("variant")?.string ?? "", reason: row.column("reason")?.string ?? "",
                    appVersion: row.column("app_version")?.string ?? "", platform: row.column("platform")?.string ?? "",
                    evaluations: row.column("evaluations")?.integer ?? 0, exposures: row.column("exposures")?.integer ?? 0)
            }
        }
    }

    /// The first start of a day (UTC) at or after `time`; `Int64.max` past the last one.
    static func dayStart(atOrAfter time: Int64) -> Int64 {
        let day = RollupGranularity.day.bucket(of: time)
        if day == time { return day }
        let (next, overflow) = day.addingReportingOverflow(RollupGranularity.day.milliseconds)
        return overflow ? .max : next
    }

    /// Distinct units per flag, variant and day of `environment` for days in `from ..< to`.
    public func unitCounts(environment: String, flag: String?, from: Int64, to: Int64) async throws(StoreError) -> [UnitCount] {
        var sql = "SELECT * FROM flag_event_unit_counts WHERE environment = ? AND day >= ? AND day < ?"
        var binds: [SQLiteData] = [.text(environment), .integer(Int(from)), .integer(Int(to))]
        if let flag {
            sql += " AND flag = ?"
            binds.append(.text(flag))
        }
        sql += " ORDER BY day, flag, variant"
        return try await run {
            try await connection.query(sql, binds).map { row in
                UnitCount(
                    day: Int64(row.column("day")?.integer ?? 0), flag: row.column("flag")?.string ?? "",
                    variant: row.column("variant")?.string ?? "", units: row.column("units")?.integer ?? 0)
            }
        }
    }

    /// The newest summary or exposure time per flag of `environment` (milliseconds since 1970).
    public func lastEvaluated(environment: String) async throws(StoreError) -> [String: Int64] {
        try await run {
            var times: [String: Int64] = [:]
            for row in try await connection.query(
                "SELECT flag, time FROM flag_event_last_evaluated WHERE environment = ?", [.text(environment)])
            {
                times[row.column("flag")?.string ?? ""] = Int64(row.column("time")?.integer ?? 0)
            }
            return times
        }
    }

    /// Tracked events per name and day of `environment` for days in `from ..< to`, by day and name.
    public func trackedCounts(environment: String, from: Int64, to: Int64) async throws(StoreError) -> [TrackedCount] {
        try await run {
            try await connection.query(
                "SELECT * FROM flag_event_tracked_daily WHERE environment = ? AND day >= ? AND day < ? ORDER BY day, name",
                [.text(environment), .integer(Int(from)), .integer(Int(to))]
            ).map { row in
                TrackedCount(
                    day: Int64(row.column("day")?.integer ?? 0), name: row.column("name")?.string ?? "",
                    count: row.column("count")?.integer ?? 0, valueSum: row.column("value_sum")?.double ?? 0)
            }
        }
    }

    /// The raw tracked events named `name` with `time` in `from ..< to`, oldest first, at most `limit`.
    public func trackedEvents(
        environment: String, name: String, from: Int64, to: Int64, limit: Int
    ) async throws(StoreError) -> [EventBatch.Tracked] {
        try await run {
            let rows = try await connection.query(
                """
                SELECT value, attributes, unit, variants, time FROM flag_event_tracked
                WHERE environment = ? AND name = ? AND time >= ? AND time < ?
                ORDER BY time, batch, ordinal LIMIT ?
                """,
                [.text(environment), .text(name), .integer(Int(from)), .integer(Int(to)), .integer(max(0, limit))])
            return try rows.map { row throws(StoreError) in
                let what = "tracked event \"\(name)\" in \"\(environment)\""
                return EventBatch.Tracked(
                    name: name, value: row.column("value")?.double,
                    attributes: try FlagEventRows.attributes(row.column("attributes")?.string, what),
                    unit: row.column("unit")?.string,
                    variants: try FlagEventRows.variants(row.column("variants")?.string, what),
                    time: Int64(row.column("time")?.integer ?? 0))
            }
        }
    }

    /// The raw exposures to `flag` with `time` in `from ..< to`, each with its batch's source, oldest first, at most `limit`.
    public func exposures(
        environment: String, flag: String, from: Int64, to: Int64, limit: Int
    ) async throws(StoreError) -> [StoredExposure] {
        try await run {
            let rows = try await connection.query(
                """
                SELECT e.variant, e.value, e.reason, e.revision, e.unit, e.time,
                    b.app_version, b.build_configuration, b.platform
                FROM flag_event_exposures e JOIN flag_event_batches b ON b.seq = e.batch
                WHERE e.environment = ? AND e.flag = ? AND e.time >= ? AND e.time < ?
                ORDER BY e.time, e.batch, e.ordinal LIMIT ?
                """,
                [.text(environment), .text(flag), .integer(Int(from)), .integer(Int(to)), .integer(max(0, limit))])
            return try rows.map { row throws(StoreError) in
                StoredExposure(
                    exposure: EventBatch.Exposure(
                        flag: flag, variant: row.column("variant")?.string ?? "",
                        value: try FlagEventRows.value(
                            row.column("value")?.string, "an exposure to \"\(flag)\" in \"\(environment)\""),
                        reason: row.column("reason")?.string ?? "", revision: row.column("revision")?.string,
                        unit: row.column("unit")?.string, time: Int64(row.column("time")?.integer ?? 0)),
                    source: EventBatch.EventSource(
                        appVersion: row.column("app_version")?.string ?? "",
                        buildConfiguration: row.column("build_configuration")?.string ?? "",
                        platform: row.column("platform")?.string ?? ""))
            }
        }
    }

    /// Deletes expired raw events and hourly rollups in one transaction; returns how many raw events went.
    @discardableResult
    public func deleteExpired(rawBefore time: Int64, hourlyBefore: Int64) async throws(StoreError) -> Int {
        defer { wrote() }
        return try await run {
            try await transaction {
                let expired = "SELECT seq FROM flag_event_batches WHERE received_at < ?"
                var deleted = 0
                for table in ["flag_event_exposures", "flag_event_tracked"] {
                    _ = try await connection.query("DELETE FROM \(table) WHERE batch IN (\(expired))", [.integer(Int(time))])
                    deleted += try await connection.query("SELECT changes() AS n").first?.column("n")?.integer ?? 0
                }
                _ = try await connection.query("DELETE FROM flag_event_batches WHERE received_at < ?", [.integer(Int(time))])
                // A unit is remembered for the days wholly before the raw events' retention; the
                // counts stay.
                _ = try await connection.query(
                    "DELETE FROM flag_event_units WHERE day <= ?",
                    [.integer(Int(RollupGranularity.day.bucket(of: time) - RollupGranularity.day.milliseconds))])
                // The expiring hours are folded into their days first: a day keeps its count.
                _ = try await connection.query(
                    """
                    INSERT INTO flag_event_rollups_daily (bucket, environment, flag, variant, reason, app_version, platform,
                        evaluations, exposures)
                    SELECT bucket - (bucket % 86400000 + 86400000) % 86400000 AS day, environment, flag, variant, reason, app_version, platform,
                        SUM(evaluations), SUM(exposures)
                    FROM flag_event_rollups_hourly WHERE bucket < ?
                    GROUP BY day, environment, flag, variant, reason, app_version, platform
                    ON CONFLICT (bucket, environment, flag, variant, reason, app_version, platform) DO UPDATE SET
                        evaluations = evaluations + excluded.evaluations, exposures = exposures + excluded.exposures
                    """, [.integer(Int(hourlyBefore))])
                _ = try await connection.query(
                    "DELETE FROM flag_event_rollups_hourly WHERE bucket < ?", [.integer(Int(hourlyBefore))])
                return deleted
            }
        }
    }

    // MARK: - Internals

    /// Runs `body` alone on the connection, mapping every failure that is not already a
    /// ``StoreError`` to one.
    func run<T: Sendable>(_ body: () async throws -> T) async throws(StoreError) -> T {
        await serial.lock()
        defer { serial.unlock() }
        do {
            return try await body()
        } catch {
            throw .sqlite(error, database: "the event database")
        }
    }

    /// Runs `body` in a write transaction, rolling back if it throws.
    func transaction<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await connection.writeTransaction(body)
    }

    /// The most parameters one statement binds: well below SQLite's limit, and small enough that a
    /// statement is parsed quickly.
    static let maximumParameters = 8_000

    /// Inserts `rows` (`columns` values each) in multi-row statements of at most
    /// ``maximumParameters`` parameters, in order, handing every row a `RETURNING` tail returns
    /// to `returned`.
    func insert(
        _ head: String, columns: Int, _ rows: [[SQLiteData]], then tail: String = "",
        returned: (SQLiteRow) -> Void = { _ in }
    ) async throws {
        let row = "(" + SQLiteConnection.placeholders(columns) + ")"
        let perStatement = max(1, Self.maximumParameters / columns)
        for start in stride(from: 0, to: rows.count, by: perStatement) {
            let chunk = rows[start..<min(start + perStatement, rows.count)]
            let sql = head + " VALUES " + Array(repeating: row, count: chunk.count).joined(separator: ", ") + tail
            for result in try await connection.query(sql, chunk.flatMap { $0 }) {
                returned(result)
            }
        }
    }
}
