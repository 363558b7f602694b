import FlagEvaluation
import FlagServer
import Foundation
import Logging
import NIOCore
import PostgresNIO
import SQLiteNIO

/// `flag-server-bench --events`: how fast each event store ingests, beside the database's own
/// bulk insert of the same rows into a plain table, measured in the same run.
///
/// For each store (SQLite in a new temporary directory; PostgreSQL when a database URL is given,
/// in a new schema per run) and each group size (`--groups`), it ingests `--batches N` batches of
/// 500 events (45 % evaluation summaries, 45 % exposures, 10 % tracked events; 200 flags, 50,000
/// units, three app versions, two platforms), group-size batches per
/// ``FlagEventStore/ingest(_:)`` call, one call after another, into a fresh database. The baseline writes every event as one row of
/// a plain table without keys or indexes, in one transaction per call of the same size: SQLite
/// with multi-row `INSERT`s, PostgreSQL with `COPY`. Printed per run: events per second, the
/// call latency's p50 and p99, and the peak resident memory of the process during the run. The
/// rate is over the time spent in the calls (making the batches is not counted). With
/// `--concurrency N`, the PostgreSQL store is also measured with N callers at once.
///
///     swift run -c release flag-server-bench --events [--batches 400] [--groups 1,10,50] \
///         [--checkpoint-interval N] [--database-url postgres://… [--postgres-only] [--concurrency N]]
enum EventIngestBenchmark {
    struct Options {
        var batches = 400
        var groups = [1, 10, 50]
        var databaseURL: String?
        var sqlite = true
        /// Callers ingesting into the PostgreSQL store at once (besides the one-caller run).
        var concurrency = 1
        /// The SQLite store's ingests between two checkpoints (its default when `nil`).
        var checkpointInterval: Int?
    }

    static let eventsPerBatch = 500

    static func run(_ arguments: ArraySlice<String>) async throws {
        let options = Self.options(arguments)
        var logger = Logger(label: "flag-server-bench")
        logger.logLevel = .warning
        let batches = options.batches
        print("\(batches) batches of \(eventsPerBatch) events (\(batches * eventsPerBatch) events) per run, groups \(options.groups)")
        print("| store | batches per call | events/s | p50 per call (ms) | p99 per call (ms) | peak RSS (MB) |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flag-server-bench-events-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for group in options.groups where options.sqlite {
            let path = directory.appendingPathComponent("events-\(group).sqlite").path
            let store = if let interval = options.checkpointInterval {
                try await SQLiteFlagEventStore(path: path, checkpointInterval: interval, logger: logger)
            } else {
                try await SQLiteFlagEventStore(path: path, logger: logger)
            }
            try await store.migrate()
            try await measure("SQLite store", group: group, batches: batches) { _ = try await store.ingest($0) }
            await store.close()

            let baseline = try await SQLiteBaseline(path: directory.appendingPathComponent("plain-\(group).sqlite").path, logger: logger)
            try await measure("SQLite plain INSERT", group: group, batches: batches) { try await baseline.insert($0) }
            try await baseline.close()
        }
        guard let url = options.databaseURL else { return }
        for group in options.groups {
            var configuration = try PostgresConfiguration(url: url)
            configuration.schema = "bench_events_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
            let store = PostgresFlagEventStore(configuration: configuration, logger: logger)
            try await store.migrate()
            try await measure("PostgreSQL store", group: group, batches: batches) { _ = try await store.ingest($0) }
            await store.close()
            if options.concurrency > 1 {
                // Several callers at once (concurrent requests, or replicas), each on a connection
                // of the store's pool: PostgreSQL works on one transaction per connection.
                var other = configuration
                other.schema = configuration.schema.map { $0 + "_c" }
                let store = PostgresFlagEventStore(configuration: other, maximumConnections: options.concurrency, logger: logger)
                try await store.migrate()
                try await measureConcurrently(
                    "PostgreSQL store, \(options.concurrency) callers", group: group, batches: batches, callers: options.concurrency
                ) { _ = try await store.ingest($0) }
                await store.close()
                try await PostgresBaseline.dropSchema(other, logger: logger)
            }

            let baseline = try await PostgresBaseline(configuration: configuration, logger: logger)
            try await measure("PostgreSQL plain COPY", group: group, batches: batches) { try await baseline.insert($0) }
            try await baseline.close()
            try await PostgresBaseline.dropSchema(configuration, logger: logger)
        }
    }

