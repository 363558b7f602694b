import FlagServerModel
import Foundation
import Logging
import PostgresNIO

/// Incremental experiment results in the shared event store.
///
/// **Watermark.** Batch sequence numbers are drawn when a batch is inserted but become visible
/// when its transaction commits, so a smaller one can appear after a larger: an update first
/// takes `flag_event_batches` in `SHARE` mode in a transaction of its own, which waits for the
/// ingests in flight and holds new ones back only while it reads the largest sequence. Every
/// batch at or below it is then committed, and every later one gets a larger number.
///
/// **Replicas.** The update itself is one transaction under an advisory lock per experiment: two
/// replicas updating one experiment take turns, and the second finds the first's watermark (and
/// counts only what arrived after it, or nothing).
extension PostgresFlagEventStore: ExperimentResultsStore {
    /// Counts, under the experiment's advisory lock, the batches after its watermark (storing each
    /// changed unit with its arm, values, segment and sample key) and returns the totals, with each
    /// percentile metric's values per arm.
    public func updateResults(_ query: ExperimentResultsQuery, now: Int64) async throws(StoreError) -> ExperimentTotals {
        let counter = ExperimentResultsCounter(query)
        let lock = PostgresFlagStore.lockKey("flag-server experiment results \(configuration.schema ?? "public") \(query.experiment)")
        let (state, units, samples) = try await run { [logger] in
            try await client.withConnection { connection in
                let through = try await PostgresFlagStore.transaction(connection, logger: logger) {
                    try await connection.query("LOCK TABLE flag_event_batches IN SHARE MODE", logger: logger)
                    var through: Int64 = 0
                    for try await seq in try await connection.query(
                        "SELECT COALESCE(MAX(seq), 0) FROM flag_event_batches", logger: logger
                    ).decode(Int64.self) {
                        through = seq
                    }
                    return through
                }
                return try await PostgresFlagStore.transaction(connection, logger: logger) {
                    try await connection.query("SELECT pg_advisory_xact_lock(\(lock))", logger: logger)
                    var stored: ExperimentResultsCounter.State?
                    for try await text in try await connection.query(
                        "SELECT state FROM flag_event_experiments WHERE experiment = \(query.experiment)", logger: logger
                    ).decode(String.self) {
                        stored = try? JSONDecoder().decode(ExperimentResultsCounter.State.self, from: Data(text.utf8))
                    }
                    let source = PostgresExperimentSource(connection: connection, counter: counter, logger: logger)
                    let update = try await counter.update(state: stored, through: through, source: source)
                    guard update.state != stored else {
                        return (update.state, counter.needsAllUnits ? try await source.allUnits() : [], try await source.samples(for: counter))
                    }
                    if update.restarted {
                        try await connection.query(
                            "DELETE FROM flag_event_experiment_units WHERE experiment = \(query.experiment)", logger: logger)
                    }
                    let changed = update.changed.sorted { $0.key < $1.key }
                    for chunk in Self.chunks(changed) {
                        let units = chunk.map(\.value)
                        try await connection.query(
                            """
                            INSERT INTO flag_event_experiment_units AS u
                                (experiment, unit, arm, first_exposure, reassigned, metric_values, app_version, platform, sample_key)
                            SELECT \(query.experiment), * FROM unnest(\(chunk.map(\.key)), \(units.map(\.arm)), \(units.map(\.first)),
                                \(units.map(\.reassigned)), \(units.map(\.encodedValues)),
                                \(PostgresNullableArray(units.map(\.appVersion))), \(PostgresNullableArray(units.map(\.platform))),
                                \(chunk.map { ExperimentResultsCounter.sampleKey(of: $0.key) }))
                            ON CONFLICT (experiment, unit) DO UPDATE SET arm = excluded.arm, first_exposure = excluded.first_exposure,
                                reassigned = excluded.reassigned, metric_values = excluded.metric_values,
                                app_version = excluded.app_version, platform = excluded.platform, sample_key = excluded.sample_key
                            """, logger: logger)
                    }
                    let text = String(decoding: try JSONEncoder().encode(update.state), as: UTF8.self)
                    try await connection.query(
                        """
                        INSERT INTO flag_event_experiments (experiment, state) VALUES (\(query.experiment), \(text))
                        ON CONFLICT (experiment) DO UPDATE SET state = excluded.state
                        """, logger: logger)
                    return (update.state, counter.needsAllUnits ? try await source.allUnits() : [], try await source.samples(for: counter))
                }
            }
        }
        var totals = counter.totals(state.cohorts, now: now, units: units)
        totals.percentiles = counter.percentiles(samples: samples, units: totals.units)
        return totals
    }

    /// Forgets the experiment's incremental state, under its advisory lock.
    public func deleteResults(experiment: String) async throws(StoreError) {
        let lock = PostgresFlagStore.lockKey("flag-server experiment results \(configuration.schema ?? "public") \(experiment)")
        try await run { [logger] in
            try await client.withConnection { connection in
                try await PostgresFlagStore.transaction(connection, logger: logger) {
                    try await connection.query("SELECT pg_advisory_xact_lock(\(lock))", logger: logger)
                    try await connection.query(
                        "DELETE FROM flag_event_experiment_units WHERE experiment = \(experiment)", logger: logger)
                    try await connection.query("DELETE FROM flag_event_experiments WHERE experiment = \(experiment)", logger: logger)
                }
            }
        }
    }
}

/// The raw rows and stored units of one experiment, read on one connection inside the update's
/// transaction.
struct PostgresExperimentSource: ExperimentResultsSource {
    let connection: PostgresConnection
    let counter: ExperimentResultsCounter
    let logger: Logger

