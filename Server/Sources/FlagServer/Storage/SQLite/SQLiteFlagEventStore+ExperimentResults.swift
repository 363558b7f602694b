import FlagServerModel
import Foundation
import SQLiteNIO

/// Incremental experiment results in the embedded event store: one write transaction per call
/// (the connection is the store's only writer, so every batch at or below the largest sequence
/// it reads is committed and seen), counting the batches after the experiment's watermark.
extension SQLiteFlagEventStore: ExperimentResultsStore {
    /// Counts, in one write transaction, the batches after the experiment's watermark (storing each
    /// changed unit with its arm, values, segment and sample key) and returns the totals, with each
    /// percentile metric's values per arm.
    public func updateResults(_ query: ExperimentResultsQuery, now: Int64) async throws(StoreError) -> ExperimentTotals {
        let counter = ExperimentResultsCounter(query)
        let (state, units, samples) = try await run {
            try await transaction {
                let through = try await connection.query("SELECT MAX(seq) AS seq FROM flag_event_batches").first?
                    .column("seq")?.integer ?? 0
                var stored: ExperimentResultsCounter.State?
                if let text = try await connection.query(
                    "SELECT state FROM flag_event_experiments WHERE experiment = ?", [.text(query.experiment)]
                ).first?.column("state")?.string {
                    stored = try? JSONDecoder().decode(ExperimentResultsCounter.State.self, from: Data(text.utf8))
                }
                let source = SQLiteExperimentSource(connection: connection, counter: counter)
                let update = try await counter.update(state: stored, through: Int64(through), source: source)
                guard update.state != stored else {
                    return (update.state, counter.needsAllUnits ? try await source.allUnits() : [], try await source.samples(for: counter))
                }
                if update.restarted {
                    _ = try await connection.query(
                        "DELETE FROM flag_event_experiment_units WHERE experiment = ?", [.text(query.experiment)])
                }
                try await insert(
                    "INSERT INTO flag_event_experiment_units (experiment, unit, arm, first_exposure, reassigned, metric_values, app_version, platform, sample_key)",
                    columns: 9,
                    update.changed.map { key, unit in
                        [
                            .text(query.experiment), .text(key), .text(unit.arm), .integer(Int(unit.first)),
                            .integer(unit.reassigned ? 1 : 0), .text(unit.encodedValues),
                            unit.appVersion.map(SQLiteData.text) ?? .null, unit.platform.map(SQLiteData.text) ?? .null,
                            .integer(Int(ExperimentResultsCounter.sampleKey(of: key))),
                        ]
                    },
                    then: """
                         ON CONFLICT (experiment, unit) DO UPDATE SET arm = excluded.arm, first_exposure = excluded.first_exposure,
                        reassigned = excluded.reassigned, metric_values = excluded.metric_values,
                        app_version = excluded.app_version, platform = excluded.platform, sample_key = excluded.sample_key
                        """)
                let text = String(decoding: try JSONEncoder().encode(update.state), as: UTF8.self)
                _ = try await connection.query(
                    """
                    INSERT INTO flag_event_experiments (experiment, state) VALUES (?, ?)
                    ON CONFLICT (experiment) DO UPDATE SET state = excluded.state
                    """, [.text(query.experiment), .text(text)])
                return (update.state, counter.needsAllUnits ? try await source.allUnits() : [], try await source.samples(for: counter))
            }
        }
        wrote()
        var totals = counter.totals(state.cohorts, now: now, units: units)
        totals.percentiles = counter.percentiles(samples: samples, units: totals.units)
        return totals
    }

    /// Forgets the experiment's incremental state.
    public func deleteResults(experiment: String) async throws(StoreError) {
        try await run {
            try await transaction {
                _ = try await connection.query("DELETE FROM flag_event_experiment_units WHERE experiment = ?", [.text(experiment)])
                _ = try await connection.query("DELETE FROM flag_event_experiments WHERE experiment = ?", [.text(experiment)])
            }
        }
        wrote()
    }
}

/// The raw rows and stored units of one experiment, read on the store's connection inside its
/// transaction.
struct SQLiteExperimentSource: ExperimentResultsSource {
    let connection: SQLiteConnection
    let counter: ExperimentResultsCounter

    /// Keys per `IN (…)` list.
    static let chunk = 2_000

    private var query: ExperimentResultsQuery { counter.query }
    private var names: [SQLiteData] { counter.eventNames.map(SQLiteData.text) }
    private var nameList: String { SQLiteConnection.placeholders(counter.eventNames.count) }

    func exposures(after: Int64, through: Int64) async throws -> [ExperimentResultsCounter.Exposure] {
        // By batch (the index of insertion order): an update reads what arrived since the last.
        try await connection.query(
            """
            SELECT e.unit, e.variant, e.time, b.app_version, b.platform FROM flag_event_exposures AS e INDEXED BY flag_event_exposures_by_batch
            LEFT JOIN flag_event_batches AS b ON b.seq = e.batch
            WHERE e.batch > ? AND e.batch <= ? AND e.environment = ? AND e.flag = ? AND e.unit IS NOT NULL
            ORDER BY e.batch, e.ordinal
            """,
            [.integer(Int(after)), .integer(Int(through)), .text(query.environment), .text(query.flag)]
        ).map { row in
            ExperimentResultsCounter.Exposure(
                unit: row.column("unit")?.string ?? "", variant: row.column("variant")?.string ?? "",
                time: Int64(row.column("time")?.integer ?? 0), appVersion: row.column("app_version")?.string,
                platform: row.column("platform")?.string)
        }
    }