    /// Calls `ingest` with `group` batches at a time, one call after another, and prints a row of
    /// the table. Each call's batches are made just before it (not timed), so the memory measured
    /// is the store's and one call's batches, not the whole run's input.
    static func measure(
        _ name: String, group: Int, batches count: Int, _ ingest: ([EventBatch]) async throws -> Void
    ) async throws {
        resetPeakMemory()
        let clock = ContinuousClock()
        var latencies: [Duration] = []
        var events = 0
        for first in stride(from: 0, to: count, by: group) {
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let call = (first..<min(first + group, count)).map { batch($0, now: now) }
            events += call.reduce(0) { $0 + $1.eventCount }
            let before = clock.now
            try await ingest(call)
            latencies.append(clock.now - before)
        }
        let elapsed = latencies.reduce(Duration.zero, +)
        latencies.sort()
        func percentile(_ p: Double) -> String {
            let index = min(latencies.count - 1, Int((Double(latencies.count) * p).rounded(.up)) - 1)
            return String(format: "%.1f", milliseconds(latencies[max(0, index)]))
        }
        let rate = Double(events) / (milliseconds(elapsed) / 1000)
        print("| \(name) | \(group) | \(Int(rate.rounded())) | \(percentile(0.5)) | \(percentile(0.99)) | \(peakMemoryMegabytes()) |")
    }

