import FlagServerModel
import FlagStatistics
import Foundation

/// Rate guardrails judged step by step and stratum by stratum (`Server/Docs/Rollouts.md`, "Comparable
/// arms"): within one step both variants are measured over the same window of time, so a ramp
/// that gives the new variant mostly late sessions and the old one early and late ones compares
/// like with like; the steps are combined with Mantel–Haenszel weights and judged by the same
/// mixture sequential test, with a variance robust to a unit being counted in several steps.
extension RolloutGuardrail {
    /// One look at a guardrail's evidence: pooled (no app version, no platform), one platform, or
    /// one app version of one platform; `moments` are the stratum rows it covers.
    struct Look {
        var appVersion: String?
        var platform: String?
        var moments: [GuardrailMoments]
    }

    /// The looks at `moments`: pooled, each platform when there are several, and each app version
    /// of a platform when that platform has several. A look that would cover the same units as
    /// the one it refines (the only platform, a platform's only version) is not made again.
    static func looks(_ moments: [GuardrailMoments]) -> [Look] {
        var looks = [Look(appVersion: nil, platform: nil, moments: moments)]
        let platforms = Set(moments.map(\.platform)).sorted()
        for platform in platforms {
            let ofPlatform = moments.filter { $0.platform == platform }
            if platforms.count > 1 { looks.append(Look(appVersion: nil, platform: platform, moments: ofPlatform)) }
            let versions = Set(ofPlatform.map(\.appVersion)).sorted()
            guard versions.count > 1 else { continue }
            for version in versions {
                looks.append(Look(appVersion: version, platform: platform, moments: ofPlatform.filter { $0.appVersion == version }))
            }
        }
        return looks
    }

    /// Each look's finding: the pooled look and the strata with at least `minimumUnits` units in
    /// each variant, every one judged at α / (1 + k) where k is the number of such strata
    /// (Bonferroni over the looks made); strata below the minimum are skipped and not counted.
    /// Pooled first, then strata in the order of ``looks(_:)``.
    func findings(
        moments: [GuardrailMoments], oldVariant: String, newVariant: String, alpha: Double,
        minimumUnits: Int = RolloutGuardrail.defaultMinimumUnits
    ) -> [GuardrailFinding] {
        let all = Self.looks(moments)
        let least = max(2, minimumUnits)
        let judged = all.enumerated().filter { index, look in
            if index == 0 { return true }
            let units = Self.units(look.moments)
            return (units[oldVariant] ?? 0) >= least && (units[newVariant] ?? 0) >= least
        }.map(\.element)
        let corrected = alpha / Double(judged.count)
        return judged.compactMap { look in
            evaluate(
                moments: look.moments, oldVariant: oldVariant, newVariant: newVariant, alpha: corrected, minimumUnits: minimumUnits,
                appVersion: look.appVersion, platform: look.platform)
        }
    }

    /// Distinct units per variant over the whole run (the ``GuardrailMoments/wholeRun`` rows).
    static func units(_ moments: [GuardrailMoments]) -> [String: Int] {
        var units: [String: Int] = [:]
        for row in moments where row.first.step == GuardrailMoments.wholeRun && row.first == row.second {
            units[row.first.variant, default: 0] += row.units
        }
        return units
    }

