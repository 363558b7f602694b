import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import Testing

/// What every ``RolloutStore`` (both flag stores) and every ``RolloutEventCounting`` (both event
/// stores) must do.
struct RolloutStoreCompatibilityTests {
    static func with(_ kind: StoreKind, _ body: (any RolloutStore) async throws -> Void) async throws {
        try await kind.withFlagStore { store in try await body(store) }
    }

    @Test(arguments: StoreKind.sqliteAndPostgres)
    func plansAreStoredWholeAndUpdatedByCompareAndSet(_ kind: StoreKind) async throws {
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

    @Test(arguments: StoreKind.sqliteAndPostgres)
    func templatesAreStoredByName(_ kind: StoreKind) async throws {
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

    @Test(arguments: StoreKind.allCases)
    func trackedEventsAreSummedPerUnitByTheFlagsVariantSinceATime(_ kind: StoreKind) async throws {
        try await FlagEventStoreCompatibilityTests.with(kind) { store, _ in
            let counting = try #require(store as? any RolloutEventCounting)
            let t0 = FlagEventStoreCompatibilityTests.t0
            func tracked(_ name: String, _ unit: String?, _ variants: [String: String], at time: Int64) -> EventBatch.Tracked {
                EventBatch.Tracked(name: name, unit: unit, variants: variants, time: time)
            }
            _ = try await store.ingest([
                FlagEventStoreCompatibilityTests.batch("1", tracked: [
                    // Unit u1 on "on": two clean sessions and one that crashed, reported twice.
                    tracked("$session", "u1", ["checkout": "on", "search.v2": "a"], at: t0),
                    tracked("$session", "u1", ["checkout": "on"], at: t0 + 10),
                    tracked("$crash", "u1", ["checkout": "on"], at: t0 + 20),
                    tracked("$crash", "u1", ["checkout": "on"], at: t0 + 21),
                    tracked("$error", "u1", ["checkout": "on"], at: t0 + 22),
                    tracked("$error", "u1", ["checkout": "on"], at: t0 + 23),
                    // Unit u2 on "on": one clean session. An event without a unit is a unit of its own.
                    tracked("$session", "u2", ["checkout": "on"], at: t0 + 10),
                    tracked("$session", nil, ["checkout": "on"], at: t0 + 10),
                    tracked("$session", "u3", ["checkout": "off"], at: t0 + 10),
                    tracked("$session", "u4", ["search.v2": "b"], at: t0 + 10),
                    tracked("$session", "u5", [:], at: t0 + 10),
                    // Before the time asked: not counted.
                    tracked("$session", "u2", ["checkout": "on"], at: t0 - 1),
                ]),
                FlagEventStoreCompatibilityTests.batch(
                    "2", environment: "staging", tracked: [tracked("$session", "u9", ["checkout": "on"], at: t0)]),
            ])
            let sessions = RolloutGuardrail.sessionEvents
            let crashes = try await counting.unitRatesByVariant(
                environment: "prod", name: "$crash", sessions: sessions, flag: "checkout", since: t0, capAtSessions: true)
            // u1: 4 sessions (2 clean, 2 crash reports), 2 crashes; u2 and the unit-less one: 1 session, no crash.
            #expect(crashes["on"] == UnitRateSums(units: 3, sessions: 6, sessionSquares: 18, events: 2, eventSquares: 4, products: 8))
            #expect(crashes["off"] == UnitRateSums(units: 1, sessions: 1, sessionSquares: 1, events: 0, eventSquares: 0, products: 0))
            let errors = try await counting.unitRatesByVariant(
                environment: "prod", name: "$error", sessions: sessions, flag: "checkout", since: t0, capAtSessions: false)
            #expect(errors["on"] == UnitRateSums(units: 3, sessions: 6, sessionSquares: 18, events: 2, eventSquares: 4, products: 8))
            let search = try await counting.unitRatesByVariant(
                environment: "prod", name: "$crash", sessions: sessions, flag: "search.v2", since: t0, capAtSessions: true)
            #expect(search.mapValues(\.units) == ["a": 1, "b": 1])
            // A unit's crashes count at most its sessions.
            let capped = try await counting.unitRatesByVariant(
                environment: "prod", name: "$crash", sessions: ["$session"], flag: "checkout", since: t0 + 15, capAtSessions: true)
            #expect(capped["on"]?.events == 0)
            let uncapped = try await counting.unitRatesByVariant(
                environment: "prod", name: "$crash", sessions: ["$session"], flag: "checkout", since: t0 + 15, capAtSessions: false)
            #expect(uncapped["on"]?.events == 2)
        }
    }
    @Test(arguments: StoreKind.allCases)
    func guardrailMomentsPairEachUnitsCellsByStepVariantAndSource(_ kind: StoreKind) async throws {
        try await FlagEventStoreCompatibilityTests.with(kind) { store, _ in
            let counting = try #require(store as? any RolloutEventCounting)
            let t0 = FlagEventStoreCompatibilityTests.t0
            func tracked(_ name: String, _ unit: String?, _ variant: String, at time: Int64) -> EventBatch.Tracked {
                EventBatch.Tracked(name: name, unit: unit, variants: ["checkout": variant], time: time)
            }
            _ = try await store.ingest([
                FlagEventStoreCompatibilityTests.batch("1", source: FlagEventStoreCompatibilityTests.ios, tracked: [
                    // u1: "off" in the first step (a clean session, a crash), "on" in the second (one clean
                    // session, two crashes).
                    tracked("$session", "u1", "off", at: t0), tracked("$crash", "u1", "off", at: t0 + 10),
                    tracked("$session", "u1", "on", at: t0 + 100), tracked("$crash", "u1", "on", at: t0 + 110),
                    tracked("$crash", "u1", "on", at: t0 + 120),
                    // u2: "off" in both steps; a unit-less session on "on" in the second.
                    tracked("$session", "u2", "off", at: t0 + 5), tracked("$session", "u2", "off", at: t0 + 150),
                    tracked("$session", nil, "on", at: t0 + 105),
                    // Another variant, and a session before the run: not counted.
                    tracked("$session", "u9", "other", at: t0 + 10), tracked("$session", "u8", "off", at: t0 - 1),
                ]),
                // u1 again, from another app version and platform: a unit of that stratum.
                FlagEventStoreCompatibilityTests.batch(
                    "2", source: FlagEventStoreCompatibilityTests.android, tracked: [tracked("$session", "u1", "off", at: t0 + 20)]),
            ])
            let rows = try await counting.guardrailMoments(
                environment: "prod", name: "$crash", sessions: RolloutGuardrail.sessionEvents, flag: "checkout", variants: ["off", "on"],
                stepStarts: [t0, t0 + 100], capAtSessions: true)
            func row(
                _ version: String, _ platform: String, _ k: Int, _ v: String, _ l: Int, _ w: String, _ units: Int,
                _ s: Double, _ e: Double, _ ss: Double, _ se: Double, _ es: Double, _ ee: Double
            ) -> GuardrailMoments {
                GuardrailMoments(
                    appVersion: version, platform: platform, first: .init(step: k, variant: v), second: .init(step: l, variant: w),
                    units: units, sessions: s, events: e, sessionProducts: ss, sessionEventProducts: se, eventSessionProducts: es,
                    eventProducts: ee)
            }
            let expected: Set<GuardrailMoments> = [
                row("4.2", "iOS", 0, "off", 0, "off", 2, 3, 1, 5, 2, 2, 1),
                row("4.2", "iOS", 0, "off", 1, "on", 1, 2, 1, 6, 4, 3, 2),
                row("4.2", "iOS", 1, "on", 0, "off", 1, 3, 2, 6, 3, 4, 2),
                row("4.2", "iOS", 1, "on", 1, "on", 2, 4, 2, 10, 6, 6, 4),
                row("4.2", "iOS", 0, "off", 1, "off", 1, 1, 0, 1, 0, 0, 0),
                row("4.2", "iOS", 1, "off", 0, "off", 1, 1, 0, 1, 0, 0, 0),
                row("4.2", "iOS", 1, "off", 1, "off", 1, 1, 0, 1, 0, 0, 0),
                row("4.2", "iOS", -1, "off", -1, "off", 2, 4, 1, 8, 2, 2, 1),
                row("4.2", "iOS", -1, "on", -1, "on", 2, 4, 2, 10, 6, 6, 4),
                row("4.3", "Android", 0, "off", 0, "off", 1, 1, 0, 1, 0, 0, 0),
                row("4.3", "Android", -1, "off", -1, "off", 1, 1, 0, 1, 0, 0, 0),
            ]
            #expect(Set(rows) == expected)
            #expect(rows.count == expected.count)
            // The distinct units per variant, over both strata.
            #expect(RolloutGuardrail.units(rows) == ["off": 3, "on": 2])
            // One start: everything is the first step.
            let single = try await counting.guardrailMoments(
                environment: "prod", name: "$crash", sessions: RolloutGuardrail.sessionEvents, flag: "checkout", variants: ["off", "on"],
                stepStarts: [t0], capAtSessions: false)
            #expect(Set(single.map(\.first.step)) == [-1, 0])
            #expect(single.first { $0.first == .init(step: 0, variant: "on") && $0.second == $0.first && $0.platform == "iOS" }?.events == 2)
        }
    }
}
