import FlagServerModel
import FlagStatistics
import Foundation

extension RolloutGuardrail {
    /// Compares the new variant's rate with the old one's by the mixture sequential probability
    /// ratio test (``StatisticalTests/mixtureSequential(difference:variance:mixingVariance:alpha:)``),
    /// which stays valid however often it is looked at. The rate is a ratio metric over the
    /// variant's units, Σ events / Σ sessions, with the delta method's variance
    /// (``StatisticalTests/ratio(units:numeratorSum:numeratorSumOfSquares:denominatorSum:denominatorSumOfSquares:sumOfProducts:)``):
    /// the unit, not the session, is the independent draw, so errors clustered in a few users, or
    /// users with many sessions, widen the interval instead of proving a regression. For the crash
    /// rate a unit's crashes count at most its sessions. The mixing variance is the statistics
    /// engine's default, τ² = 0.01 × the pooled variance per session.
    ///
    /// - Returns: `nil` while either variant has fewer than `minimumUnits` units, or while the
    ///   difference has no variance (neither variant has an event yet): not enough data.
    public func evaluate(
        old: UnitRateSums, new: UnitRateSums, oldVariant: String, newVariant: String, alpha: Double,
        minimumUnits: Int = RolloutGuardrail.defaultMinimumUnits
    ) -> GuardrailFinding? {
        guard old.units >= max(2, minimumUnits), new.units >= max(2, minimumUnits) else { return nil }
        func arm(_ sums: UnitRateSums) -> (rate: Double, variance: Double, perSession: Double)? {
            guard
                let ratio = StatisticalTests.ratio(
                    units: Double(sums.units), numeratorSum: sums.events, numeratorSumOfSquares: sums.eventSquares,
                    denominatorSum: sums.sessions, denominatorSumOfSquares: sums.sessionSquares, sumOfProducts: sums.products)
            else { return nil }
            // Var(R̂)·Σs: the variance of one session's rate, the scale the mixing width is on.
            return (ratio.ratio, ratio.variance, ratio.variance * sums.sessions)
        }
        guard let a = arm(old), let b = arm(new) else { return nil }
        let difference = b.rate - a.rate
        let variance = a.variance + b.variance
        let pooled = (a.perSession * old.sessions + b.perSession * new.sessions) / (old.sessions + new.sessions)
        guard
            let interval = StatisticalTests.mixtureSequential(
                difference: difference, variance: variance, mixingVariance: 0.01 * pooled, alpha: alpha)
        else { return nil }
        let regression = direction == .increase ? interval.lower > tolerance : interval.upper < -tolerance
        return GuardrailFinding(
            metric: name, oldVariant: oldVariant, newVariant: newVariant, oldTrials: Int(old.sessions), newTrials: Int(new.sessions),
            oldEvents: Int(old.events), newEvents: Int(new.events), oldUnits: old.units, newUnits: new.units, oldRate: a.rate,
            newRate: b.rate, difference: difference, lower: interval.lower, upper: interval.upper, alpha: alpha, tolerance: tolerance,
            direction: direction, regression: regression)
    }
}