    /// The guardrail on one look's evidence, step by step.
    ///
    /// In each step k where both variants have sessions, each variant's rate is the ratio
    /// R = Σe/Σs over its units' events of that step, and the step's difference d_k = R_new − R_old.
    /// The steps are combined as D = Σ w_k d_k / Σ w_k with the Mantel–Haenszel weights
    /// w_k = S_new,k · S_old,k / (S_new,k + S_old,k) (S: sessions), which depend on no outcome.
    /// Var(D) is the delta method's over units, with every pair of a unit's cells (step and
    /// variant) in it: Σ_c Σ_c' g_c g_c' Σ_u (e_uc − R_c s_uc)(e_uc' − R_c' s_uc') / (S_c S_c'), with
    /// g = ±w_k/Σw and the small-sample factor G/(G − 1) over the look's G units; a unit whose
    /// errors persist from step to step therefore widens the interval instead of counting as new
    /// evidence at every step. The mixture sequential test then reads D and Var(D) as the pooled
    /// comparison did, τ² = 0.01 × the per-session variance Var(D)·Σw. With one step this is the
    /// pooled comparison.
    ///
    /// The finding's rates are the weighted ones (Σ w_k R_k / Σ w_k, so their difference is D), its
    /// sessions and events the sums over the steps compared, its units each variant's distinct units.
    ///
    /// - Returns: `nil` while either variant has fewer than `minimumUnits` units in the look, or no
    ///   step has both variants, or the difference has no variance: not enough data.
    func evaluate(
        moments: [GuardrailMoments], oldVariant: String, newVariant: String, alpha: Double,
        minimumUnits: Int = RolloutGuardrail.defaultMinimumUnits, appVersion: String? = nil, platform: String? = nil
    ) -> GuardrailFinding? {
        let units = Self.units(moments)
        let oldUnits = units[oldVariant] ?? 0
        let newUnits = units[newVariant] ?? 0
        let least = max(2, minimumUnits)
        guard oldUnits >= least, newUnits >= least else { return nil }

        typealias Cell = GuardrailMoments.Cell
        struct Pair: Hashable {
            var first: Cell
            var second: Cell
        }
        var sums: [Pair: GuardrailMoments] = [:]
        for row in moments where row.first.step >= 0 && row.second.step >= 0 {
            let key = Pair(first: row.first, second: row.second)
            if var sum = sums[key] {
                sum.units += row.units
                sum.sessions += row.sessions
                sum.events += row.events
                sum.sessionProducts += row.sessionProducts
                sum.sessionEventProducts += row.sessionEventProducts
                sum.eventSessionProducts += row.eventSessionProducts
                sum.eventProducts += row.eventProducts
                sums[key] = sum
            } else {
                sums[key] = row
            }
        }
        func cell(_ step: Int, _ variant: String) -> GuardrailMoments? {
            let c = Cell(step: step, variant: variant)
            return sums[Pair(first: c, second: c)]
        }

        // The steps with sessions in both variants, and each cell's rate and coefficient in D.
        struct Term {
            var cell: Cell
            var rate: Double
            var sessions: Double
            var coefficient: Double
        }
        let steps = Set(sums.keys.map(\.first.step)).sorted()
        var weighted: [(step: Int, weight: Double, old: GuardrailMoments, new: GuardrailMoments)] = []
        for step in steps {
            guard let old = cell(step, oldVariant), let new = cell(step, newVariant), old.sessions > 0, new.sessions > 0 else { continue }
            weighted.append((step, old.sessions * new.sessions / (old.sessions + new.sessions), old, new))
        }
        let total = weighted.reduce(0) { $0 + $1.weight }
        guard total > 0 else { return nil }
        var terms: [Term] = []
        var oldRate = 0.0
        var newRate = 0.0
        var trials = (old: 0.0, new: 0.0)
        var events = (old: 0.0, new: 0.0)
        for (step, weight, old, new) in weighted {
            let share = weight / total
            let (a, b) = (old.events / old.sessions, new.events / new.sessions)
            oldRate += share * a
            newRate += share * b
            trials.old += old.sessions
            trials.new += new.sessions
            events.old += old.events
            events.new += new.events
            terms.append(Term(cell: Cell(step: step, variant: oldVariant), rate: a, sessions: old.sessions, coefficient: -share))
            terms.append(Term(cell: Cell(step: step, variant: newVariant), rate: b, sessions: new.sessions, coefficient: share))
        }

        var variance = 0.0
        for x in terms {
            for y in terms {
                guard let m = sums[Pair(first: x.cell, second: y.cell)] else { continue }
                let residuals = m.eventProducts - y.rate * m.eventSessionProducts - x.rate * m.sessionEventProducts
                    + x.rate * y.rate * m.sessionProducts
                variance += x.coefficient * y.coefficient * residuals / (x.sessions * y.sessions)
            }
        }
        let clusters = Double(oldUnits + newUnits)
        variance = max(0, variance) * clusters / (clusters - 1)
        let difference = newRate - oldRate
        guard
            let interval = StatisticalTests.mixtureSequential(
                difference: difference, variance: variance, mixingVariance: 0.01 * variance * total, alpha: alpha)
        else { return nil }
        let regression = direction == .increase ? interval.lower > tolerance : interval.upper < -tolerance
        var finding = GuardrailFinding(
            metric: name, oldVariant: oldVariant, newVariant: newVariant, oldTrials: Int(trials.old), newTrials: Int(trials.new),
            oldEvents: Int(events.old), newEvents: Int(events.new), oldUnits: oldUnits, newUnits: newUnits, oldRate: oldRate,
            newRate: newRate, difference: difference, lower: interval.lower, upper: interval.upper, alpha: alpha, tolerance: tolerance,
            direction: direction, regression: regression)
        finding.appVersion = appVersion
        finding.platform = platform
        return finding
    }
}

extension RolloutPlan {
    /// When each step of the current run began serving its split, from `since` (the run's start):
    /// the start, then every step taken after it, ascending. A pause and a resume keep the split,
    /// so they begin no step.
    func stepStarts(since: Date) -> [Date] {
        let stepped = history.filter { $0.action == .stepped && $0.time > since }.map(\.time)
        return [since] + stepped.sorted()
    }
}
