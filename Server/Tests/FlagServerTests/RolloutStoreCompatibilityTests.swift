import FlagEvaluation
@testable import FlagServer
import Foundation
import Testing

/// What every ``RolloutStore`` (both flag stores) and every ``RolloutEventCounting`` (both event
/// stores) must do.
struct RolloutStoreCompatibilityTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    static func with(_ kind: Kind, _ body: (any RolloutStore) async throws -> Void) async throws {
        let store: any FlagStore & RolloutStore
        switch kind {
        case .sqlite: store = try await SQLiteFlagStore(path: nil)
        case .postgres:
            if !PostgresTestDatabase.enabled { try Test.cancel(Comment(rawValue: PostgresTestDatabase.missing)) }
            store = try PostgresTestDatabase.makeStore()
        }
        try await store.migrate()
        do { try await body(store) } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    @Test(arguments: Kind.allCases)
    func plansAreStoredWholeAndUpdatedByCompareAndSet(_ kind: Kind) async throws {
        try await Self.with(kind) { store in
            var plan = RolloutGuardrailTests.plan()
            try await store.insertRolloutPlan(plan)
            await #expect(throws: StoreError.self) { try await store.insertRolloutPlan(plan) }
            #expect(try await store.rolloutPlan(id: plan.id) == plan)
            #expect(try await store.runningRolloutPlans().isEmpty)

            plan.status = .running
            plan.currentStep = 0
            plan.stepStartedAt = Date(timeIntervalSince1970: 1_800_000_100.5)
            plan.version = 2
            try await store.updateRolloutPlan(plan)
            #expect(try await store.rolloutPlan(id: plan.id) == plan)
            #expect(try await store.runningRolloutPlans().map(\.id) == [plan.id])
            // Based on an older version: refused, the stored plan unchanged.
            var stale = plan
            stale.status = .paused
            await #expect(throws: StoreError.self) { try await store.updateRolloutPlan(stale) }
            #expect(try await store.rolloutPlan(id: plan.id)?.status == .running)

            var other = RolloutGuardrailTests.plan()
            other.id = "plan-2"
            other.flag = "search"
            other.createdAt = plan.createdAt.addingTimeInterval(60)
            try await store.insertRolloutPlan(other)
            #expect(try await store.rolloutPlans(environment: "production", flag: nil, limit: 10).map(\.id) == ["plan-2", "plan-1"])
            #expect(try await store.rolloutPlans(environment: "production", flag: "checkout", limit: 10).map(\.id) == ["plan-1"])
            #expect(try await store.rolloutPlans(environment: "staging", flag: nil, limit: 10).isEmpty)
            #expect(try await store.deleteRolloutPlan(id: "plan-2"))
            #expect(try await !store.deleteRolloutPlan(id: "plan-2"))
            #expect(try await store.rolloutPlan(id: "plan-2") == nil)
        }
    }

    @Test(arguments: Kind.allCases)
    func templatesAreStoredByName(_ kind: Kind) async throws {
        try await Self.with(kind) { store in
            var template = RolloutTemplate(
                name: "careful", steps: [.init(percent: 1, durationSeconds: 3_600), .init(percent: 100, durationSeconds: 1)],
                guardrails: [RolloutGuardrailTests.crash], createdAt: Date(timeIntervalSince1970: 1_800_000_000))
            try await store.putRolloutTemplate(template)
            await #expect(throws: StoreError.self) { try await store.putRolloutTemplate(template) }
            template.description = "one percent for an hour"
            template.version = 2
            try await store.putRolloutTemplate(template)
            await #expect(throws: StoreError.self) { try await store.putRolloutTemplate(template) }
            #expect(try await store.rolloutTemplate(name: "careful") == template)
            #expect(try await store.rolloutTemplates() == [template])
            #expect(try await store.deleteRolloutTemplate(name: "careful"))
            #expect(try await store.rolloutTemplates().isEmpty)
        }
    }

    @Test(arguments: FlagEventStoreCompatibilityTests.Kind.allCases)
    func trackedEventsAreCountedByTheFlagsVariantSinceATime(_ kind: FlagEventStoreCompatibilityTests.Kind) async throws {
        try await FlagEventStoreCompatibilityTests.with(kind) { store, _ in
            let counting = try #require(store as? any RolloutEventCounting)
            let t0 = FlagEventStoreCompatibilityTests.t0
            func tracked(_ name: String, _ variants: [String: String], at time: Int64) -> EventBatch.Tracked {
                EventBatch.Tracked(name: name, unit: "u", variants: variants, time: time)
            }
            _ = try await store.ingest([
                FlagEventStoreCompatibilityTests.batch("1", tracked: [
                    tracked("$session", ["checkout": "on", "search.v2": "a"], at: t0),
                    tracked("$session", ["checkout": "on"], at: t0 + 10),
                    tracked("$session", ["checkout": "off"], at: t0 + 10),
                    tracked("$session", ["search.v2": "b"], at: t0 + 10),
                    tracked("$session", [:], at: t0 + 10),
                    tracked("$crash", ["checkout": "on"], at: t0 + 20),
                    tracked("$session", ["checkout": "on"], at: t0 - 1),
                ]),
                FlagEventStoreCompatibilityTests.batch(
                    "2", environment: "staging", tracked: [tracked("$session", ["checkout": "on"], at: t0)]),
            ])
            #expect(try await counting.trackedCountsByVariant(environment: "prod", name: "$session", flag: "checkout", since: t0)
                == ["on": 2, "off": 1])
            #expect(try await counting.trackedCountsByVariant(environment: "prod", name: "$crash", flag: "checkout", since: t0) == ["on": 1])
            #expect(try await counting.trackedCountsByVariant(environment: "prod", name: "$session", flag: "search.v2", since: t0)
                == ["a": 1, "b": 1])
            #expect(try await counting.trackedCountsByVariant(environment: "prod", name: "$session", flag: "checkout", since: t0 + 5)
                == ["on": 1, "off": 1])
        }
    }
}
