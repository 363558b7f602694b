import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import FlagStatistics
import Foundation
import Testing

/// The suite every ``ExperimentStore`` passes: both flag stores (PostgreSQL with a test database,
/// as ``FlagStoreCompatibilityTests``).
struct ExperimentStoreCompatibilityTests {
    static func with(_ kind: StoreKind, _ body: (any ExperimentStore) async throws -> Void) async throws {
        try await kind.withFlagStore { store in try await body(store) }
    }

    @Test(arguments: StoreKind.allCases)
    func metricsAreStoredComparedAndSetAndDeleted(kind: StoreKind) async throws {
        try await Self.with(kind) { store in
            let metric = ExperimentMetric(
                key: "revenue", name: "Revenue", event: "purchase", kind: .mean, windowHours: 48, higherIsBetter: true, guardrail: false,
                cuped: true, version: 1, updatedAt: Date(timeIntervalSince1970: 1_800_000_000.25), updatedBy: "alice")
            try await store.insertExperimentMetric(metric)
            await #expect(throws: StoreError.self) { try await store.insertExperimentMetric(metric) }
            #expect(try await store.experimentMetrics() == [metric])
            var next = metric
            next.version = 2
            next.guardrail = true
            try await store.updateExperimentMetric(next)
            // A stale version (someone updated meanwhile) is a conflict; the stored one stays.
            await #expect(throws: StoreError.conflict("metric \"revenue\" changed meanwhile; read it again")) {
                try await store.updateExperimentMetric(next)
            }
            #expect(try await store.experimentMetrics() == [next])
            try await store.deleteExperimentMetric(key: "revenue")
            await #expect(throws: StoreError.notFound("metric \"revenue\"")) { try await store.deleteExperimentMetric(key: "revenue") }
            #expect(try await store.experimentMetrics().isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func experimentsAreStoredListedComparedAndSetAndDeleted(kind: StoreKind) async throws {
        try await Self.with(kind) { store in
            var first = ExperimentModelTests.draft()
            var second = ExperimentModelTests.draft()
            second.id = "exp-2"
            second.createdAt = first.createdAt.addingTimeInterval(10)
            var other = ExperimentModelTests.draft()
            other.id = "exp-3"
            other.environment = "staging"
            for experiment in [first, second, other] { try await store.insertExperiment(experiment) }
            await #expect(throws: StoreError.self) { try await store.insertExperiment(first) }
            #expect(try await store.experiment(id: "exp-1") == first)
            #expect(try await store.experiment(id: "ghost") == nil)
            #expect(try await store.experiments(environment: "production", limit: 10).map(\.id) == ["exp-2", "exp-1"])
            #expect(try await store.experiments(environment: "production", limit: 1).map(\.id) == ["exp-2"])
            #expect(try await store.experiments(environment: nil, limit: 10).count == 3)
            #expect(try await store.runningExperiments().isEmpty)

            let state = ExperimentModelTests.state(targeting: ExperimentModelTests.split)
            try first.start(
                allocation: ExperimentAllocation.current(flag: "checkout", environment: "production", in: state),
                at: first.createdAt, by: "bob")
            try await store.updateExperiment(first)
            #expect(try await store.runningExperiments() == [first])
            #expect(try await store.experiment(id: "exp-1")?.allocation == first.allocation)
            // The same version again: someone else updated it.
            await #expect(throws: StoreError.self) { try await store.updateExperiment(first) }
            second.version = 5
            await #expect(throws: StoreError.self) { try await store.updateExperiment(second) }
            var ghost = first
            ghost.id = "ghost"
            await #expect(throws: StoreError.notFound("experiment \"ghost\"")) { try await store.updateExperiment(ghost) }

            try await store.deleteExperiment(id: "exp-1")
            await #expect(throws: StoreError.notFound("experiment \"exp-1\"")) { try await store.deleteExperiment(id: "exp-1") }
            #expect(try await store.runningExperiments().isEmpty)
            #expect(try await store.experiments(environment: nil, limit: 10).map(\.id).sorted() == ["exp-2", "exp-3"])
        }
    }
}
