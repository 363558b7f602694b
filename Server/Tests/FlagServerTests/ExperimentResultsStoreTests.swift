import FlagStatistics
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import Testing

/// ``ExperimentResultsStore`` on every event store (SQLite in memory and in a file, PostgreSQL):
/// incremental updates interleaved with ingests match a naive recount of the raw rows.
struct ExperimentResultsStoreTests {
    typealias Compatibility = FlagEventStoreCompatibilityTests
    static let t0 = Compatibility.t0
    static let day = RollupGranularity.day.milliseconds

    static let query = ExperimentResultsQuery(
        experiment: "exp-1", environment: "prod", flag: "checkout", arms: ["control", "treatment"], start: t0, end: nil,
        metrics: [
            .init(key: "converted", event: "purchase", kind: .conversion, window: 2 * day, covariate: true),
            .init(key: "revenue", event: "purchase", kind: .mean, window: 2 * day, covariate: true),
            .init(key: "clicks", event: "click", kind: .count, window: day / 2, covariate: false),
        ])

    /// The rows ingested so far, one batch per ingest, for the naive recount.
    final class Log: @unchecked Sendable {
        var exposures: [(sequence: Int64, exposure: ExperimentResultsCounter.Exposure)] = []
        var events: [(sequence: Int64, event: ExperimentResultsCounter.Event)] = []
        var batches = 0

        /// A random batch with rows the query must ignore too (another environment or flag, no unit).
        func next(using random: inout SplitMix) -> EventBatch {
            batches += 1
            let sequence = Int64(batches)
            let (exposures, events) = ExperimentResultsCounterTests.randomBatch(units: (0..<12).map { "u\($0)" }, using: &random)
            // Times relative to the counter tests' start, moved to this suite's.
            let shift = ExperimentResultsStoreTests.t0 - ExperimentResultsCounterTests.start
            let moved = exposures.map { ExperimentResultsCounter.Exposure(unit: $0.unit, variant: $0.variant, time: $0.time + shift) }
            let movedEvents = events.map { ExperimentResultsCounter.Event(unit: $0.unit, name: $0.name, value: $0.value, time: $0.time + shift) }
            self.exposures += moved.map { (sequence, $0) }
            self.events += movedEvents.map { (sequence, $0) }
            var rawExposures = moved.map { EventBatch.Exposure(flag: "checkout", variant: $0.variant, reason: "SPLIT", unit: $0.unit, time: $0.time) }
            rawExposures.append(EventBatch.Exposure(flag: "other", variant: "control", reason: "SPLIT", unit: "u1", time: ExperimentResultsStoreTests.t0))
            rawExposures.append(EventBatch.Exposure(flag: "checkout", variant: "control", reason: "SPLIT", unit: nil, time: ExperimentResultsStoreTests.t0))
            var tracked = movedEvents.map { EventBatch.Tracked(name: $0.name, value: $0.value, unit: $0.unit, time: $0.time) }
            tracked.append(EventBatch.Tracked(name: "purchase", value: 3, unit: nil, time: ExperimentResultsStoreTests.t0))
            return EventBatch(
                id: String(format: "b%05d", batches), environment: "prod", receivedAt: ExperimentResultsStoreTests.t0 + Int64(batches),
                source: Compatibility.ios, exposures: rawExposures, tracked: tracked)
        }

        func expected(_ query: ExperimentResultsQuery, now: Int64) -> ExperimentTotals {
            Naive(query: query).totals(exposures: exposures, events: events, now: now)
        }
    }

    static func results(_ store: any FlagEventStore) throws -> any ExperimentResultsStore {
        try #require(store as? any ExperimentResultsStore)
    }

    @Test(arguments: StoreKind.allCases)
    func incrementalUpdatesMatchANaiveRecount(_ kind: StoreKind) async throws {
        try await Compatibility.with(kind) { store, _ in
            let results = try Self.results(store)
            let log = Log()
            var random = SplitMix(seed: 7)
            let now = Self.t0 + 5 * Self.day
            for round in 0..<12 {
                for _ in 0..<Int.random(in: 0...3, using: &random) {
                    _ = try await store.ingest([log.next(using: &random)])
                }
                let totals = try await results.updateResults(Self.query, now: now)
                ExperimentResultsCounterTests.expectClose(totals, log.expected(Self.query, now: now), "\(kind) round \(round)")
            }
            // Nothing new: the same totals.
            let again = try await results.updateResults(Self.query, now: now)
            ExperimentResultsCounterTests.expectClose(again, log.expected(Self.query, now: now), "\(kind) again")
            #expect(again.units.values.reduce(0, +) > 0)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aChangedQueryRecountsAndDeletedResultsStartOver(_ kind: StoreKind) async throws {
        try await Compatibility.with(kind) { store, _ in
            let results = try Self.results(store)
            let log = Log()
            var random = SplitMix(seed: 11)
            for _ in 0..<8 { _ = try await store.ingest([log.next(using: &random)]) }
            let now = Self.t0 + 3 * Self.day
            _ = try await results.updateResults(Self.query, now: now)
            var changed = Self.query
            changed.arms = ["treatment"]
            changed.metrics[1].window = Self.day
            ExperimentResultsCounterTests.expectClose(
                try await results.updateResults(changed, now: now), log.expected(changed, now: now), "\(kind) changed")
            // The raw events expire: the counted state stays until it is deleted; then nothing is left to count.
            _ = try await store.deleteExpired(rawBefore: Self.t0 + 1000, hourlyBefore: Self.t0)
            #expect(try await results.updateResults(changed, now: now).units["treatment"] == log.expected(changed, now: now).units["treatment"])
            try await results.deleteResults(experiment: changed.experiment)
            #expect(try await results.updateResults(changed, now: now).units == ["treatment": 0])
        }
    }

    /// Two replicas (two stores on one database) update one experiment at once while batches
    /// arrive: each unit is counted once.
    @Test(arguments: [StoreKind.sqliteFile, .postgres])
    func replicasUpdatingAtOnceCountEachUnitOnce(_ kind: StoreKind) async throws {
        try await Compatibility.with(kind) { store, location in
            let other = try await Compatibility.open(location)
            do {
                let log = Log()
                var random = SplitMix(seed: 23)
                var made: [EventBatch] = []
                for _ in 0..<30 { made.append(log.next(using: &random)) }
                let batches = made
                let now = Self.t0 + 5 * Self.day
                let first = try Self.results(store), second = try Self.results(other)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for batch in batches { _ = try await store.ingest([batch]) }
                    }
                    for replica in [first, second] {
                        group.addTask {
                            for _ in 0..<15 { _ = try await replica.updateResults(Self.query, now: now) }
                        }
                    }
                    try await group.waitForAll()
                }
                ExperimentResultsCounterTests.expectClose(
                    try await first.updateResults(Self.query, now: now), log.expected(Self.query, now: now), "\(kind) first")
                ExperimentResultsCounterTests.expectClose(
                    try await second.updateResults(Self.query, now: now), log.expected(Self.query, now: now), "\(kind) second")
            } catch {
                await other.close()
                throw error
            }
            await other.close()
        }
    }
}
