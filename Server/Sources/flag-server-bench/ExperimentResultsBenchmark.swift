import FlagServer
import FlagStatistics
import Foundation
import Logging
import PostgresNIO
import SQLiteNIO

/// `flag-server-bench --experiments`: how long ``ExperimentResultsStore/updateResults(_:now:)``
/// takes for an experiment of `--units N` units (default 1,000,000) and 10 metrics, on each store.
///
/// Each unit has one exposure (two arms; 2 % are later exposed to the other arm) and two tracked
/// events among five names (each name read by two metrics, one with a CUPED covariate), one in
/// three before its exposure. 99 % of the units are ingested, then measured: the first full count,
/// an update when nothing is new, then after the last 1 % of units (and their events) arrived.
/// The baseline is a plain `SELECT count(*)` of the same raw rows, in the same run.
///
///     swift run -c release flag-server-bench --experiments [--units 1000000] [--database-url postgres://…]
enum ExperimentResultsBenchmark {
    static let day: Int64 = 86_400_000
    static let start: Int64 = 1_800_000_000_000
    static let names = ["purchase", "click", "search", "share", "signup"]

    static let query = ExperimentResultsQuery(
        experiment: "bench", environment: "production", flag: "checkout", arms: ["control", "treatment"], start: start, end: nil,
        metrics: names.flatMap { name in
            [
                ExperimentResultsQuery.Metric(key: name + "-converted", event: name, kind: .conversion, window: 7 * day, covariate: true),
                ExperimentResultsQuery.Metric(
                    key: name + (name == "purchase" ? "-revenue" : "-count"), event: name, kind: name == "purchase" ? .mean : .count,
                    window: 7 * day, covariate: false),
            ]
        })

    static func run(_ arguments: ArraySlice<String>) async throws {
        var units = 1_000_000
        var databaseURL = ProcessInfo.processInfo.environment["FLAG_SERVER_BENCH_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        var arguments = arguments
        while let argument = arguments.popFirst() {
            switch argument {
            case "--units": units = arguments.popFirst().flatMap(Int.init) ?? units
            case "--database-url": databaseURL = arguments.popFirst()
            default:
                FileHandle.standardError.write(Data("usage: flag-server-bench --experiments [--units N] [--database-url postgres://…]\n".utf8))
                exit(2)
            }
        }
        var logger = Logger(label: "flag-server-bench")
        logger.logLevel = .warning
        print("\(units) units, \(query.metrics.count) metrics, 500 units per batch")
        print("| store | step | ms |")
        print("| --- | --- | ---: |")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flag-server-bench-experiments-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("events.sqlite").path
        let sqlite = try await SQLiteFlagEventStore(path: path, logger: logger)
        try await sqlite.migrate()
        try await measure("SQLite", sqlite, units: units) {
            let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
            let rows = try await connection.query(
                "SELECT (SELECT count(*) FROM flag_event_exposures) + (SELECT count(*) FROM flag_event_tracked) AS n")
            try await connection.close()
            return rows.first?.column("n")?.integer ?? 0
        }
        await sqlite.close()
        guard let databaseURL else { return }
        var configuration = try PostgresConfiguration(url: databaseURL)
        configuration.schema = "bench_experiments_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let postgres = PostgresFlagEventStore(configuration: configuration, logger: logger)
        try await postgres.migrate()
        try await measure("PostgreSQL", postgres, units: units) {
            let connection = try await PostgresConnection.connect(
                configuration: PostgresBaseline.connectionConfiguration(configuration), id: 3, logger: logger)
            var count = 0
            for try await n in try await connection.query(
                "SELECT (SELECT count(*) FROM flag_event_exposures) + (SELECT count(*) FROM flag_event_tracked)", logger: logger
            ).decode(Int.self) {
                count = n
            }
            try await connection.close()
            return count
        }
        await postgres.close()
        try await PostgresBaseline.dropSchema(configuration, logger: logger)
    }

    static func measure(
        _ name: String, _ store: some FlagEventStore & ExperimentResultsStore, units: Int, baseline: () async throws -> Int
    ) async throws {
        let perBatch = 500
        let batches = (units + perBatch - 1) / perBatch
        let loaded = batches - max(1, batches / 100)
        let clock = ContinuousClock()
        var ingest = Duration.zero
        func load(_ range: Range<Int>) async throws {
            for group in stride(from: range.lowerBound, to: range.upperBound, by: 10) {
                let call = (group..<min(group + 10, range.upperBound)).map { batch($0, perBatch: perBatch, units: units) }
                ingest += try await clock.measure { _ = try await store.ingest(call) }
            }
        }
        try await load(0..<loaded)
        print("| \(name) | ingest \(loaded) batches | \(Int(milliseconds(ingest))) |")
        let now = start + 10 * day
        var totals: ExperimentTotals?
        var count = 0
        let baselineTime = try await clock.measure { count = try await baseline() }
        print("| \(name) | baseline: SELECT count(*) of the \(count) raw rows | \(format(baselineTime)) |")
        let first = try await clock.measure { totals = try await store.updateResults(query, now: now) }
        print("| \(name) | first full count (\(totals?.units.values.reduce(0, +) ?? 0) units) | \(format(first)) |")
        for attempt in 1...3 {
            let nothing = try await clock.measure { totals = try await store.updateResults(query, now: now) }
            print("| \(name) | nothing new (\(attempt)) | \(format(nothing)) |")
        }
        try await load(loaded..<batches)
        let newer = try await clock.measure { totals = try await store.updateResults(query, now: now) }
        print("| \(name) | 1 % new (\(batches - loaded) batches; \(totals?.units.values.reduce(0, +) ?? 0) units) | \(format(newer)) |")
        let fullBaseline = try await clock.measure { count = try await baseline() }
        print("| \(name) | baseline again (\(count) rows) | \(format(fullBaseline)) |")
    }

    /// Batch `index`: units `index * perBatch ..<` (one exposure each, two events), the same on every run.
    static func batch(_ index: Int, perBatch: Int, units: Int) -> EventBatch {
        var random = SplitMix(seed: 1000 &+ UInt64(index))
        var exposures: [EventBatch.Exposure] = []
        var tracked: [EventBatch.Tracked] = []
        for unit in (index * perBatch)..<min((index + 1) * perBatch, units) {
            let key = "unit-\(unit)"
            let arm = random.next(2) == 0 ? "control" : "treatment"
            let time = start + Int64(random.next(Int(3 * day)))
            exposures.append(EventBatch.Exposure(flag: "checkout", variant: arm, reason: "SPLIT", unit: key, time: time))
            if random.next(50) == 0 {
                exposures.append(EventBatch.Exposure(
                    flag: "checkout", variant: arm == "control" ? "treatment" : "control", reason: "SPLIT", unit: key, time: time + 60_000))
            }
            for _ in 0..<2 {
                let offset = random.next(3) == 0 ? -Int64(random.next(Int(5 * day))) - 1 : Int64(random.next(Int(5 * day)))
                tracked.append(EventBatch.Tracked(
                    name: names[random.next(names.count)], value: Double(random.next(10_000)) / 100, unit: key, time: time + offset))
            }
        }
        return EventBatch(
            id: "experiment-\(index)", environment: "production", receivedAt: start + 4 * day + Int64(index),
            source: EventBatch.EventSource(appVersion: "1.0", buildConfiguration: "release", platform: "iOS"),
            exposures: exposures, tracked: tracked)
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    static func format(_ duration: Duration) -> String {
        String(format: "%.1f", milliseconds(duration))
    }
}
