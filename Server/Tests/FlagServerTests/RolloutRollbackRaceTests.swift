@testable import FlagServer
@testable import FlagServerModel
import Foundation
import Testing

/// A person's rollback whose plan another writer saved between the rollback's settings write and
/// its own save of the plan (the executor takes a lease on a running plan at each evaluation,
/// a new version). It used to answer 409 although the flag was rolled back, and the plan still
/// said "running" (seen in CI, 2026-11-27).
@Suite
struct RolloutRollbackRaceTests {
    /// A rollout store that lets another writer save the plan once, just before the first update.
    final class InterleavingStore: RolloutStore, @unchecked Sendable {
        let base: any RolloutStore
        private let lock = NSLock()
        private var interleaved = false
        init(_ base: any RolloutStore) { self.base = base }

        func updateRolloutPlan(_ plan: RolloutPlan) async throws(StoreError) {
            let first = lock.withLock { () -> Bool in
                defer { interleaved = true }
                return !interleaved
            }
            if first, var other = try await base.rolloutPlan(id: plan.id) {
                other.version += 1
                other.lease = .init(holder: "other-replica", until: Date(timeIntervalSince1970: 0))
                try await base.updateRolloutPlan(other)
            }
            try await base.updateRolloutPlan(plan)
        }

        func insertRolloutPlan(_ plan: RolloutPlan) async throws(StoreError) { try await base.insertRolloutPlan(plan) }
        func rolloutPlan(id: String) async throws(StoreError) -> RolloutPlan? { try await base.rolloutPlan(id: id) }
        func rolloutPlans(environment: String, flag: String?, limit: Int) async throws(StoreError) -> [RolloutPlan] {
            try await base.rolloutPlans(environment: environment, flag: flag, limit: limit)
        }
        func runningRolloutPlans() async throws(StoreError) -> [RolloutPlan] { try await base.runningRolloutPlans() }
        func deleteRolloutPlan(id: String) async throws(StoreError) -> Bool { try await base.deleteRolloutPlan(id: id) }
        func rolloutTemplates() async throws(StoreError) -> [RolloutTemplate] { try await base.rolloutTemplates() }
        func rolloutTemplate(name: String) async throws(StoreError) -> RolloutTemplate? { try await base.rolloutTemplate(name: name) }
        func putRolloutTemplate(_ template: RolloutTemplate) async throws(StoreError) { try await base.putRolloutTemplate(template) }
        func deleteRolloutTemplate(name: String) async throws(StoreError) -> Bool { try await base.deleteRolloutTemplate(name: name) }
    }

    /// A server without its rollout executor, with a plan running on "checkout" in production.
    static func withRunningPlan(_ body: (TestServer, Rollouts, RolloutPlan) async throws -> Void) async throws {
        try await TestServer.with(rolloutTickInterval: nil) { server in
            try await server.booleanFlag("checkout", enabled: true, defaultVariant: "off")
            let stored = try #require(server.server.rollouts)
            let plan = RolloutGuardrailTests.plan()
            _ = try await stored.create(plan)
            try await body(server, stored, try await stored.start(id: plan.id, environment: "production", actor: "ada"))
        }
    }

    /// `stored`'s rollouts over a store that lets another writer save the plan just before their first update.
    static func racing(_ stored: Rollouts) -> Rollouts {
        Rollouts(admin: stored.admin, store: InterleavingStore(stored.store), events: nil, results: nil)
    }

    @Test
    func aRollbackRacingAnotherSaveOfItsPlanIsRecordedNotRefused() async throws {
        try await Self.withRunningPlan { server, stored, plan in
            let rolledBack = try await Self.racing(stored).rollback(id: plan.id, environment: "production", actor: "ada", comment: "crashes")
            #expect(rolledBack.status == .rolledBack)
            let reread = try await stored.plan(id: plan.id, environment: "production")
            #expect(reread.status == .rolledBack)
            #expect(reread.history.last?.action == .rolledBack && reread.history.last?.comment == "crashes")
            #expect(await server.server.admin.state.environments["production"]?.settings["checkout"]?.targeting == nil)
        }
    }

    /// A person's pause or resume whose plan the executor saved between the read and the save
    /// applies to the newer version instead of answering 409 (it used to, and the console then
    /// asked the person to try again).
    @Test
    func aPauseAndAResumeRacingAnotherSaveOfTheirPlanApply() async throws {
        try await Self.withRunningPlan { _, stored, plan in
            let paused = try await Self.racing(stored).pause(id: plan.id, environment: "production", actor: "ada", comment: "looking")
            #expect(paused.status == .paused && paused.lease == nil)
            var reread = try await stored.plan(id: plan.id, environment: "production")
            #expect(reread.status == .paused && reread.lease == nil)
            #expect(reread.history.last?.action == .paused && reread.history.last?.comment == "looking")

            let resumed = try await Self.racing(stored).resume(id: plan.id, environment: "production", actor: "ada")
            #expect(resumed.status == .running)
            reread = try await stored.plan(id: plan.id, environment: "production")
            #expect(reread.status == .running && reread.history.last?.action == .resumed)
            #expect(reread.history.filter { $0.action == .paused }.count == 1)
        }
    }
}
