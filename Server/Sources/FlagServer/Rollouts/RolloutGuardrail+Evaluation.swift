import FlagStatistics
import Foundation

/// The result of one guardrail at one evaluation: the counts it read, the rates, the always-valid
/// interval of the difference and whether it proves a regression.
public struct GuardrailFinding: Sendable, Hashable, Codable {
    /// ``RolloutGuardrail/name``: `crash rate`, …
    public var metric: String
    public var oldVariant: String
    public var newVariant: String
    /// `$session` events attributed to each variant since the run started.
    public var oldTrials: Int
    public var newTrials: Int
    /// Numerator events (`$crash`, …) attributed to each variant.
    public var oldEvents: Int
    public var newEvents: Int
    public var oldRate: Double
    public var newRate: Double
    /// newRate − oldRate.
    public var difference: Double
    /// The always-valid (1 − α) interval of the difference (mixture sequential test).
    public var lower: Double
    public var upper: Double
    public var alpha: Double
    public var tolerance: Double
    public var direction: RolloutGuardrail.Direction
    /// Whether the interval lies entirely beyond the tolerance in the harmful direction.
    public var regression: Bool
    /// For an experiment-metric guardrail, the metric's kind (`conversion`, `mean`, `count`): its
    /// trials are units and its events the sum per variant; `nil` for the rate guardrails.
    public var kind: String? = nil

    /// The bound that crossed (or would cross) the tolerance: the lower bound for an increase,
    /// the upper one for a decrease.
    public var bound: Double { direction == .increase ? lower : upper }

    /// One sentence: "crash rate 4.10 % (new) vs 2.02 % (old): +2.08 points, 95 % interval
    /// [+0.61, +3.55], lower bound above the tolerance +0.00".
    public var summary: String {
        func points(_ x: Double) -> String { (x >= 0 ? "+" : "") + String(format: "%.2f", x * 100) }
        let level = String(format: "%g", (1 - alpha) * 100)
        let side = direction == .increase ? "lower bound" : "upper bound"
        let relation = regression ? (direction == .increase ? "above" : "below") : (direction == .increase ? "not above" : "not below")
        let tolerated = direction == .increase ? tolerance : -tolerance
        if kind == "mean" || kind == "count" {
            func plain(_ x: Double, signed: Bool = false) -> String { (signed && x >= 0 ? "+" : "") + String(format: "%.4g", x) }
            return "\(metric) \(kind ?? "") \(plain(newRate)) per unit (\(newVariant), \(newTrials) units) vs \(plain(oldRate)) "
                + "(\(oldVariant), \(oldTrials) units): \(plain(difference, signed: true)), \(level) % always-valid interval "
                + "[\(plain(lower, signed: true)), \(plain(upper, signed: true))], \(side) \(relation) the tolerance \(plain(tolerated, signed: true))"
        }
        return "\(metric) \(String(format: "%.2f", newRate * 100)) % (\(newVariant), \(newEvents)/\(newTrials)) vs "
            + "\(String(format: "%.2f", oldRate * 100)) % (\(oldVariant), \(oldEvents)/\(oldTrials)): \(points(difference)) points, "
            + "\(level) % always-valid interval [\(points(lower)), \(points(upper))], \(side) \(relation) the tolerance \(points(tolerated))"
    }
}

extension RolloutGuardrail {
    /// The fewest trials each variant needs before the guardrail is evaluated.
    public static let minimumTrials = 2

    /// Compares the new variant's rate with the old one's by the mixture sequential probability
    /// ratio test (``StatisticalTests/mixtureSequential(difference:variance:mixingVariance:alpha:)``),
    /// which stays valid however often it is looked at. Each trial (`$session`) is a unit of the
    /// test: for the crash rate, a Bernoulli trial (a crash is a success: sum = sum of squares =
    /// crashes, as `ArmStatistics` holds a conversion); for error and event rates, which may count
    /// several events per session, a Poisson count (variance = mean). The mixing variance is the
    /// statistics engine's default, τ² = 0.01 × the pooled variance.
    ///
    /// - Returns: `nil` while either variant has fewer than ``minimumTrials`` trials.
    public func evaluate(
        old: (trials: Int, events: Int), new: (trials: Int, events: Int), oldVariant: String, newVariant: String, alpha: Double
    ) -> GuardrailFinding? {
        guard old.trials >= Self.minimumTrials, new.trials >= Self.minimumTrials else { return nil }
        let bernoulli = metric == .crashRate
        func arm(_ counts: (trials: Int, events: Int)) -> (mean: Double, variance: Double, units: Double) {
            let units = Double(counts.trials)
            // A crash is reported at most once per session: more crashes than sessions (events
            // lost or sent late) count as every session crashing.
            let events = bernoulli ? Double(min(counts.events, counts.trials)) : Double(counts.events)
            let mean = events / units
            if bernoulli {
                let statistics = ArmStatistics(units: units, sum: events, sumOfSquares: events)
                let squares = statistics.sumOfSquares ?? statistics.sum
                return (mean, max(0, (squares - statistics.sum * statistics.sum / units) / (units - 1)), units)
            }
            return (mean, mean, units)
        }
        let a = arm(old)
        let b = arm(new)
        let difference = b.mean - a.mean
        let variance = b.variance / b.units + a.variance / a.units
        let pooled = ((a.units - 1) * a.variance + (b.units - 1) * b.variance) / (a.units + b.units - 2)
        guard
            let interval = StatisticalTests.mixtureSequential(
                difference: difference, variance: variance, mixingVariance: 0.01 * pooled, alpha: alpha)
        else { return nil }
        let regression = direction == .increase ? interval.lower > tolerance : interval.upper < -tolerance
        return GuardrailFinding(
            metric: name, oldVariant: oldVariant, newVariant: newVariant, oldTrials: old.trials, newTrials: new.trials,
            oldEvents: old.events, newEvents: new.events, oldRate: a.mean, newRate: b.mean, difference: difference,
            lower: interval.lower, upper: interval.upper, alpha: alpha, tolerance: tolerance, direction: direction,
            regression: regression)
    }
}