    func events(after: Int64, through: Int64) async throws -> [ExperimentResultsCounter.Event] {
        guard !names.isEmpty else { return [] }
        return try await connection.query(
            """
            SELECT unit, name, value, time FROM flag_event_tracked INDEXED BY flag_event_tracked_by_batch
            WHERE batch > ? AND batch <= ? AND environment = ? AND unit IS NOT NULL AND name IN (\(nameList))
            """,
            [.integer(Int(after)), .integer(Int(through)), .text(query.environment)] + names
        ).map(Self.event)
    }

    func events(of units: [String], through: Int64) async throws -> [ExperimentResultsCounter.Event] {
        guard !names.isEmpty else { return [] }
        var events: [ExperimentResultsCounter.Event] = []
        for start in stride(from: 0, to: units.count, by: Self.chunk) {
            let keys = units[start..<min(start + Self.chunk, units.count)]
            events += try await connection.query(
                """
                SELECT unit, name, value, time FROM flag_event_tracked INDEXED BY flag_event_tracked_by_unit
                WHERE environment = ? AND unit IS NOT NULL AND unit IN (\(SQLiteConnection.placeholders(keys.count)))
                    AND batch <= ? AND name IN (\(nameList))
                """,
                [.text(query.environment)] + keys.map(SQLiteData.text) + [.integer(Int(through))] + names
            ).map(Self.event)
        }
        return events
    }

    func units(_ keys: [String]) async throws -> [String: ExperimentResultsCounter.Unit] {
        var units: [String: ExperimentResultsCounter.Unit] = [:]
        for start in stride(from: 0, to: keys.count, by: Self.chunk) {
            let chunk = keys[start..<min(start + Self.chunk, keys.count)]
            for row in try await connection.query(
                """
                SELECT unit, arm, first_exposure, reassigned, metric_values, app_version, platform FROM flag_event_experiment_units
                WHERE experiment = ? AND unit IN (\(SQLiteConnection.placeholders(chunk.count)))
                """,
                [.text(query.experiment)] + chunk.map(SQLiteData.text))
            {
                units[row.column("unit")?.string ?? ""] = ExperimentResultsCounter.Unit(
                    arm: row.column("arm")?.string ?? "", first: Int64(row.column("first_exposure")?.integer ?? 0),
                    reassigned: row.column("reassigned")?.integer == 1,
                    encodedValues: row.column("metric_values")?.string ?? "", metrics: query.metrics.count,
                    appVersion: row.column("app_version")?.string, platform: row.column("platform")?.string)
            }
        }
        return units
    }

    func allUnits() async throws -> [ExperimentResultsCounter.Unit] {
        try await connection.query(
            "SELECT arm, first_exposure, reassigned, metric_values, app_version, platform FROM flag_event_experiment_units WHERE experiment = ?",
            [.text(query.experiment)]
        ).map { row in
            ExperimentResultsCounter.Unit(
                arm: row.column("arm")?.string ?? "", first: Int64(row.column("first_exposure")?.integer ?? 0),
                reassigned: row.column("reassigned")?.integer == 1,
                encodedValues: row.column("metric_values")?.string ?? "", metrics: query.metrics.count,
                appVersion: row.column("app_version")?.string, platform: row.column("platform")?.string)
        }
    }

    func samples(limit: Int) async throws -> [String: [ExperimentResultsCounter.Unit]] {
        // Units stored before sample keys existed (event migration 5) get theirs first, once.
        while true {
            let keys = try await connection.query(
                "SELECT unit FROM flag_event_experiment_units WHERE experiment = ? AND sample_key IS NULL LIMIT \(Self.chunk)",
                [.text(query.experiment)]
            ).compactMap { $0.column("unit")?.string }
            if keys.isEmpty { break }
            for key in keys {
                _ = try await connection.query(
                    "UPDATE flag_event_experiment_units SET sample_key = ? WHERE experiment = ? AND unit = ?",
                    [.integer(Int(ExperimentResultsCounter.sampleKey(of: key))), .text(query.experiment), .text(key)])
            }
        }
        var samples: [String: [ExperimentResultsCounter.Unit]] = [:]
        for arm in query.arms {
            samples[arm] = try await connection.query(
                """
                SELECT arm, first_exposure, reassigned, metric_values FROM flag_event_experiment_units
                INDEXED BY flag_event_experiment_units_by_sample_key
                WHERE experiment = ? AND arm = ? ORDER BY sample_key, unit LIMIT ?
                """, [.text(query.experiment), .text(arm), .integer(limit)]
            ).map { row in
                ExperimentResultsCounter.Unit(
                    arm: row.column("arm")?.string ?? "", first: Int64(row.column("first_exposure")?.integer ?? 0),
                    reassigned: row.column("reassigned")?.integer == 1,
                    encodedValues: row.column("metric_values")?.string ?? "", metrics: query.metrics.count)
            }
        }
        return samples
    }

    private static func event(_ row: SQLiteRow) -> ExperimentResultsCounter.Event {
        ExperimentResultsCounter.Event(
            unit: row.column("unit")?.string ?? "", name: row.column("name")?.string ?? "", value: row.column("value")?.double,
            time: Int64(row.column("time")?.integer ?? 0))
    }
}
