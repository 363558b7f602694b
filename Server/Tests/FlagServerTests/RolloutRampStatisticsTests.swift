import Foundation
import Testing

@testable import FlagServer
@testable import FlagServerModel

/// The step-by-step comparison (``RolloutGuardrail/evaluate(moments:oldVariant:newVariant:alpha:minimumUnits:appVersion:platform:)``)
/// on many seeded A/A ramps, counted in memory as the event stores count them: the false
/// rollbacks stay at or below α in both directions, where the comparison over the whole run
/// (``RolloutGuardrail/evaluate(old:new:oldVariant:newVariant:alpha:minimumUnits:)`` on the sums
/// since the run started) exceeds it.
struct RolloutRampStatisticsTests {
    /// A ramp 10 → 25 → 50 %, 5 looks per step, `units` users split by a fixed bucket; each user has
    /// 1 + Poisson(1) sessions per look and its own crash propensity (the mean times a lognormal
    /// factor, σ = 1, so a user's crashes persist from step to step); every user's propensity is
    /// multiplied by `trend(look)`, alike in both variants.
    static func falseRollbacks(
        runs: Int, units: Int, seed: UInt64, rate: Double, trend: (Int) -> Double
    ) -> (stepped: (increase: Int, decrease: Int), pooled: (increase: Int, decrease: Int)) {
        var random = SeededRandom(seed: seed)
        let shares = [0.10, 0.25, 0.50]
        let increase = RolloutGuardrail(metric: .errorRate, tolerance: 0, direction: .increase)
        let decrease = RolloutGuardrail(metric: .errorRate, tolerance: 0, direction: .decrease)
        var stepped = (increase: 0, decrease: 0)
        var pooled = (increase: 0, decrease: 0)
        for _ in 0..<runs {
            let buckets = (0..<units).map { _ in random.unit() }
            let propensity = (0..<units).map { _ in rate * exp(random.normal() - 0.5) }
            // Per user, sessions and errors per cell: cell = step × 2 + variant (0 old, 1 new).
            var s = [[Double]](repeating: [Double](repeating: 0, count: 6), count: units)
            var e = s
            var stopped = (stepped: (false, false), pooled: (false, false))
            for look in 0..<15 {
                let step = look / 5
                for user in 0..<units {
                    let variant = buckets[user] < shares[step] ? 1 : 0
                    let sessions = 1 + RolloutGuardrailClusteringTests.poisson(1, &random)
                    let chance = min(1, propensity[user] * trend(look))
                    for _ in 0..<sessions {
                        s[user][step * 2 + variant] += 1
                        if random.unit() < chance { e[user][step * 2 + variant] += 1 }
                    }
                }
                let moments = Self.moments(s, e, steps: step + 1)
                let sums = Self.sinceStart(s, e)
                for (index, guardrail) in [increase, decrease].enumerated() {
                    if guardrail.evaluate(moments: moments, oldVariant: "off", newVariant: "on", alpha: 0.05)?.regression == true {
                        if index == 0 { stopped.stepped.0 = true } else { stopped.stepped.1 = true }
                    }
                    if guardrail.evaluate(old: sums[0], new: sums[1], oldVariant: "off", newVariant: "on", alpha: 0.05)?.regression == true {
                        if index == 0 { stopped.pooled.0 = true } else { stopped.pooled.1 = true }
                    }
                }
            }
            if stopped.stepped.0 { stepped.increase += 1 }
            if stopped.stepped.1 { stepped.decrease += 1 }
            if stopped.pooled.0 { pooled.increase += 1 }
            if stopped.pooled.1 { pooled.decrease += 1 }
        }
        return (stepped, pooled)
    }