    /// As ``measure(_:group:batches:_:)`` with `callers` calling at once, each its share of the
    /// calls one after another; the rate is over the wall-clock time of the whole run (making
    /// each call's batches included).
    static func measureConcurrently(
        _ name: String, group: Int, batches count: Int, callers: Int, _ ingest: @escaping @Sendable ([EventBatch]) async throws -> Void
    ) async throws {
        resetPeakMemory()
        let clock = ContinuousClock()
        let start = clock.now
        let calls = Array(stride(from: 0, to: count, by: group))
        var latencies: [Duration] = []
        var events = 0
        try await withThrowingTaskGroup(of: (latencies: [Duration], events: Int).self) { tasks in
            for caller in 0..<callers {
                let mine = calls.enumerated().filter { $0.offset % callers == caller }.map(\.element)
                tasks.addTask {
                    var latencies: [Duration] = []
                    var events = 0
                    for first in mine {
                        let now = Int64(Date().timeIntervalSince1970 * 1000)
                        let call = (first..<min(first + group, count)).map { batch($0, now: now) }
                        events += call.reduce(0) { $0 + $1.eventCount }
                        let before = clock.now
                        try await ingest(call)
                        latencies.append(clock.now - before)
                    }
                    return (latencies, events)
                }
            }
            for try await result in tasks {
                latencies += result.latencies
                events += result.events
            }
        }
        let elapsed = clock.now - start
        latencies.sort()
        func percentile(_ p: Double) -> String {
            let index = min(latencies.count - 1, Int((Double(latencies.count) * p).rounded(.up)) - 1)
            return String(format: "%.1f", milliseconds(latencies[max(0, index)]))
        }
        let rate = Double(events) / (milliseconds(elapsed) / 1000)
        print("| \(name) | \(group) | \(Int(rate.rounded())) | \(percentile(0.5)) | \(percentile(0.99)) | \(peakMemoryMegabytes()) |")
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    static let sources = ["4.1", "4.2", "4.3"].flatMap { version in
        ["iOS", "Android"].map { EventBatch.EventSource(appVersion: version, buildConfiguration: "release", platform: $0) }
    }
    static let reasons = ["SPLIT", "TARGETING_MATCH", "STATIC", "DEFAULT"]

    /// Batch number `index` of 500 events: the same events on every run (a seed per batch), the
    /// times within the hour before `now`.
    static func batch(_ index: Int, now: Int64) -> EventBatch {
        var random = SplitMix(seed: 42 &+ UInt64(index))
        var summaries: [EventBatch.Summary] = []
        var exposures: [EventBatch.Exposure] = []
        var tracked: [EventBatch.Tracked] = []
        let unit = "user-\(random.next(50_000))"
        for event in 0..<eventsPerBatch {
            let flag = "flag-\(random.next(200))"
            let variant = random.next(2) == 0 ? "on" : "off"
            let reason = reasons[random.next(reasons.count)]
            let time = now - Int64(random.next(3_600_000))
            switch event % 20 {
            case 0..<9:
                summaries.append(EventBatch.Summary(
                    flag: flag, variant: variant, reason: reason, count: 1 + random.next(1000), start: time - 60_000, end: time))
            case 9..<18:
                exposures.append(EventBatch.Exposure(
                    flag: flag, variant: variant, value: .bool(variant == "on"), reason: reason, revision: "\"r42\"",
                    unit: random.next(10) == 0 ? "user-\(random.next(50_000))" : unit, time: time))
            default:
                tracked.append(EventBatch.Tracked(
                    name: "event-\(random.next(20))", value: Double(random.next(10_000)) / 100,
                    attributes: ["plan": "pro"], unit: unit, variants: [flag: variant], time: time))
            }
        }
        return EventBatch(
            id: UUID().uuidString, environment: "production", receivedAt: now, source: sources[index % sources.count],
            exposures: exposures, summaries: summaries, tracked: tracked)
    }

    /// One row of the plain table per event: its kind, then every field any kind has.
    static func plainRows(_ batch: EventBatch) -> [[String?]] {
        let source = [batch.source.appVersion, batch.source.platform, batch.id, String(batch.receivedAt)]
        return batch.summaries.map { summary in
            ["summary", batch.environment, summary.flag, summary.variant, summary.reason, nil, nil, String(summary.count),
             String(summary.start)] + source
        } + batch.exposures.map { exposure in
            ["exposure", batch.environment, exposure.flag, exposure.variant, exposure.reason, exposure.unit,
             exposure.value?.serialized(), nil, String(exposure.time)] + source
        } + batch.tracked.map { event in
            ["tracked", batch.environment, event.name, nil, nil, event.unit, JSONValue.object(event.attributes).serialized(),
             event.value.map { String($0) }, String(event.time)] + source
        }
    }

    static let plainColumns = [
        "kind", "environment", "name", "variant", "reason", "unit", "value", "number", "time", "app_version", "platform",
        "batch", "received_at",
    ]

    /// Resets the kernel's peak resident memory of this process (`VmHWM`).
    static func resetPeakMemory() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// `VmHWM` of `/proc/self/status`, in megabytes ("?" where there is none).
    static func peakMemoryMegabytes() -> String {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return "?" }
        return String(kilobytes / 1024)
    }

    static func options(_ arguments: ArraySlice<String>) -> Options {
        var options = Options()
        options.databaseURL = ProcessInfo.processInfo.environment["FLAG_SERVER_BENCH_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        var arguments = arguments
        func usage() -> Never {
            FileHandle.standardError.write(Data(
                "usage: flag-server-bench --events [--batches N] [--groups 1,10,50] [--checkpoint-interval N] [--database-url postgres://… [--postgres-only] [--concurrency N]]\n".utf8))
            exit(2)
        }
        while let argument = arguments.popFirst() {
            switch argument {
            case "--batches":
                guard let value = arguments.popFirst().flatMap(Int.init), value >= 1 else { usage() }
                options.batches = value
            case "--groups":
                guard let list = arguments.popFirst() else { usage() }
                let groups = list.split(separator: ",").compactMap { Int($0) }
                guard !groups.isEmpty, groups.allSatisfy({ $0 >= 1 }) else { usage() }
                options.groups = groups
            case "--database-url":
                guard let url = arguments.popFirst() else { usage() }
                options.databaseURL = url
            case "--postgres-only":
                options.sqlite = false
            case "--concurrency":
                guard let value = arguments.popFirst().flatMap(Int.init), value >= 1 else { usage() }
                options.concurrency = value
            case "--checkpoint-interval":
                guard let value = arguments.popFirst().flatMap(Int.init), value >= 1 else { usage() }
                options.checkpointInterval = value
            default: usage()
            }
        }
        return options
    }
}

/// A small deterministic generator (SplitMix64), so that every run ingests the same events.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}

/// The SQLite baseline: the events as rows of one plain table, WAL and `synchronous=FULL` as the
/// store, multi-row `INSERT`s of at most 8,000 parameters (as the store), one transaction per call.
struct SQLiteBaseline {
    let connection: SQLiteConnection

