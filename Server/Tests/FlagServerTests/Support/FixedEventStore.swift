@testable import FlagServer
@testable import FlagServerModel
import Foundation
import Synchronization

/// An event store that answers the rollups, unit counts and last evaluations it was given (only
/// the rows a real store would: of the environment, the flag and the range asked for), and
/// records what it was asked. Ingestion and the raw-event reads are not what insights use: they
/// store nothing and read nothing.
final class FixedEventStore: FlagEventStore {
    struct Query: Sendable, Hashable {
        var kind: String
        var environment: String
        var flag: String?
        var granularity: RollupGranularity?
        var from: Int64
        var to: Int64
    }

    let environment: String
    let hourly: [EvaluationRollup]
    let daily: [EvaluationRollup]
    let units: [UnitCount]
    let lastEvaluatedTimes: [String: Int64]
    private let asked = Mutex<[Query]>([])

    init(
        environment: String = "production", hourly: [EvaluationRollup] = [], daily: [EvaluationRollup] = [], units: [UnitCount] = [],
        lastEvaluated: [String: Int64] = [:]
    ) {
        self.environment = environment
        self.hourly = hourly
        self.daily = daily
        self.units = units
        self.lastEvaluatedTimes = lastEvaluated
    }

    /// The rollup and unit count queries received, in order.
    var queries: [Query] { asked.withLock { $0 } }

    func migrate() async throws(StoreError) {}

    func ingest(_ batches: [EventBatch]) async throws(StoreError) -> [Bool] { batches.map { _ in false } }

    func rollups(
        environment: String, flag: String?, granularity: RollupGranularity, from: Int64, to: Int64
    ) async throws(StoreError) -> [EvaluationRollup] {
        asked.withLock { $0.append(Query(kind: "rollups", environment: environment, flag: flag, granularity: granularity, from: from, to: to)) }
        guard environment == self.environment else { return [] }
        return (granularity == .hour ? hourly : daily).filter { ($0.flag == flag || flag == nil) && $0.bucket >= from && $0.bucket < to }
    }

    func unitCounts(environment: String, flag: String?, from: Int64, to: Int64) async throws(StoreError) -> [UnitCount] {
        asked.withLock { $0.append(Query(kind: "units", environment: environment, flag: flag, granularity: nil, from: from, to: to)) }
        guard environment == self.environment else { return [] }
        return units.filter { ($0.flag == flag || flag == nil) && $0.day >= from && $0.day < to }
    }

    func lastEvaluated(environment: String) async throws(StoreError) -> [String: Int64] {
        environment == self.environment ? lastEvaluatedTimes : [:]
    }

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

extension TestServer {
    /// A real server with the console and `eventStore`, whose clock reads `now`.
    static func withEvents<T: Sendable>(
        _ eventStore: (any FlagEventStore)?, now: Date, _ body: (TestServer) async throws -> T
    ) async throws -> T {
        let store = try await SQLiteFlagStore(path: nil)
        let (server, bootstrap) = try await FlagServer.start(
            store: store, eventStore: eventStore, configuration: FlagServer.Configuration(limits: .forTests, rateLimiter: nil),
            consoleAccounts: ConsoleAccounts(store: store, passwordCost: 4), now: { now })
        return try await TestServer.serving(server, bootstrap: bootstrap, store: store, body)
    }
}