    private var query: ExperimentResultsQuery { counter.query }

    func exposures(after: Int64, through: Int64) async throws -> [ExperimentResultsCounter.Exposure] {
        var exposures: [ExperimentResultsCounter.Exposure] = []
        for try await (unit, variant, time, appVersion, platform) in try await connection.query(
            """
            SELECT e.unit, e.variant, e.time, b.app_version, b.platform FROM flag_event_exposures AS e
            LEFT JOIN flag_event_batches AS b ON b.seq = e.batch
            WHERE e.batch > \(after) AND e.batch <= \(through) AND e.environment = \(query.environment) AND e.flag = \(query.flag)
                AND e.unit IS NOT NULL
            ORDER BY e.batch, e.ordinal
            """, logger: logger
        ).decode((String, String, Int64, String?, String?).self) {
            exposures.append(.init(unit: unit, variant: variant, time: time, appVersion: appVersion, platform: platform))
        }
        return exposures
    }

    func events(after: Int64, through: Int64) async throws -> [ExperimentResultsCounter.Event] {
        try await events(
            """
            SELECT unit, name, value, time FROM flag_event_tracked
            WHERE batch > \(after) AND batch <= \(through) AND environment = \(query.environment) AND unit IS NOT NULL
                AND name = ANY(\(counter.eventNames))
            """)
    }

    func events(of units: [String], through: Int64) async throws -> [ExperimentResultsCounter.Event] {
        var events: [ExperimentResultsCounter.Event] = []
        for chunk in PostgresFlagEventStore.chunks(units) {
            events += try await self.events(
                """
                SELECT unit, name, value, time FROM flag_event_tracked
                WHERE environment = \(query.environment) AND unit IS NOT NULL AND unit = ANY(\(Array(chunk)))
                    AND batch <= \(through) AND name = ANY(\(counter.eventNames))
                """)
        }
        return events
    }

    private func events(_ sql: PostgresQuery) async throws -> [ExperimentResultsCounter.Event] {
        var events: [ExperimentResultsCounter.Event] = []
        for try await (unit, name, value, time) in try await connection.query(sql, logger: logger).decode(
            (String, String, Double?, Int64).self)
        {
            events.append(.init(unit: unit, name: name, value: value, time: time))
        }
        return events
    }

    func allUnits() async throws -> [ExperimentResultsCounter.Unit] {
        var units: [ExperimentResultsCounter.Unit] = []
        for try await (arm, first, reassigned, values, appVersion, platform) in try await connection.query(
            """
            SELECT arm, first_exposure, reassigned, metric_values, app_version, platform FROM flag_event_experiment_units
            WHERE experiment = \(query.experiment)
            """, logger: logger
        ).decode((String, Int64, Bool, String, String?, String?).self) {
            units.append(
                .init(
                    arm: arm, first: first, reassigned: reassigned, encodedValues: values, metrics: query.metrics.count,
                    appVersion: appVersion, platform: platform))
        }
        return units
    }

    func samples(limit: Int) async throws -> [String: [ExperimentResultsCounter.Unit]] {
        // Units stored before sample keys existed (event migration 4) get theirs first, once.
        while true {
            var keys: [String] = []
            for try await unit in try await connection.query(
                """
                SELECT unit FROM flag_event_experiment_units WHERE experiment = \(query.experiment) AND sample_key IS NULL
                LIMIT \(PostgresFlagEventStore.maximumRowsPerStatement)
                """, logger: logger
            ).decode(String.self) {
                keys.append(unit)
            }
            if keys.isEmpty { break }
            try await connection.query(
                """
                UPDATE flag_event_experiment_units AS u SET sample_key = v.key
                FROM unnest(\(keys), \(keys.map(ExperimentResultsCounter.sampleKey(of:)))) AS v(unit, key)
                WHERE u.experiment = \(query.experiment) AND u.unit = v.unit
                """, logger: logger)
        }
        var samples: [String: [ExperimentResultsCounter.Unit]] = [:]
        for arm in query.arms {
            var units: [ExperimentResultsCounter.Unit] = []
            for try await (arm, first, reassigned, values) in try await connection.query(
                """
                SELECT arm, first_exposure, reassigned, metric_values FROM flag_event_experiment_units
                WHERE experiment = \(query.experiment) AND arm = \(arm) ORDER BY sample_key, unit LIMIT \(limit)
                """, logger: logger
            ).decode((String, Int64, Bool, String).self) {
                units.append(.init(arm: arm, first: first, reassigned: reassigned, encodedValues: values, metrics: query.metrics.count))
            }
            samples[arm] = units
        }
        return samples
    }

    func units(_ keys: [String]) async throws -> [String: ExperimentResultsCounter.Unit] {
        var units: [String: ExperimentResultsCounter.Unit] = [:]
        for chunk in PostgresFlagEventStore.chunks(keys) {
            for try await (unit, arm, first, reassigned, values, appVersion, platform) in try await connection.query(
                """
                SELECT unit, arm, first_exposure, reassigned, metric_values, app_version, platform FROM flag_event_experiment_units
                WHERE experiment = \(query.experiment) AND unit = ANY(\(Array(chunk)))
                """, logger: logger
            ).decode((String, String, Int64, Bool, String, String?, String?).self) {
                units[unit] = ExperimentResultsCounter.Unit(
                    arm: arm, first: first, reassigned: reassigned, encodedValues: values, metrics: query.metrics.count,
                    appVersion: appVersion, platform: platform)
            }
        }
        return units
    }
}
