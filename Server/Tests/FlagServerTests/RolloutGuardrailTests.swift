import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import Testing

/// The guardrail test on plain counts, the sticky split, and the simulated A/A false-stop rate
/// (Server/Docs/Rollouts.md).
struct RolloutGuardrailTests {
    static let crash = RolloutGuardrail(metric: .crashRate, tolerance: 0, direction: .increase)

    @Test
    func aDoubledCrashRateIsARegressionAndEqualRatesAreNot() throws {
        let worse = try #require(Self.crash.evaluate(
            old: (20_000, 400), new: (4_000, 160), oldVariant: "off", newVariant: "on", alpha: 0.05))
        #expect(worse.regression)
        #expect(worse.oldRate == 0.02 && worse.newRate == 0.04)
        #expect(worse.lower > 0 && worse.lower < worse.difference && worse.upper > worse.difference)
        #expect(worse.summary.contains("crash rate 4.00 % (on, 160/4000) vs 2.00 % (off, 400/20000): +2.00 points"))
        #expect(worse.summary.contains("lower bound above the tolerance +0.00"))

        let same = try #require(Self.crash.evaluate(old: (20_000, 400), new: (4_000, 80), oldVariant: "off", newVariant: "on", alpha: 0.05))
        #expect(!same.regression)
        // A tolerance wider than the proven difference holds.
        let tolerant = RolloutGuardrail(metric: .crashRate, tolerance: 0.03)
        #expect(tolerant.evaluate(old: (20_000, 400), new: (4_000, 160), oldVariant: "off", newVariant: "on", alpha: 0.05)?.regression == false)
        // Too few trials: nothing to say yet.
        #expect(Self.crash.evaluate(old: (1, 0), new: (100, 50), oldVariant: "off", newVariant: "on", alpha: 0.05) == nil)
    }

    @Test
    func aDropIsHarmfulOnlyForADecreaseGuardrail() throws {
        let purchases = RolloutGuardrail(metric: .eventRate, event: "purchase", tolerance: 0, direction: .decrease)
        let fewer = try #require(purchases.evaluate(old: (20_000, 4_000), new: (5_000, 600), oldVariant: "off", newVariant: "on", alpha: 0.05))
        #expect(fewer.regression && fewer.upper < 0 && fewer.bound == fewer.upper)
        let more = try #require(purchases.evaluate(old: (20_000, 4_000), new: (5_000, 1_400), oldVariant: "off", newVariant: "on", alpha: 0.05))
        #expect(!more.regression)
    }

    @Test
    func unitsThatGotTheNewVariantKeepItAsTheShareGrows() throws {
        let plan = Self.plan(salt: "s1")
        func served(_ percent: Double, salt: String = "s1") throws -> Set<String> {
            var plan = plan
            plan.salt = salt
            let settings = FlagSettings(enabled: true, defaultVariant: "off", targeting: plan.targeting(percent: percent))
            let document: JSONValue = [
                "flags": [
                    "checkout": [
                        "state": "ENABLED", "variants": ["on": true, "off": false], "defaultVariant": "off",
                        "targeting": settings.targeting ?? .null,
                    ]
                ]
            ]
            let definitions = try FlagDefinitions.loadStrictly([FlagSource(name: "test", json: document.serialized())])
            let evaluator = FlagEvaluator(definitions: definitions)
            return Set((0..<4_000).map { "user-\($0)" }.filter {
                evaluator.evaluate(flag: "checkout", type: .boolean, default: false, context: EvaluationContext(targetingKey: $0), now: Date())
                    .variant == "on"
            })
        }
        let one = try served(1), five = try served(5), quarter = try served(25), half = try served(50)
        #expect(one.isSubset(of: five) && five.isSubset(of: quarter) && quarter.isSubset(of: half))
        // Close to the share (4,000 units).
        #expect(abs(five.count - 200) < 60 && abs(quarter.count - 1_000) < 120)
        // Another salt picks other units.
        let other = try served(25, salt: "s2")
        #expect(other.intersection(quarter).count < 400)
    }

    static func plan(salt: String = "s1", onRegression: RolloutPlan.RegressionAction = .rollback) -> RolloutPlan {
        RolloutPlan(
            id: "plan-1", flag: "checkout", environment: "production", oldVariant: "off", newVariant: "on",
            steps: [.init(percent: 10, durationSeconds: 3_000), .init(percent: 25, durationSeconds: 3_000),
                    .init(percent: 50, durationSeconds: 3_000), .init(percent: 100, durationSeconds: 1)],
            guardrails: [crash], alpha: 0.05, evaluationIntervalSeconds: 600, onRegression: onRegression, salt: salt,
            createdAt: Date(timeIntervalSince1970: 1_800_000_000), actor: "ada")
    }

    @Test
    func plansAreCheckedFieldByField() {
        #expect(Self.plan().problems.isEmpty)
        var plan = Self.plan()
        plan.steps = [.init(percent: 5, durationSeconds: 60), .init(percent: 5, durationSeconds: 60), .init(percent: 50.001, durationSeconds: 0)]
        plan.alpha = 0.5
        plan.newVariant = "off"
        plan.guardrails = [RolloutGuardrail(metric: .eventRate, tolerance: 2)]
        let problems = plan.problems
        #expect(problems.contains { $0.hasPrefix("newVariant") })
        #expect(problems.contains { $0.hasPrefix("steps[1].percent") })
        #expect(problems.contains { $0.hasPrefix("steps[2].percent: at most two decimals") })
        #expect(problems.contains { $0.hasPrefix("steps[2].durationSeconds") })
        #expect(problems.contains { $0.hasPrefix("steps: the last step must be 100") })
        #expect(problems.contains { $0.hasPrefix("guardrails[0].tolerance") })
        #expect(problems.contains { $0.hasPrefix("guardrails[0].event") })
        #expect(problems.contains { $0.hasPrefix("alpha") })
    }

    // MARK: - Simulation on counts

    /// One simulated rollout through the guardrail code the executor runs: per evaluation
    /// interval `sessions` sessions split by the step's share, crashes drawn per variant
    /// (binomial, by its normal approximation), the guardrail evaluated on the counts since the
    /// start at every interval. Returns the step index at which it stopped, or `nil` if it finished.
    static func simulate(
        plan: RolloutPlan, sessions: Int, oldRate: Double, newRate: Double, random: inout SeededRandom
    ) -> Int? {
        var old = (trials: 0, events: 0)
        var new = (trials: 0, events: 0)
        for (index, step) in plan.steps.enumerated() where step.percent < 100 {
            for _ in 0..<(step.durationSeconds / plan.evaluationIntervalSeconds) {
                let newSessions = Int((Double(sessions) * step.percent / 100).rounded())
                let oldSessions = sessions - newSessions
                new.trials += newSessions
                new.events += random.binomial(newSessions, newRate)
                old.trials += oldSessions
                old.events += random.binomial(oldSessions, oldRate)
                for guardrail in plan.guardrails {
                    if guardrail.evaluate(old: old, new: new, oldVariant: "off", newVariant: "on", alpha: plan.alpha)?.regression == true {
                        return index
                    }
                }
            }
        }
        return nil
    }

    @Test
    func aARolloutsStopNoMoreOftenThanAlpha() {
        var random = SeededRandom(seed: 25)
        let plan = Self.plan()
        let runs = 2_000
        var stopped = 0
        for _ in 0..<runs where Self.simulate(plan: plan, sessions: 8_000, oldRate: 0.02, newRate: 0.02, random: &random) != nil {
            stopped += 1
        }
        let rate = Double(stopped) / Double(runs)
        print("rollout simulation (counts): A/A false-stop rate \(stopped)/\(runs) = \(rate) at alpha \(plan.alpha), 15 looks each")
        #expect(rate <= plan.alpha)
    }

    @Test
    func aVariantWithTwoPointsMoreCrashesIsStoppedInTheFirstStep() {
        var random = SeededRandom(seed: 7)
        let plan = Self.plan()
        let runs = 500
        var inFirstStep = 0
        var byStep: [Int: Int] = [:]
        for _ in 0..<runs {
            let step = Self.simulate(plan: plan, sessions: 8_000, oldRate: 0.02, newRate: 0.04, random: &random)
            byStep[step ?? -1, default: 0] += 1
            if step == 0 { inFirstStep += 1 }
        }
        print("rollout simulation (counts): 2 % -> 4 % crashes stopped in the first step (10 %) in \(inFirstStep)/\(runs), by step \(byStep.sorted { $0.key < $1.key })")
        #expect(byStep[-1] == nil)
        #expect(Double(inFirstStep) / Double(runs) >= 0.95)
    }
}

/// SplitMix64, with normal and binomial draws: reproducible simulations.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// A standard normal draw (Box–Muller).
    mutating func normal() -> Double {
        let u = max(unit(), .leastNonzeroMagnitude)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * unit())
    }

    /// Successes of `n` trials of chance `p`: exact below 200 trials, else the normal approximation.
    mutating func binomial(_ n: Int, _ p: Double) -> Int {
        if n < 200 { return (0..<n).reduce(0) { count, _ in count + (unit() < p ? 1 : 0) } }
        let draw = Double(n) * p + (Double(n) * p * (1 - p)).squareRoot() * normal()
        return min(n, max(0, Int(draw.rounded())))
    }
}