    init(path: String, logger: Logger) async throws {
        connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        _ = try await connection.query("PRAGMA journal_mode=WAL")
        _ = try await connection.query("PRAGMA synchronous=FULL")
        _ = try await connection.query(
            "CREATE TABLE plain (" + EventIngestBenchmark.plainColumns.map { "\($0) TEXT" }.joined(separator: ", ") + ")")
    }

    func insert(_ batches: [EventBatch]) async throws {
        let rows = batches.flatMap(EventIngestBenchmark.plainRows)
        let columns = EventIngestBenchmark.plainColumns.count
        let row = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
        let perStatement = 8_000 / columns
        _ = try await connection.query("BEGIN IMMEDIATE")
        for start in stride(from: 0, to: rows.count, by: perStatement) {
            let chunk = rows[start..<min(start + perStatement, rows.count)]
            _ = try await connection.query(
                "INSERT INTO plain VALUES " + Array(repeating: row, count: chunk.count).joined(separator: ", "),
                chunk.flatMap { $0.map { $0.map(SQLiteData.text) ?? .null } })
        }
        _ = try await connection.query("COMMIT")
    }

    func close() async throws {
        try await connection.close()
    }
}

/// The PostgreSQL baseline: the events as rows of one plain table, `COPY`'d in one transaction per call.
struct PostgresBaseline {
    let connection: PostgresConnection
    let logger: Logger

    init(configuration: PostgresConfiguration, logger: Logger) async throws {
        self.logger = logger
        connection = try await PostgresConnection.connect(
            configuration: Self.connectionConfiguration(configuration), id: 1, logger: logger)
        try await connection.query(
            PostgresQuery(
                unsafeSQL: "CREATE TABLE plain ("
                    + EventIngestBenchmark.plainColumns.map { "\($0) TEXT" }.joined(separator: ", ") + ")"),
            logger: logger)
    }

    static func connectionConfiguration(_ configuration: PostgresConfiguration) -> PostgresConnection.Configuration {
        var options = PostgresConnection.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.username,
            password: configuration.password, database: configuration.database, tls: .disable)
        if let schema = configuration.schema {
            options.options.additionalStartupParameters = [("search_path", schema)]
        }
        return options
    }

    func insert(_ batches: [EventBatch]) async throws {
        var buffer = ByteBuffer()
        for batch in batches {
            for row in EventIngestBenchmark.plainRows(batch) {
                buffer.writeString(row.map { $0.map(Self.escaped) ?? "\\N" }.joined(separator: "\t"))
                buffer.writeString("\n")
            }
        }
        try await connection.query("BEGIN", logger: logger)
        try await connection.copyFrom(table: "plain", logger: logger) { writer in try await writer.write(buffer) }
        try await connection.query("COMMIT", logger: logger)
    }

    /// A field of COPY's text format.
    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "\\": result += "\\\\"
            case "\t": result += "\\t"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            default: result.append(character)
            }
        }
        return result
    }

    func close() async throws {
        try await connection.close()
    }

    static func dropSchema(_ configuration: PostgresConfiguration, logger: Logger) async throws {
        guard let schema = configuration.schema else { return }
        var plain = configuration
        plain.schema = nil
        let connection = try await PostgresConnection.connect(configuration: connectionConfiguration(plain), id: 2, logger: logger)
        try await connection.query(PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema) CASCADE"), logger: logger)
        try await connection.close()
    }
}
