import Foundation

/// A percentile metric: the difference of two arms' p-quantiles (treatment − control) with a
/// distribution-free normal interval, from each arm's per-unit values.
///
/// Each arm's quantile and standard error are a ``QuantileEstimate``; the arms being independent,
/// SE = √(SE₁² + SE₀²), the interval is d ± z_{1−α/2}·SE and the two-sided p-value
/// 2Φ(−|d|/SE). For p = ½ this is the interval for a difference of medians of Price & Bonett
/// (R. M. Price, D. G. Bonett, *Journal of Statistical Computation and Simulation* 72 (2002)
/// 119–124); the DocC article "Many arms and percentile metrics" gives its coverage in this
/// project's own simulation and where it fails (ties, tail quantiles of small arms).
///
/// The unit of analysis is the unit of assignment: one value per unit (its own mean latency, its
/// revenue), not one per event, so that the values are independent.
///
///     let p90 = try QuantileDifference(treatment: newLatencies, control: oldLatencies, probability: 0.9)
///     p90.estimate, p90.lower, p90.upper, p90.pValue
public struct QuantileDifference: Sendable, Hashable, Codable {
    /// p, the quantile compared (0.5 for the median).
    public let probability: Double
    /// The interval's significance level.
    public let alpha: Double
    /// The treatment arm's quantile and its standard error.
    public let treatment: QuantileEstimate
    /// The control arm's quantile and its standard error.
    public let control: QuantileEstimate
    /// treatment.quantile − control.quantile.
    public let estimate: Double
    /// √(SE₁² + SE₀²): the difference's standard error.
    public let standardError: Double
    /// The lower end of the (1 − α) interval, d − z·SE.
    public let lower: Double
    /// The upper end of the (1 − α) interval, d + z·SE.
    public let upper: Double
    /// The two-sided p-value of no difference, 2Φ(−|d|/SE).
    public let pValue: Double

    /// - Parameters:
    ///   - treatment: The treatment arm's values, one per unit.
    ///   - control: The control arm's values, one per unit.
    ///   - probability: p: 0.5 for the median, 0.9 for the 90th percentile.
    ///   - alpha: The interval's significance level.
    /// - Throws: ``StatisticsError`` naming `alpha`, `probability`, `treatment` or `control` (with
    ///   the index of a value that is not finite) when the input cannot give an interval.
    public init(treatment: [Double], control: [Double], probability: Double, alpha: Double = 0.05) throws(StatisticsError) {
        guard alpha > 0, alpha < 1 else {
            throw StatisticsError("alpha", "must be between 0 and 1 (exclusive), not \(alpha)")
        }
        let treated = try QuantileEstimate(values: treatment, probability: probability, path: "treatment")
        let base = try QuantileEstimate(values: control, probability: probability, path: "control")
        let difference = treated.quantile - base.quantile
        let standardError = (treated.standardError * treated.standardError + base.standardError * base.standardError)
            .squareRoot()
        guard difference.isFinite, standardError.isFinite else {
            throw StatisticsError("treatment", "the values are too large for the difference to be represented")
        }
        let critical = -Normal.quantile(alpha / 2)
        self.probability = probability
        self.alpha = alpha
        self.treatment = treated
        self.control = base
        estimate = difference
        self.standardError = standardError
        lower = difference - critical * standardError
        upper = difference + critical * standardError
        pValue = min(1, 2 * Normal.survival(abs(difference) / standardError))
    }
}