    /// The rows an event store answers for these users (one stratum), as
    /// `RolloutEventCounting.guardrailMoments` sums them: every pair of a user's cells, and each
    /// variant's whole-run cell with itself.
    static func moments(_ s: [[Double]], _ e: [[Double]], steps: Int) -> [GuardrailMoments] {
        let cells = steps * 2
        var units = [[Int]](repeating: [Int](repeating: 0, count: cells), count: cells)
        var sums = [[[Double]]](repeating: [[Double]](repeating: [Double](repeating: 0, count: 6), count: cells), count: cells)
        var whole = [[Double]](repeating: [Double](repeating: 0, count: 7), count: 2)
        for user in s.indices {
            let present = (0..<cells).filter { s[user][$0] > 0 || e[user][$0] > 0 }
            for a in present {
                for b in present {
                    let (sa, ea, sb, eb) = (s[user][a], e[user][a], s[user][b], e[user][b])
                    units[a][b] += 1
                    sums[a][b][0] += sa
                    sums[a][b][1] += ea
                    sums[a][b][2] += sa * sb
                    sums[a][b][3] += sa * eb
                    sums[a][b][4] += ea * sb
                    sums[a][b][5] += ea * eb
                }
            }
            for variant in 0..<2 {
                let cellsOfVariant = present.filter { $0 % 2 == variant }
                guard !cellsOfVariant.isEmpty else { continue }
                let (sv, ev) = cellsOfVariant.reduce((0.0, 0.0)) { ($0.0 + s[user][$1], $0.1 + e[user][$1]) }
                whole[variant][0] += 1
                whole[variant][1] += sv
                whole[variant][2] += ev
                whole[variant][3] += sv * sv
                whole[variant][4] += sv * ev
                whole[variant][5] += ev * sv
                whole[variant][6] += ev * ev
            }
        }
        let names = ["off", "on"]
        var rows: [GuardrailMoments] = []
        for a in 0..<cells {
            for b in 0..<cells where units[a][b] > 0 {
                let m = sums[a][b]
                rows.append(GuardrailMoments(
                    appVersion: "1.0", platform: "iOS", first: .init(step: a / 2, variant: names[a % 2]),
                    second: .init(step: b / 2, variant: names[b % 2]), units: units[a][b], sessions: m[0], events: m[1],
                    sessionProducts: m[2], sessionEventProducts: m[3], eventSessionProducts: m[4], eventProducts: m[5]))
            }
        }
        for variant in 0..<2 where whole[variant][0] > 0 {
            let w = whole[variant]
            let cell = GuardrailMoments.Cell(step: GuardrailMoments.wholeRun, variant: names[variant])
            rows.append(GuardrailMoments(
                appVersion: "1.0", platform: "iOS", first: cell, second: cell, units: Int(w[0]), sessions: w[1], events: w[2],
                sessionProducts: w[3], sessionEventProducts: w[4], eventSessionProducts: w[5], eventProducts: w[6]))
        }
        return rows
    }

    /// Each variant's per-user sums since the run started (what the guardrails compared before).
    static func sinceStart(_ s: [[Double]], _ e: [[Double]]) -> [UnitRateSums] {
        var sums = [UnitRateSums](
            repeating: UnitRateSums(units: 0, sessions: 0, sessionSquares: 0, events: 0, eventSquares: 0, products: 0), count: 2)
        for user in s.indices {
            for variant in 0..<2 {
                let (su, eu) = stride(from: variant, to: 6, by: 2).reduce((0.0, 0.0)) { ($0.0 + s[user][$1], $0.1 + e[user][$1]) }
                guard su > 0 || eu > 0 else { continue }
                sums[variant].units += 1
                sums[variant].sessions += su
                sums[variant].sessionSquares += su * su
                sums[variant].events += eu
                sums[variant].eventSquares += eu * eu
                sums[variant].products += su * eu
            }
        }
        return sums
    }

    @Test func aARampsWithATrendAreNotRolledBackInEitherDirection() {
        // An incident after the first step: errors rise, alike in both variants, and stay up.
        let (stepped, pooled) = Self.falseRollbacks(runs: 100, units: 2_000, seed: 7, rate: 0.05) { look in look < 5 ? 1 : 2 }
        print("A/A ramps with a trend, 100 runs: false rollbacks step by step \(stepped.increase) (increase) \(stepped.decrease) (decrease); over the whole run \(pooled.increase) / \(pooled.decrease)")
        #expect(stepped.increase <= 5 && stepped.decrease <= 5)
        // What comparing the whole run did with the same data.
        #expect(pooled.increase > 20)
    }

    @Test func aARampsWithoutATrendStayAtOrBelowAlpha() {
        // Users whose errors persist from step to step: the variance counts each user once.
        let (stepped, pooled) = Self.falseRollbacks(runs: 100, units: 2_000, seed: 8, rate: 0.05) { _ in 1 }
        print("A/A ramps without a trend, 100 runs: false rollbacks step by step \(stepped.increase) / \(stepped.decrease); over the whole run \(pooled.increase) / \(pooled.decrease)")
        #expect(stepped.increase <= 5 && stepped.decrease <= 5)
    }
}
