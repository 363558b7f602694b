import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import Testing

/// Guardrails during a ramp and by app version (Server/Docs/Rollouts.md, "Comparable arms" and
/// "By app version and platform"): a seeded fleet evaluates the flag with the evaluator the
/// server's OFREP endpoint serves from, its `$session`, `$crash` and `purchase` events go into the
/// SQLite event store with their app version and platform, and the executor steps the plan on a
/// manual clock. Plan: 10 → 25 → 50 → 100 %, 5 intervals per step, α = 0.05.
struct RolloutRampSimulationTests {
    static let base = 1_800_000_000.0

    /// What one phone does in one session.
    struct Session {
        var appVersion: String
        var platform: String = "iOS"
        var crashes: Bool
        var purchases: Bool = false
    }

    /// Runs the plan with `units` phones, each with one session per evaluation interval, shaped by
    /// `behaviour(random, unit, interval, served variant)`; at most `intervals` intervals.
    static func run(
        seed: UInt64, units: Int, guardrails: [RolloutGuardrail], intervals limit: Int = 20,
        behaviour: @escaping @Sendable (inout SeededRandom, Int, Int, String) -> Session
    ) async throws -> RolloutPlan {
        let clock = ManualSeconds()
        let now: @Sendable () -> Date = { Date(timeIntervalSince1970: Self.base + clock.value) }
        let events = try await SQLiteFlagEventStore(path: nil)
        try await events.migrate()
        do {
            let plan = try await simulate(events: events, clock: clock, now: now, seed: seed, units: units, guardrails: guardrails,
                intervals: limit, behaviour: behaviour)
            await events.close()
            return plan
        } catch {
            await events.close()
            throw error
        }
    }

    private static func simulate(
        events: SQLiteFlagEventStore, clock: ManualSeconds, now: @escaping @Sendable () -> Date, seed: UInt64, units: Int,
        guardrails: [RolloutGuardrail], intervals limit: Int, behaviour: @escaping @Sendable (inout SeededRandom, Int, Int, String) -> Session
    ) async throws -> RolloutPlan {
        try await TestServer.with(eventStore: events, now: now, rolloutTickInterval: nil) { server in
            try await server.booleanFlag("checkout", enabled: true, defaultVariant: "off")
            let rollouts = try #require(server.server.rollouts)
            let executor = RolloutExecutor(rollouts: rollouts, replica: "simulation")
            var plan = RolloutGuardrailTests.plan(salt: "seed-\(seed)")
            plan.guardrails = guardrails
            _ = try await rollouts.create(plan)
            plan = try await rollouts.start(id: plan.id, environment: "production", actor: "ada")
            var random = SeededRandom(seed: seed)
            var interval = 0
            while plan.status == .running, interval < limit {
                let evaluator = try #require(server.server.publisher.current.environments["production"]?.evaluator)
                let time = Int64((now().timeIntervalSince1970 * 1000).rounded())
                var bySource: [String: (EventBatch.EventSource, [EventBatch.Tracked])] = [:]
                for unit in 0..<units {
                    let key = "app-\(unit)"
                    let variant = evaluator.evaluate(
                        flag: "checkout", type: .boolean, default: false, context: EvaluationContext(targetingKey: key), now: now()
                    ).variant ?? "default"
                    let session = behaviour(&random, unit, interval, variant)
                    let source = EventBatch.EventSource(
                        appVersion: session.appVersion, buildConfiguration: "release", platform: session.platform)
                    var tracked = [EventBatch.Tracked(
                        name: session.crashes ? "$crash" : "$session", unit: key, variants: ["checkout": variant], time: time)]
                    if session.purchases {
                        tracked.append(EventBatch.Tracked(name: "purchase", unit: key, variants: ["checkout": variant], time: time))
                    }
                    bySource["\(session.platform) \(session.appVersion)", default: (source, [])].1 += tracked
                }
                let batches = bySource.sorted { $0.key < $1.key }.map { name, entry in
                    EventBatch(
                        id: "\(interval) \(name)", environment: "production", receivedAt: time, source: entry.0,
                        dropped: EventBatch.DroppedEvents(), exposures: [], summaries: [], tracked: entry.1)
                }
                _ = try await events.ingest(batches)
                clock.advance(by: Double(plan.evaluationIntervalSeconds))
                interval += 1
                await executor.tick()
                plan = try await rollouts.plan(id: plan.id, environment: "production")
            }
            return plan
        }
    }

    static let crash = RolloutGuardrail(metric: .crashRate, tolerance: 0, direction: .increase)
    static let purchases = RolloutGuardrail(metric: .eventRate, event: "purchase", tolerance: 0, direction: .decrease)

