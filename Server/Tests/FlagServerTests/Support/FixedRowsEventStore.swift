@testable import FlagServer
@testable import FlagServerModel
import Foundation

/// A ``FlagEventStore`` answering rollup, unit-count and last-evaluated queries from rows a test
/// gives (filtered by environment, flag and time as the protocol says); it ingests nothing.
struct FixedRowsEventStore: FlagEventStore {
    var rollups: [String: [EvaluationRollup]] = [:]
    var unitCounts: [String: [UnitCount]] = [:]
    var lastEvaluated: [String: [String: Int64]] = [:]

    func migrate() async throws(StoreError) {}

    func ingest(_ batches: [EventBatch]) async throws(StoreError) -> [Bool] { batches.map { _ in false } }

    func rollups(
        environment: String, flag: String?, granularity: RollupGranularity, from: Int64, to: Int64
    ) async throws(StoreError) -> [EvaluationRollup] {
        guard granularity == .day else { return [] }
        return (rollups[environment] ?? []).filter { (flag == nil || $0.flag == flag) && $0.bucket >= from && $0.bucket < to }
    }

    func unitCounts(environment: String, flag: String?, from: Int64, to: Int64) async throws(StoreError) -> [UnitCount] {
        (unitCounts[environment] ?? []).filter { (flag == nil || $0.flag == flag) && $0.day >= from && $0.day < to }
    }

    func lastEvaluated(environment: String) async throws(StoreError) -> [String: Int64] { lastEvaluated[environment] ?? [:] }

    func trackedCounts(environment: String, from: Int64, to: Int64) async throws(StoreError) -> [TrackedCount] { [] }

    func trackedEvents(
        environment: String, name: String, from: Int64, to: Int64, limit: Int
    ) async throws(StoreError) -> [EventBatch.Tracked] { [] }

    func exposures(
        environment: String, flag: String, from: Int64, to: Int64, limit: Int
    ) async throws(StoreError) -> [StoredExposure] { [] }

    func deleteExpired(rawBefore time: Int64, hourlyBefore: Int64) async throws(StoreError) -> Int { 0 }

    func close() async {}
}
