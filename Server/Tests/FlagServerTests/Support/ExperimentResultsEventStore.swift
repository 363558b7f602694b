@testable import FlagServer
@testable import FlagServerModel
import FlagStatistics
import Foundation
import Synchronization

/// An event store that computes experiment results: it answers every query with fixed totals and
/// records the queries it was given (and the experiments whose results it was told to forget).
final class ExperimentResultsEventStore: FlagEventStore, ExperimentResultsStore {
    let rows: FixedRowsEventStore
    let totals: ExperimentTotals
    let queries = Mutex<[ExperimentResultsQuery]>([])
    let deleted = Mutex<[String]>([])

    init(totals: ExperimentTotals, rows: FixedRowsEventStore = FixedRowsEventStore()) {
        self.totals = totals
        self.rows = rows
    }

    /// Experiment results only (what this store is for).
    var capabilities: EventStoreCapabilities { EventStoreCapabilities(experimentResults: self) }

    func updateResults(_ query: ExperimentResultsQuery, now: Int64) async throws(StoreError) -> ExperimentTotals {
        queries.withLock { $0.append(query) }
        return totals
    }

    func deleteResults(experiment: String) async throws(StoreError) { deleted.withLock { $0.append(experiment) } }

    func migrate() async throws(StoreError) {}
    func ingest(_ batches: [EventBatch]) async throws(StoreError) -> [Bool] { batches.map { _ in false } }
    func rollups(
        environment: String, flag: String?, granularity: RollupGranularity, from: Int64, to: Int64
    ) async throws(StoreError) -> [EvaluationRollup] {
        try await rows.rollups(environment: environment, flag: flag, granularity: granularity, from: from, to: to)
    }
    func unitCounts(environment: String, flag: String?, from: Int64, to: Int64) async throws(StoreError) -> [UnitCount] {
        try await rows.unitCounts(environment: environment, flag: flag, from: from, to: to)
    }
    func lastEvaluated(environment: String) async throws(StoreError) -> [String: Int64] { [:] }
    func trackedCounts(environment: String, from: Int64, to: Int64) async throws(StoreError) -> [TrackedCount] { [] }
    func trackedEvents(
        environment: String, name: String, from: Int64, to: Int64, limit: Int
    ) async throws(StoreError) -> [EventBatch.Tracked] { [] }
    func exposures(
        environment: String, flag: String, from: Int64, to: Int64, limit: Int
    ) async throws(StoreError) -> [StoredExposure] { [] }
    func deleteExpired(rawBefore time: Int64, hourlyBefore: Int64) async throws(StoreError) -> Int { 0 }
    func close() async {}

    /// 1000 units per arm of `off`/`on`, metric `buy` converting 10 % and 14 %.
    static func sample() -> ExperimentTotals {
        func arm(_ units: Double, _ converted: Double) -> ArmStatistics {
            ArmStatistics(units: units, sum: converted)
        }
        return ExperimentTotals(
            units: ["off": 1000, "on": 1000], reassignedUnits: [:],
            metrics: ["buy": ["off": arm(1000, 100), "on": arm(1000, 140)]], daily: [], countedThrough: 1_800_000_000_000)
    }
}