    /// A/A: both variants behave alike, but an app update reaches every phone at the second step's
    /// start (interval 5), and in the first three sessions after it crashes rise from 2 % to 8 % and
    /// purchases fall from 20 % to 5 %. Compared over the whole run, the new variant (most of its
    /// sessions in and after the update) looks worse than the old one (most before): the pooled
    /// comparison rolled these plans back, on crashes and on purchases; step by step it does not.
    @Test(arguments: [21, 22, 23] as [UInt64])
    func anAARampThroughAnAppUpdateIsNotRolledBack(seed: UInt64) async throws {
        let plan = try await Self.run(seed: seed, units: 4_000, guardrails: [Self.crash, Self.purchases]) { random, _, interval, _ in
            let updated = interval >= 5
            let fresh = updated && interval < 8
            return Session(
                appVersion: updated ? "2.1.0" : "2.0.0", crashes: random.unit() < (fresh ? 0.08 : 0.02),
                purchases: random.unit() < (fresh ? 0.05 : 0.2))
        }
        let regression = plan.history.first { $0.action == .regression }?.finding
        print("ramp simulation, A/A through an update, seed \(seed): \(plan.status.rawValue)\(regression.map { "; " + $0.summary } ?? "")")
        #expect(plan.status == .finished)
    }

    /// A variant that doubles the crash rate (2 % → 4 %) on every phone is still rolled back at the
    /// first step, with the phones spread over three app versions and two platforms.
    @Test(arguments: [31, 32] as [UInt64])
    func aDoubledCrashRateIsRolledBackInTheFirstStep(seed: UInt64) async throws {
        let versions = ["2.2.0", "2.3.0", "2.4.0"]
        let plan = try await Self.run(seed: seed, units: 8_000, guardrails: [Self.crash]) { random, unit, _, variant in
            Session(
                appVersion: versions[unit % 3], platform: unit % 4 == 0 ? "Android" : "iOS",
                crashes: random.unit() < (variant == "on" ? 0.04 : 0.02))
        }
        let rolledBack = try #require(plan.history.last)
        print("ramp simulation, 2 % -> 4 % everywhere, seed \(seed): \(plan.status.rawValue) at step \((rolledBack.step ?? 0) + 1); \(rolledBack.finding?.summary ?? "")")
        #expect(plan.status == .rolledBack && rolledBack.step == 0)
    }

    /// A crash regression confined to one app version of three (30 % of the phones, 2 % → 4 % there
    /// only) is caught, and the finding names the version.
    @Test(arguments: [41, 42, 43] as [UInt64])
    func aRegressionInOneAppVersionIsCaughtAndNamed(seed: UInt64) async throws {
        let plan = try await Self.run(seed: seed, units: 8_000, guardrails: [Self.crash]) { random, unit, _, variant in
            let version = unit % 10 < 3 ? "2.3.0" : (unit % 10 < 7 ? "2.2.0" : "2.4.0")
            let bad = version == "2.3.0" && variant == "on"
            return Session(appVersion: version, crashes: random.unit() < (bad ? 0.04 : 0.02))
        }
        let regression = try #require(plan.history.first { $0.action == .regression }?.finding)
        print("ramp simulation, 2 % -> 4 % in 2.3.0 only, seed \(seed): \(plan.status.rawValue) at step \((plan.history.last?.step ?? 0) + 1); \(regression.summary)")
        #expect(plan.status == .rolledBack)
        // Judged at α / (1 + 3): the pooled look and three versions. The pooled look comes first:
        // when it crosses at the same evaluation as the version's (seed 42, at the first step), the
        // finding is the pooled one; otherwise it names the version.
        #expect(abs(regression.alpha - 0.05 / 4) < 1e-12)
        if seed != 42 {
            #expect(regression.appVersion == "2.3.0" && regression.platform == "iOS")
            #expect(regression.summary.hasPrefix("crash rate in appVersion 2.3.0 (iOS) "))
        }
    }

    /// A/A on a fleet skewed by app version: 2.3.0 (30 % of the phones) crashes three times as often
    /// as the others in both variants. No version's look rolls the plan back.
    @Test(arguments: [51, 52, 53] as [UInt64])
    func anAAFleetSkewedByAppVersionIsNotRolledBack(seed: UInt64) async throws {
        let plan = try await Self.run(seed: seed, units: 4_000, guardrails: [Self.crash]) { random, unit, _, _ in
            let version = unit % 10 < 3 ? "2.3.0" : (unit % 10 < 7 ? "2.2.0" : "2.4.0")
            return Session(
                appVersion: version, platform: unit % 5 == 0 ? "Android" : "iOS",
                crashes: random.unit() < (version == "2.3.0" ? 0.06 : 0.02))
        }
        let regression = plan.history.first { $0.action == .regression }?.finding
        print("ramp simulation, A/A skewed by version, seed \(seed): \(plan.status.rawValue)\(regression.map { "; " + $0.summary } ?? "")")
        #expect(plan.status == .finished)
    }
}
