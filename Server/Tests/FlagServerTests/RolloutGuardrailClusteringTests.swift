import Foundation
import Testing

@testable import FlagServer
@testable import FlagServerModel

/// Rate guardrails count units, not sessions: seeded A/A rollouts on populations whose errors
/// cluster by user (some users fail often, most never) with several sessions each. Judged per
/// session, as the guardrails used to, such rollouts "prove a regression" far more often than α;
/// judged per unit they stay at or below it.
struct RolloutGuardrailClusteringTests {
    struct Population {
        var users: Int
        /// Sessions per user per look: 1 + a Poisson draw of this mean.
        var extraSessions: Double
        /// Each user's mean errors per session is the population mean times a lognormal factor
        /// with this log standard deviation (0: every user alike).
        var spread: Double
        var errorsPerSession: Double
    }

    static func poisson(_ mean: Double, _ random: inout SeededRandom) -> Int {
        // Knuth's product of uniforms; the means here are small.
        let limit = exp(-mean)
        var product = random.unit()
        var count = 0
        while product > limit {
            count += 1
            product *= random.unit()
        }
        return count
    }

    /// The share of `runs` A/A rollouts (users split 50/50, 10 looks) that the error-rate guardrail
    /// calls a regression at some look, judged per unit and, for comparison, per session.
    static func falseRollbacks(_ population: Population, runs: Int, seed: UInt64) -> (perUnit: Double, perSession: Double) {
        var random = SeededRandom(seed: seed)
        let guardrail = RolloutGuardrail(metric: .errorRate, tolerance: 0, direction: .increase)
        var perUnit = 0
        var perSession = 0
        for _ in 0..<runs {
            let rates = (0..<population.users).map { _ in
                population.errorsPerSession * exp(population.spread * random.normal() - population.spread * population.spread / 2)
            }
            var sessions = [Int](repeating: 0, count: population.users)
            var errors = [Int](repeating: 0, count: population.users)
            // Per session, Σe² of each arm (the per-session analysis treats sessions as units).
            var sessionSquares = [0.0, 0.0]
            var stoppedUnit = false
            var stoppedSession = false
            for _ in 0..<10 {
                for user in 0..<population.users {
                    let count = 1 + poisson(population.extraSessions, &random)
                    for _ in 0..<count {
                        let e = poisson(rates[user], &random)
                        sessions[user] += 1
                        errors[user] += e
                        sessionSquares[user % 2] += Double(e * e)
                    }
                }
                var units = [UnitRateSums](repeating: UnitRateSums(units: 0, sessions: 0, sessionSquares: 0, events: 0, eventSquares: 0, products: 0), count: 2)
                for user in 0..<population.users {
                    let (s, e) = (Double(sessions[user]), Double(errors[user]))
                    units[user % 2].units += 1
                    units[user % 2].sessions += s
                    units[user % 2].sessionSquares += s * s
                    units[user % 2].events += e
                    units[user % 2].eventSquares += e * e
                    units[user % 2].products += s * e
                }
                if guardrail.evaluate(old: units[0], new: units[1], oldVariant: "a", newVariant: "b", alpha: 0.05)?.regression == true {
                    stoppedUnit = true
                }
                let naive = (0..<2).map { arm in
                    UnitRateSums(
                        units: Int(units[arm].sessions), sessions: units[arm].sessions, sessionSquares: units[arm].sessions,
                        events: units[arm].events, eventSquares: sessionSquares[arm], products: units[arm].events)
                }
                if guardrail.evaluate(old: naive[0], new: naive[1], oldVariant: "a", newVariant: "b", alpha: 0.05)?.regression == true {
                    stoppedSession = true
                }
            }
            if stoppedUnit { perUnit += 1 }
            if stoppedSession { perSession += 1 }
        }
        return (Double(perUnit) / Double(runs), Double(perSession) / Double(runs))
    }

    @Test func clusteredErrorsDoNotRollBackAARollouts() {
        // Errors concentrated in few users (lognormal factor with σ = 2: the top 5 % of users
        // make most errors), 3 sessions per user per look on average.
        let population = Population(users: 600, extraSessions: 2, spread: 2, errorsPerSession: 0.3)
        let rates = Self.falseRollbacks(population, runs: 300, seed: 3)
        print("A/A error-rate guardrail, clustered users: false rollbacks per unit \(rates.perUnit), per session \(rates.perSession)")
        #expect(rates.perUnit <= 0.05)
        // What the old per-session model did with the same data.
        #expect(rates.perSession > 0.15)
    }

    @Test func independentSessionsAreJudgedAsBefore() {
        // Every user alike and one session each: per unit and per session agree, both at or below α.
        let population = Population(users: 600, extraSessions: 0, spread: 0, errorsPerSession: 0.2)
        let rates = Self.falseRollbacks(population, runs: 300, seed: 4)
        print("A/A error-rate guardrail, independent sessions: per unit \(rates.perUnit), per session \(rates.perSession)")
        #expect(rates.perUnit <= 0.05)
        #expect(rates.perSession <= 0.05)
    }
}
