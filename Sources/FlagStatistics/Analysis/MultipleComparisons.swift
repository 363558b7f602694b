import Foundation

/// Family-wise error control when an experiment compares several arms or metrics at once. The
/// DocC article "Many arms and percentile metrics" gives each method with its source.
public enum MultipleComparisons {
    /// Holm's step-down adjusted p-values (S. Holm, "A simple sequentially rejective multiple test
    /// procedure", *Scandinavian Journal of Statistics* 6 (1979) 65–70), in the input's order.
    ///
    /// With the m p-values sorted, p₍₁₎ ≤ … ≤ p₍ₘ₎, the adjusted value of the i-th is
    /// max over j ≤ i of min(1, (m − j + 1)·p₍ⱼ₎). Rejecting every hypothesis whose adjusted
    /// p-value is at most α controls the family-wise error rate at α under any dependence.
    ///
    /// A value that is not a probability (NaN, negative, above 1, infinite) is a hypothesis whose
    /// test could not be computed: it still counts in m and ranks last, as if its p-value were 1
    /// (so it cannot make another hypothesis look more significant), and its own adjusted value is
    /// NaN, never a number that could be mistaken for a result.
    ///
    ///     MultipleComparisons.holm([0.01, 0.04, 0.03, 0.005]) // [0.03, 0.06, 0.06, 0.02]
    public static func holm(_ pValues: [Double]) -> [Double] {
        let m = pValues.count
        func isProbability(_ p: Double) -> Bool { p >= 0 && p <= 1 }
        // Unknown p-values rank last (as 1); ties keep their input order.
        let order = pValues.indices.sorted { left, right in
            let a = isProbability(pValues[left]) ? pValues[left] : 1
            let b = isProbability(pValues[right]) ? pValues[right] : 1
            return a != b ? a < b : left < right
        }
        var adjusted = [Double](repeating: .nan, count: m)
        var running = 0.0
        for (rank, index) in order.enumerated() {
            let p = isProbability(pValues[index]) ? pValues[index] : 1
            running = max(running, min(1, Double(m - rank) * p))
            if isProbability(pValues[index]) { adjusted[index] = running }
        }
        return adjusted
    }

    /// Dunnett's two-sided many-to-one adjusted p-values (C. W. Dunnett 1955): for each treatment's
    /// t statistic against the shared control, P(max over all k treatments of |Tᵢ| ≥ |tⱼ|) under
    /// the null, from ``DunnettDistribution``.
    ///
    /// - Parameters:
    ///   - tStatistics: t₁ … t_k, (mean difference)/(its standard error), one per treatment arm in
    ///     the order of `treatmentUnits`.
    ///   - controlUnits: n₀.
    ///   - treatmentUnits: n₁ … n_k.
    ///   - degreesOfFreedom: ν of the variance estimate (pooled: Σnᵢ − (k + 1)); `.infinity` for
    ///     the normal approximation.
    /// - Returns: The adjusted p-values, in input order.
    /// - Throws: ``StatisticsError`` for k < 1, a count not above 1, ν < 1, a non-finite t, or
    ///   as many t statistics as treatment arms not given.
    public static func dunnett(
        tStatistics: [Double], controlUnits: Double, treatmentUnits: [Double], degreesOfFreedom: Double
    ) throws(StatisticsError) -> [Double] {
        let distribution = try DunnettDistribution(
            controlUnits: controlUnits, treatmentUnits: treatmentUnits, degreesOfFreedom: degreesOfFreedom)
        guard tStatistics.count == treatmentUnits.count else {
            throw StatisticsError(
                "tStatistics", "one per treatment arm: \(treatmentUnits.count) arms, \(tStatistics.count) statistics")
        }
        for (index, t) in tStatistics.enumerated() where !t.isFinite {
            throw StatisticsError("tStatistics[\(index)]", "must be a finite number, not \(t)")
        }
        return tStatistics.map { distribution.survival(abs($0)) }
    }

    /// Dunnett's two-sided critical value c: P(max |Tᵢ| < c) = 1 − α, so that dᵢ ± c·SEᵢ are
    /// simultaneous 1 − α intervals for all k treatment-minus-control differences.
    ///
    /// - Throws: ``StatisticsError`` for α outside (0, 1) and the inputs
    ///   ``dunnett(tStatistics:controlUnits:treatmentUnits:degreesOfFreedom:)`` refuses.
    public static func dunnettCriticalValue(
        alpha: Double, controlUnits: Double, treatmentUnits: [Double], degreesOfFreedom: Double
    ) throws(StatisticsError) -> Double {
        guard alpha > 0, alpha < 1 else {
            throw StatisticsError("alpha", "must be between 0 and 1 (exclusive), not \(alpha)")
        }
        let distribution = try DunnettDistribution(
            controlUnits: controlUnits, treatmentUnits: treatmentUnits, degreesOfFreedom: degreesOfFreedom)
        return try distribution.criticalValue(alpha: alpha)
    }
}
