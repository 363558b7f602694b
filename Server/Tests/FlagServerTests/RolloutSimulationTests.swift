import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOHTTP1
import Synchronization
import Testing

/// Rollouts end to end: a seeded population of simulated apps evaluates the flag with the
/// evaluator the server's OFREP endpoint serves from, and sends `$session` and `$crash` events
/// with the variants it was served through the real `POST /ofrep/v1/ingestion`, while the
/// executor steps the plan on a manual clock (Server/Docs/Rollouts.md).
struct RolloutSimulationTests {
    static let base = 1_800_000_000.0

    struct Outcome {
        var plan: RolloutPlan
        var intervals: Int
        var sessions: Int
        var crashes: Int
    }

    /// Runs one rollout of `checkout` (off → on) in production with `units` apps, each starting one
    /// session per evaluation interval, crashing with `oldRate` or `newRate` by the variant served.
    static func run(
        seed: UInt64, units: Int, oldRate: Double, newRate: Double, plan template: RolloutPlan = RolloutGuardrailTests.plan(),
        _ check: ((TestServer, Rollouts, RolloutPlan) async throws -> Void)? = nil
    ) async throws -> Outcome {
        let clock = ManualSeconds()
        let now: @Sendable () -> Date = { Date(timeIntervalSince1970: Self.base + clock.value) }
        let events = try await SQLiteFlagEventStore(path: nil)
        try await events.migrate()
        do {
            let outcome = try await simulate(events: events, clock: clock, now: now, seed: seed, units: units, oldRate: oldRate,
                newRate: newRate, plan: template, check)
            await events.close()
            return outcome
        } catch {
            await events.close()
            throw error
        }
    }

    private static func simulate(
        events: SQLiteFlagEventStore, clock: ManualSeconds, now: @escaping @Sendable () -> Date, seed: UInt64, units: Int,
        oldRate: Double, newRate: Double, plan template: RolloutPlan,
        _ check: ((TestServer, Rollouts, RolloutPlan) async throws -> Void)?
    ) async throws -> Outcome {
        try await TestServer.with(eventStore: events, now: now, rolloutTickInterval: nil) { server in
            try await server.booleanFlag("checkout", enabled: true, defaultVariant: "off")
            let token = try await server.token(.client, environment: "production")
            let rollouts = try #require(server.server.rollouts)
            let executor = RolloutExecutor(rollouts: rollouts, replica: "simulation")
            var plan = template
            plan.salt = "seed-\(seed)"
            plan.createdAt = now()
            _ = try await rollouts.create(plan)
            plan = try await rollouts.start(id: plan.id, environment: "production", actor: "ada")

            var random = SeededRandom(seed: seed)
            var outcome = Outcome(plan: plan, intervals: 0, sessions: 0, crashes: 0)
            var batch = 0
            while plan.status == .running, outcome.intervals < 100 {
                let evaluator = try #require(server.server.publisher.current.environments["production"]?.evaluator)
                let time = Int64((now().timeIntervalSince1970 * 1000).rounded())
                var tracked: [JSONValue] = []
                for unit in 0..<units {
                    let key = "app-\(unit)"
                    let variant = evaluator.evaluate(
                        flag: "checkout", type: .boolean, default: false, context: EvaluationContext(targetingKey: key), now: now()
                    ).variant ?? "default"
                    let served: JSONValue = ["checkout": .string(variant)]
                    outcome.sessions += 1
                    if random.unit() < (variant == plan.newVariant ? newRate : oldRate) {
                        // Reported at the next launch, with the variants of the session that crashed,
                        // instead of the `$session` a clean end sends (as the SDK does).
                        tracked.append(["name": "$crash", "unit": .string(key), "variants": served, "time": .int(Int(time))])
                        outcome.crashes += 1
                    } else {
                        tracked.append(["name": "$session", "unit": .string(key), "variants": served, "time": .int(Int(time))])
                    }
                }
                for start in stride(from: 0, to: tracked.count, by: 2_000) {
                    batch += 1
                    let body: JSONValue = [
                        "version": 1, "batchId": .string("batch-\(batch)"),
                        "source": ["appVersion": "4.2", "buildConfiguration": "release", "platform": "iOS"],
                        "dropped": ["exposures": 0, "summaries": 0, "tracked": 0],
                        "exposures": [], "summaries": [],
                        "events": .array(Array(tracked[start..<min(tracked.count, start + 2_000)])),
                    ]
                    let reply = try await server.request(.POST, "/ofrep/v1/ingestion", token: token, body: body.serialized())
                    guard reply.status == 202 else { throw TestFailure("ingestion: \(reply.status) \(reply.body)") }
                }
                clock.advance(by: Double(plan.evaluationIntervalSeconds))
                outcome.intervals += 1
                await executor.tick()
                plan = try await rollouts.plan(id: plan.id, environment: "production")
            }
            outcome.plan = plan
            try await check?(server, rollouts, plan)
            return outcome
        }
    }

