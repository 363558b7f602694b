import FlagEvaluation
import FlagServerModel
public import Foundation
public import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import Synchronization

/// The shared event store: PostgreSQL, in the flag store's database (tables of its own, migrations
/// of their own), with a connection pool of its own so that ingesting never waits for a
/// connection behind a flag write, nor a flag write behind an ingest.
///
/// **Partitions.** Raw exposures and tracked events are partitioned by day of the time the server
/// received them (`received_at`, UTC). The store creates a day's partitions, and the next day's,
/// the first time it ingests a batch received that day, so the partitions of the coming day exist
/// before it starts; ``deleteExpired(rawBefore:hourlyBefore:)`` drops the partitions of days
/// wholly before its time and deletes the rows of the day its time falls in (none when it falls
/// at midnight UTC, the cheap case: retention jobs should pass a day boundary).
///
/// **Replicas.** Any replica ingests. A batch id is a unique key (per environment) of a table
/// that is not partitioned: two replicas ingesting the same batch at once record it once (the
/// second waits for the first's transaction, then finds the id). Keys are written in one order
/// (each upsert's rows sorted in the statement) by every replica, so concurrent ingests of
/// overlapping rollups wait for each other rather than deadlock; a deadlock or serialization
/// failure all the same is retried.
///
/// **Cost.** Each ingest is one transaction of a fixed number of statements: every column of a
/// multi-row insert is bound as one array and read back with `unnest`, so a statement binds a
/// dozen parameters however many rows it writes (at most ``maximumRowsPerStatement``).
///
/// ```swift
/// let events = PostgresFlagEventStore(configuration: try PostgresConfiguration(url: "postgres://flags@127.0.0.1/flags"))
/// try await events.migrate()
/// ```
public final class PostgresFlagEventStore: FlagEventStore {
    let client: PostgresClient
    private let runner: Task<Void, Never>
    let logger: Logger
    private let now: @Sendable () -> Date
    /// What this store is connected to, without the password.
    public let configuration: PostgresConfiguration
    /// Advisory lock keys, one per schema: migrations (per session) and partition changes (per transaction).
    private let migrationLock: Int64
    private let partitionLock: Int64
    /// The days (their first millisecond) whose partitions this store knows to exist.
    private let knownPartitions = Mutex<Set<Int64>>([])

    /// The raw event tables, partitioned by day.
    static let partitionedTables = ["flag_event_exposures", "flag_event_tracked"]

    /// The most rows one statement writes.
    static let maximumRowsPerStatement = 10_000