    @Test
    func aVariantWithTwoPointsMoreCrashingSessionsIsRolledBackInTheFirstStep() async throws {
        let outcome = try await Self.run(seed: 2, units: 8_000, oldRate: 0.02, newRate: 0.04) { server, _, plan in
            // Everyone is served the old variant again, in an audited revision naming the numbers.
            let settings = await server.server.admin.state.environments["production"]?.settings["checkout"]
            #expect(settings == FlagSettings(enabled: true, defaultVariant: "off", targeting: nil))
            let audit = try await server.server.admin.store.audit(environment: "production", key: "checkout", limit: 1)
            let reason = try #require(audit.first?.reason)
            #expect(reason.contains("rollout plan-1: rolled back at 10 %"))
            #expect(reason.contains("crash rate") && reason.contains("lower bound above the tolerance +0.00"))
            #expect(audit.first?.actor == Rollouts.serverActor)
            #expect(plan.history.contains { $0.action == .regression && $0.finding?.regression == true })
        }
        let rolledBack = try #require(outcome.plan.history.last)
        print(
            "rollout simulation (HTTP): 2 % -> 4 % crashes rolled back at step \(rolledBack.step.map { $0 + 1 } ?? 0) (\(rolledBack.percent ?? 0) %) after \(outcome.intervals) intervals; \(rolledBack.finding?.summary ?? "")")
        #expect(outcome.plan.status == .rolledBack)
        #expect(rolledBack.action == .rolledBack && rolledBack.step == 0)
    }

    @Test
    func aARolloutsFinish() async throws {
        var finished = 0
        let seeds: [UInt64] = [11, 12, 13]
        for seed in seeds {
            let outcome = try await Self.run(seed: seed, units: 4_000, oldRate: 0.02, newRate: 0.02) { server, _, plan in
                if plan.status == .finished {
                    let settings = await server.server.admin.state.environments["production"]?.settings["checkout"]
                    #expect(settings == FlagSettings(enabled: true, defaultVariant: "on", targeting: nil))
                }
            }
            if outcome.plan.status == .finished { finished += 1 }
            // Stepped once per step duration: 5 intervals per step, 3 steps below 100 %.
            #expect(outcome.plan.status != .finished || outcome.intervals == 15)
        }
        print("rollout simulation (HTTP): A/A rollouts finished \(finished)/\(seeds.count) (alpha 0.05)")
        #expect(finished == seeds.count)
    }

    @Test
    func withoutEventsAPlanStepsOnItsDurationsAndFinishes() async throws {
        let outcome = try await Self.run(seed: 3, units: 0, oldRate: 0, newRate: 0)
        #expect(outcome.plan.status == .finished && outcome.intervals == 15)
        #expect(outcome.plan.history.map(\.action) == [.created, .started, .stepped, .stepped, .finished])
        #expect(outcome.plan.history.compactMap(\.revision).count == 4)
    }

    @Test
    func pausingAndResumingKeepsTheSplitAndStartingAgainPicksUnitsAsThePlanSays() async throws {
        let clock = ManualSeconds()
        let now: @Sendable () -> Date = { Date(timeIntervalSince1970: Self.base + clock.value) }
        try await TestServer.with(now: now, rolloutTickInterval: nil) { server in
            try await server.booleanFlag("checkout", enabled: true, defaultVariant: "off")
            let rollouts = try #require(server.server.rollouts)
            let executor = RolloutExecutor(rollouts: rollouts, replica: "test")
            func served() async throws -> FlagSettings? { try await ApprovalTests.settings(server, "checkout") }
            var plan = RolloutGuardrailTests.plan()
            plan.restart = .newUnits
            _ = try await rollouts.create(plan)
            try await rollouts.start(id: plan.id, environment: "production", actor: "ada")
            let first = try await served()
            #expect(first?.targeting == plan.targeting(percent: 10))
            clock.advance(by: 3_000)
            await executor.tick()
            #expect(try await served()?.targeting == plan.targeting(percent: 25))
            try await rollouts.pause(id: plan.id, environment: "production", actor: "ada")
            clock.advance(by: 10_000)
            await executor.tick()
            #expect(try await rollouts.plan(id: plan.id, environment: "production").currentStep == 1)
            try await rollouts.resume(id: plan.id, environment: "production", actor: "ada")
            #expect(try await served()?.targeting == plan.targeting(percent: 25))
            // The step's duration counts again from the resume.
            clock.advance(by: 600)
            await executor.tick()
            #expect(try await rollouts.plan(id: plan.id, environment: "production").currentStep == 1)
            await #expect(throws: AdminError.self) { try await rollouts.start(id: plan.id, environment: "production", actor: "ada") }
            try await rollouts.rollback(id: plan.id, environment: "production", actor: "ada", comment: "checking")
            #expect(try await served() == FlagSettings(enabled: true, defaultVariant: "off", targeting: nil))
            let again = try await rollouts.start(id: plan.id, environment: "production", actor: "ada")
            #expect(again.salt != plan.salt && again.currentStep == 0)
            #expect(try await served()?.targeting == again.targeting(percent: 10))
            let audit = try await server.server.admin.store.audit(environment: "production", key: "checkout", limit: 10)
            #expect(audit.first?.reason?.hasPrefix("rollout plan-1: started again at 10 %") == true)
            #expect(audit.dropFirst().first?.reason == "rollout plan-1: rolled back at 25 %; \"off\" for everyone (checking)")
        }
    }

    @Test
    func aPlanDoesNotTakeOverTargetingItDidNotWrite() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag(
                "checkout", enabled: true, defaultVariant: "off", targeting: #"{"if": [{"==": [{"var": "tier"}, "gold"]}, "on", null]}"#)
            let rollouts = try #require(server.server.rollouts)
            _ = try await rollouts.create(RolloutGuardrailTests.plan())
            await #expect(throws: AdminError.self) { try await rollouts.start(id: "plan-1", environment: "production", actor: "ada") }
            #expect(try await rollouts.plan(id: "plan-1", environment: "production").status == .draft)
        }
    }
}