    /// Connects (lazily, through a pool of at most `maximumConnections`, apart from the flag
    /// store's) to the database of `configuration`.
    ///
    /// - Parameter now: The clock that decides which partitions ``migrate()`` creates ahead.
    public init(
        configuration: PostgresConfiguration, maximumConnections: Int = 4,
        logger: Logger = Logger(label: "flag-server.postgres-events"), now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.configuration = configuration
        self.logger = logger
        self.now = now
        let tls: PostgresClient.Configuration.TLS =
            switch configuration.tls {
            case .disable: .disable
            case .prefer: .prefer(.makeClientConfiguration())
            case .require: .require(.makeClientConfiguration())
            }
        var options = PostgresClient.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.username,
            password: configuration.password, database: configuration.database, tls: tls)
        options.options.maximumConnections = max(1, maximumConnections)
        options.options.connectTimeout = .seconds(5)
        if let schema = configuration.schema {
            options.options.additionalStartupParameters = [("search_path", schema)]
        }
        let client = PostgresClient(configuration: options, backgroundLogger: logger)
        self.client = client
        runner = Task { await client.run() }
        let schema = configuration.schema ?? "public"
        migrationLock = PostgresFlagStore.lockKey("flag-server events migrate " + schema)
        partitionLock = PostgresFlagStore.lockKey("flag-server events partitions " + schema)
    }

    /// Stops the connection pool and waits for it to shut down.
    public func close() async {
        runner.cancel()
        await runner.value
    }

    /// Creates the schema if named, then applies the event migrations newer than
    /// `flag_event_migrations` under an advisory lock, so that replicas starting together apply them once;
    /// also creates today's partitions.
    public func migrate() async throws(StoreError) {
        let today = RollupGranularity.day.bucket(of: Int64((now().timeIntervalSince1970 * 1000).rounded(.down)))
        try await run { [logger, migrationLock, configuration] in
            try await client.withConnection { connection in
                // Replicas starting together wait here; the first applies the migrations.
                try await connection.query("SELECT pg_advisory_lock(\(migrationLock))", logger: logger)
                do {
                    if let schema = configuration.schema {
                        try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(schema)"), logger: logger)
                    }
                    try await connection.query(
                        """
                        CREATE TABLE IF NOT EXISTS flag_event_migrations (
                            version INTEGER PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)
                        """, logger: logger)
                    var current = 0
                    for try await version in try await connection.query(
                        "SELECT COALESCE(MAX(version), 0) FROM flag_event_migrations", logger: logger
                    ).decode(Int.self) {
                        current = version
                    }
                    for migration in PostgresEventMigrations.all where migration.version > current {
                        try await PostgresFlagStore.transaction(connection, logger: logger) {
                            for statement in migration.statements {
                                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                            }
                            try await connection.query(
                                """
                                INSERT INTO flag_event_migrations (version, applied_at)
                                VALUES (\(migration.version), \(Date().timeIntervalSince1970))
                                """, logger: logger)
                        }
                        logger.info("applied event migration", metadata: ["version": "\(migration.version)"])
                    }
                } catch {
                    _ = try? await connection.query("SELECT pg_advisory_unlock(\(migrationLock))", logger: logger)
                    throw error
                }
                try await connection.query("SELECT pg_advisory_unlock(\(migrationLock))", logger: logger)
                // Today's partitions and tomorrow's, before the first batch.
                try await createPartitions([today, today + RollupGranularity.day.milliseconds], connection)
            }
        }
    }

    /// Stores `batches` in one transaction of a fixed number of statements (see the type's notes),
    /// creating the partitions of the day they were received; returns for each batch whether it was
    /// stored (false: a repeated id).
    public func ingest(_ batches: [EventBatch]) async throws(StoreError) -> [Bool] {
        guard !batches.isEmpty else { return [] }
        let candidates = FlagEventRows.candidates(batches)
        var days = Set<Int64>()
        for candidate in candidates {
            let day = RollupGranularity.day.bucket(of: candidate.batch.receivedAt)
            // The next day's too: ahead of need.
            days.formUnion([day, day + RollupGranularity.day.milliseconds])
        }
        return try await run { [logger] in
            try await client.withConnection { connection in
                try await createPartitions(days, connection)
                var attempt = 1
                while true {
                    do {
                        return try await PostgresFlagStore.transaction(connection, logger: logger) {
                            try await record(candidates, of: batches.count, connection)
                        }
                    } catch let error as PSQLError where attempt < 4 {
                        switch error.serverInfo?[.sqlState] {
                        case "40P01", "40001":
                            // A deadlock or serialization failure: nothing was written; again.
                            logger.info("event ingest retried", metadata: ["sqlState": "\(error.serverInfo?[.sqlState] ?? "")"])
                        case "23514":
                            // No partition for a row: another replica's retention dropped one this
                            // store thought was there. Create it again.
                            knownPartitions.withLock { $0.subtract(days) }
                            try await createPartitions(days, connection)
                        default:
                            throw error
                        }
                        attempt += 1
                    }
                }
            }
        }
    }

    /// The transaction of ``ingest(_:)``: records the batch ids, then writes what the new batches hold.
    private func record(
        _ candidates: [FlagEventRows.Candidate], of count: Int, _ connection: PostgresConnection
    ) async throws -> [Bool] {
        var recorded: [FlagEventRows.BatchKey: Int64] = [:]
        for chunk in Self.chunks(candidates) {
            let batches = chunk.map(\.batch)
            let rows = try await connection.query(
                """
                INSERT INTO flag_event_batches (environment, id, received_at, app_version, build_configuration, platform,
                    dropped_exposures, dropped_summaries, dropped_tracked)
                SELECT * FROM unnest(\(batches.map(\.environment)), \(batches.map(\.id)), \(batches.map(\.receivedAt)),
                    \(batches.map(\.source.appVersion)), \(batches.map(\.source.buildConfiguration)), \(batches.map(\.source.platform)),
                    \(batches.map { Int64($0.dropped.exposures) }), \(batches.map { Int64($0.dropped.summaries) }),
                    \(batches.map { Int64($0.dropped.tracked) }))
                ON CONFLICT (environment, id) DO NOTHING
                RETURNING seq, environment, id
                """, logger: logger)
            for try await (seq, environment, id) in rows.decode((Int64, String, String).self) {
                recorded[FlagEventRows.BatchKey(environment: environment, id: id)] = seq
            }
        }
        var stored = Array(repeating: false, count: count)
        var newBatches: [(id: Int64, batch: EventBatch)] = []
        for candidate in candidates {
            guard let id = recorded.removeValue(forKey: FlagEventRows.BatchKey(environment: candidate.batch.environment, id: candidate.batch.id))
            else { continue }
            stored[candidate.index] = true
            newBatches.append((id, candidate.batch))
        }
        // A batch recorded now that matches no candidate would be stored without its events and
        // answered as a duplicate on every retry: fail the whole call instead.
        guard recorded.isEmpty else {
            throw StoreError.database("the event store recorded \(recorded.count) batch ids it was not given")
        }
        try await write(FlagEventRows(stored: newBatches), connection)
        return stored
    }

    /// Writes the raw events and adds to the rollups.
    private func write(_ rows: FlagEventRows, _ connection: PostgresConnection) async throws {
        for chunk in Self.chunks(rows.exposures) {
            let exposures = chunk.map(\.exposure)
            try await connection.query(
                """
                INSERT INTO flag_event_exposures (received_at, batch, ordinal, environment, flag, variant, value, reason, revision, unit, time)
                SELECT * FROM unnest(\(chunk.map(\.receivedAt)), \(chunk.map(\.batch)), \(chunk.map { Int32($0.ordinal) }),
                    \(chunk.map(\.environment)), \(exposures.map(\.flag)), \(exposures.map(\.variant)),
                    \(PostgresNullableArray(exposures.map { $0.value?.serialized() })), \(exposures.map(\.reason)),
                    \(PostgresNullableArray(exposures.map(\.revision))), \(PostgresNullableArray(exposures.map(\.unit))),
                    \(exposures.map(\.time)))
                """, logger: logger)
        }
        for chunk in Self.chunks(rows.tracked) {
            let events = chunk.map(\.event)
            try await connection.query(
                """
                INSERT INTO flag_event_tracked (received_at, batch, ordinal, environment, name, value, attributes, unit, variants, time)
                SELECT * FROM unnest(\(chunk.map(\.receivedAt)), \(chunk.map(\.batch)), \(chunk.map { Int32($0.ordinal) }),
                    \(chunk.map(\.environment)), \(events.map(\.name)), \(PostgresNullableArray(events.map(\.value))),
                    \(PostgresNullableArray(events.map { FlagEventRows.text($0.attributes) })),
                    \(PostgresNullableArray(events.map(\.unit))),
                    \(PostgresNullableArray(events.map { FlagEventRows.text($0.variants) })), \(events.map(\.time)))
                """, logger: logger)
        }
        for (table, rollups) in [("flag_event_rollups_hourly", rows.hourly), ("flag_event_rollups_daily", rows.daily)] {
            for chunk in Self.chunks(rollups) {
                let keys = chunk.map(\.key)
                try await connection.query(
                    """
                    INSERT INTO \(unescaped: table) AS r (bucket, environment, flag, variant, reason, app_version, platform,
                        evaluations, exposures)
                    SELECT * FROM unnest(\(keys.map(\.bucket)), \(keys.map(\.environment)), \(keys.map(\.flag)),
                        \(keys.map(\.variant)), \(keys.map(\.reason)), \(keys.map(\.appVersion)), \(keys.map(\.platform)),
                        \(chunk.map { Int64($0.counts.evaluations) }), \(chunk.map { Int64($0.counts.exposures) }))
                    ORDER BY 1, 2, 3, 4, 5, 6, 7
                    ON CONFLICT (bucket, environment, flag, variant, reason, app_version, platform) DO UPDATE SET
                        evaluations = r.evaluations + excluded.evaluations, exposures = r.exposures + excluded.exposures
                    """, logger: logger)
            }
        }
        for chunk in Self.chunks(rows.units) {
            // The units new today for their flag's variant add to its count; the others were counted.
            try await connection.query(
                """
                WITH inserted AS (
                    INSERT INTO flag_event_units (day, environment, flag, variant, unit)
                    SELECT * FROM unnest(\(chunk.map(\.day)), \(chunk.map(\.environment)), \(chunk.map(\.flag)),
                        \(chunk.map(\.variant)), \(chunk.map(\.unit)))
                    ORDER BY 1, 2, 5, 3, 4
                    ON CONFLICT DO NOTHING
                    RETURNING day, environment, flag, variant
                )
                INSERT INTO flag_event_unit_counts AS c (day, environment, flag, variant, units)
                SELECT day, environment, flag, variant, count(*) FROM inserted
                GROUP BY day, environment, flag, variant ORDER BY day, environment, flag, variant
                ON CONFLICT (day, environment, flag, variant) DO UPDATE SET units = c.units + excluded.units
                """, logger: logger)
        }
        for chunk in Self.chunks(rows.trackedDaily) {
            let keys = chunk.map(\.key)
            try await connection.query(
                """
                INSERT INTO flag_event_tracked_daily AS t (day, environment, name, count, value_sum)
                SELECT * FROM unnest(\(keys.map(\.day)), \(keys.map(\.environment)), \(keys.map(\.name)),
                    \(chunk.map { Int64($0.totals.count) }), \(chunk.map(\.totals.sum)))
                ORDER BY 1, 2, 3
                ON CONFLICT (day, environment, name) DO UPDATE SET
                    count = t.count + excluded.count, value_sum = t.value_sum + excluded.value_sum
                """, logger: logger)
        }
        for chunk in Self.chunks(rows.lastEvaluated) {
            try await connection.query(
                """
                INSERT INTO flag_event_last_evaluated AS l (environment, flag, time)
                SELECT * FROM unnest(\(chunk.map(\.key.environment)), \(chunk.map(\.key.flag)), \(chunk.map(\.time)))
                ORDER BY 1, 2
                ON CONFLICT (environment, flag) DO UPDATE SET time = GREATEST(l.time, excluded.time)
                """, logger: logger)
        }
    }

    /// The hourly or daily rollup rows of `environment` with buckets in `from ..< to`, ordered as ``FlagEventStore`` asks.
    public func rollups(
        environment: String, flag: String?, granularity: RollupGranularity, from: Int64, to: Int64
    ) async throws(StoreError) -> [EvaluationRollup] {
        let table = granularity == .hour ? "flag_event_rollups_hourly" : "flag_event_rollups_daily"
        let query: PostgresQuery = """
            SELECT bucket, flag, variant, reason, app_version, platform, evaluations, exposures FROM \(unescaped: table)
            WHERE environment = \(environment) AND bucket >= \(from) AND bucket < \(to) AND (\(flag)::TEXT IS NULL OR flag = \(flag))
            ORDER BY bucket, flag, variant, reason, app_version, platform
            """
        return try await read { [logger] connection in
            var rollups: [EvaluationRollup] = []
            for try await (bucket, flag, variant, reason, appVersion, platform, evaluations, exposures) in try await connection.query(
                query, logger: logger
            ).decode((Int64, String, String, String, String, String, Int, Int).self) {
                rollups.append(EvaluationRollup(
                    bucket: bucket, flag: flag, variant: variant, reason: reason, appVersion: appVersion, platform: platform,
                    evaluations: evaluations, exposures: exposures))
            }
            return rollups
        }
    }

    /// Distinct units per flag, variant and day of `environment` for days in `from ..< to`.
    public func unitCounts(environment: String, flag: String?, from: Int64, to: Int64) async throws(StoreError) -> [UnitCount] {
        try await read { [logger] connection in
            var counts: [UnitCount] = []
            for try await (day, flag, variant, units) in try await connection.query(
                """
                SELECT day, flag, variant, units FROM flag_event_unit_counts
                WHERE environment = \(environment) AND day >= \(from) AND day < \(to) AND (\(flag)::TEXT IS NULL OR flag = \(flag))
                ORDER BY day, flag, variant
                """, logger: logger
            ).decode((Int64, String, String, Int).self) {
                counts.append(UnitCount(day: day, flag: flag, variant: variant, units: units))
            }
            return counts
        }
    }

    /// The newest summary or exposure time per flag of `environment` (milliseconds since 1970).
    public func lastEvaluated(environment: String) async throws(StoreError) -> [String: Int64] {
        try await read { [logger] connection in
            var times: [String: Int64] = [:]
            for try await (flag, time) in try await connection.query(
                "SELECT flag, time FROM flag_event_last_evaluated WHERE environment = \(environment)", logger: logger
            ).decode((String, Int64).self) {
                times[flag] = time
            }
            return times
        }
    }

    /// Tracked events per name and day of `environment` for days in `from ..< to`.
    public func trackedCounts(environment: String, from: Int64, to: Int64) async throws(StoreError) -> [TrackedCount] {
        try await read { [logger] connection in
            var counts: [TrackedCount] = []
            for try await (day, name, count, sum) in try await connection.query(
                """
                SELECT day, name, count, value_sum FROM flag_event_tracked_daily
                WHERE environment = \(environment) AND day >= \(from) AND day < \(to) ORDER BY day, name
                """, logger: logger
            ).decode((Int64, String, Int, Double).self) {
                counts.append(TrackedCount(day: day, name: name, count: count, valueSum: sum))
            }
            return counts
        }
    }

    /// The raw tracked events named `name` with `time` in `from ..< to`, oldest first, at most `limit`.
    public func trackedEvents(
        environment: String, name: String, from: Int64, to: Int64, limit: Int
    ) async throws(StoreError) -> [EventBatch.Tracked] {
        try await read { [logger] connection in
            var events: [EventBatch.Tracked] = []
            let what = "tracked event \"\(name)\" in \"\(environment)\""
            for try await (value, attributes, unit, variants, time) in try await connection.query(
                """
                SELECT value, attributes, unit, variants, time FROM flag_event_tracked
                WHERE environment = \(environment) AND name = \(name) AND time >= \(from) AND time < \(to)
                ORDER BY time, batch, ordinal LIMIT \(max(0, limit))
                """, logger: logger
            ).decode((Double?, String?, String?, String?, Int64).self) {
                events.append(EventBatch.Tracked(
                    name: name, value: value, attributes: try FlagEventRows.attributes(attributes, what), unit: unit,
                    variants: try FlagEventRows.variants(variants, what), time: time))
            }
            return events
        }
    }

    /// The raw exposures to `flag` with `time` in `from ..< to`, each with its batch's source, oldest first, at most `limit`.
    public func exposures(
        environment: String, flag: String, from: Int64, to: Int64, limit: Int
    ) async throws(StoreError) -> [StoredExposure] {
        try await read { [logger] connection in
            var exposures: [StoredExposure] = []
            for try await (variant, value, reason, revision, unit, time, appVersion, buildConfiguration, platform)
                in try await connection.query(
                    """
                    SELECT e.variant, e.value, e.reason, e.revision, e.unit, e.time, b.app_version, b.build_configuration, b.platform
                    FROM flag_event_exposures e JOIN flag_event_batches b ON b.seq = e.batch
                    WHERE e.environment = \(environment) AND e.flag = \(flag) AND e.time >= \(from) AND e.time < \(to)
                    ORDER BY e.time, e.batch, e.ordinal LIMIT \(max(0, limit))
                    """, logger: logger
                ).decode((String, String?, String, String?, String?, Int64, String, String, String).self)
            {
                exposures.append(StoredExposure(
                    exposure: EventBatch.Exposure(
                        flag: flag, variant: variant,
                        value: try FlagEventRows.value(value, "an exposure to \"\(flag)\" in \"\(environment)\""),
                        reason: reason, revision: revision, unit: unit, time: time),
                    source: EventBatch.EventSource(appVersion: appVersion, buildConfiguration: buildConfiguration, platform: platform)))
            }
            return exposures
        }
    }

    /// Drops the raw partitions of days wholly before `time`, deletes the rows of the day it falls in and
    /// the hourly rollups before `hourlyBefore`; returns how many raw events went.
    @discardableResult
    public func deleteExpired(rawBefore time: Int64, hourlyBefore: Int64) async throws(StoreError) -> Int {
        try await run { [logger, partitionLock] in
            try await client.withConnection { connection in
                var deleted = 0
                // Whole days first: their partitions are dropped, not emptied row by row.
                for table in Self.partitionedTables {
                    var expired: [(name: String, day: Int64)] = []
                    for try await name in try await connection.query(
                        """
                        SELECT c.relname::TEXT FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                        WHERE i.inhparent = to_regclass(\(table))
                        """, logger: logger
                    ).decode(String.self) {
                        guard let day = Self.partitionDay(name, of: table), day + RollupGranularity.day.milliseconds <= time
                        else { continue }
                        expired.append((name, day))
                    }
                    for (name, day) in expired.sorted(by: { $0.day < $1.day }) {
                        try await PostgresFlagStore.transaction(connection, logger: logger) {
                            // Replicas' retention jobs take turns; a partition another dropped is gone.
                            try await connection.query("SELECT pg_advisory_xact_lock(\(partitionLock))", logger: logger)
                            var exists = false
                            for try await found in try await connection.query(
                                "SELECT to_regclass(\(name)) IS NOT NULL", logger: logger
                            ).decode(Bool.self) {
                                exists = found
                            }
                            guard exists else { return }
                            for try await count in try await connection.query(
                                "SELECT count(*) FROM \(unescaped: name)", logger: logger
                            ).decode(Int.self) {
                                deleted += count
                            }
                            try await connection.query("DROP TABLE \(unescaped: name)", logger: logger)
                        }
                        knownPartitions.withLock { _ = $0.remove(day) }
                    }
                }
                try await PostgresFlagStore.transaction(connection, logger: logger) {
                    // The day `time` falls in, if it is not midnight: its rows before `time`.
                    for table in Self.partitionedTables {
                        for try await count in try await connection.query(
                            "WITH d AS (DELETE FROM \(unescaped: table) WHERE received_at < \(time) RETURNING 1) SELECT count(*) FROM d",
                            logger: logger
                        ).decode(Int.self) {
                            deleted += count
                        }
                    }
                    try await connection.query("DELETE FROM flag_event_batches WHERE received_at < \(time)", logger: logger)
                    // A unit is remembered for the days wholly before the raw events' retention; the
                    // counts stay.
                    let lastDay = RollupGranularity.day.bucket(of: time) - RollupGranularity.day.milliseconds
                    try await connection.query("DELETE FROM flag_event_units WHERE day <= \(lastDay)", logger: logger)
                    try await connection.query("DELETE FROM flag_event_rollups_hourly WHERE bucket < \(hourlyBefore)", logger: logger)
                }
                return deleted
            }
        }
    }

    // MARK: - Internals

    /// Runs `body` (mapping failures as ``PostgresFlagStore`` does) on a pooled connection.
    func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws(StoreError) -> T {
        try await run { try await client.withConnection(body) }
    }

    /// Runs `body`, mapping every failure that is not already a ``StoreError`` to one: a database
    /// that cannot be reached or gave up is ``StoreError/unavailable(_:)`` (its details logged),
    /// other failures ``StoreError/database(_:)``.
    func run<T: Sendable>(_ body: () async throws -> T) async throws(StoreError) -> T {
        do {
            return try await body()
        } catch let error as StoreError {
            throw error
        } catch let error as PSQLError {
            let detail = "\(configuration.host):\(configuration.port): \(error.serverInfo?[.message] ?? "\(error.code)")"
            if PostgresFlagStore.isUnavailable(error) {
                logger.warning("event database unavailable", metadata: ["error": "\(detail)"])
                throw .unavailable(PostgresFlagStore.unavailableMessage)
            }
            throw .database(detail)
        } catch {
            logger.warning("event database unavailable", metadata: ["error": "\(configuration.host):\(configuration.port): \(error)"])
            throw .unavailable(PostgresFlagStore.unavailableMessage)
        }
    }

    /// Creates the partitions of `days` (their first millisecond) that this store does not know
    /// to exist, in a transaction of their own (before the ingest's, which they never lengthen),
    /// one replica at a time.
    private func createPartitions(_ days: Set<Int64>, _ connection: PostgresConnection) async throws {
        let missing = knownPartitions.withLock { known in days.subtracting(known) }.sorted()
        guard !missing.isEmpty else { return }
        try await PostgresFlagStore.transaction(connection, logger: logger) { [logger, partitionLock] in
            try await connection.query("SELECT pg_advisory_xact_lock(\(partitionLock))", logger: logger)
            for day in missing {
                guard let suffix = Self.partitionSuffix(day) else {
                    throw StoreError.database("cannot store events received at \(day) ms since 1970: outside the years 1970 to 9999")
                }
                for table in Self.partitionedTables {
                    try await connection.query(
                        PostgresQuery(
                            unsafeSQL: """
                                CREATE TABLE IF NOT EXISTS \(table)_\(suffix) PARTITION OF \(table)
                                FOR VALUES FROM (\(day)) TO (\(day + RollupGranularity.day.milliseconds))
                                """), logger: logger)
                }
            }
        }
        knownPartitions.withLock { $0.formUnion(missing) }
    }

    /// `yyyymmdd` (UTC) of the day starting at `day`, or `nil` outside the years 1970 to 9999.
    static func partitionSuffix(_ day: Int64) -> String? {
        let (year, month, date) = civilDate(days: day / RollupGranularity.day.milliseconds)
        guard (1970...9999).contains(year) else { return nil }
        return String(year) + (month < 10 ? "0" : "") + String(month) + (date < 10 ? "0" : "") + String(date)
    }

    /// The first millisecond of the day a partition of `table` named `name` holds, or `nil` for
    /// a name the store did not make.
    static func partitionDay(_ name: String, of table: String) -> Int64? {
        let prefix = table + "_"
        guard name.hasPrefix(prefix) else { return nil }
        let suffix = name.dropFirst(prefix.count)
        guard suffix.count == 8, let number = Int(suffix), number >= 0 else { return nil }
        let days = daysSinceEpoch(year: Int64(number / 10_000), month: Int64(number / 100 % 100), day: Int64(number % 100))
        guard partitionSuffix(days * RollupGranularity.day.milliseconds) == String(suffix) else { return nil }
        return days * RollupGranularity.day.milliseconds
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's `civil_from_days`).
    static func civilDate(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The inverse of ``civilDate(days:)`` (`days_from_civil`).
    static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let year = month <= 2 ? year - 1 : year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// `elements` in slices of at most ``maximumRowsPerStatement``.
    static func chunks<Element>(_ elements: [Element]) -> [ArraySlice<Element>] {
        elements.slices(of: maximumRowsPerStatement)
    }
}
