import Foundation

/// The tests and intervals of the engine, each on plain numbers. The DocC article
/// "Statistical methods" gives every formula with its source.
public enum StatisticalTests {
    /// Welch's unequal-variance t test of mean₁ − mean₀ (Welch 1947), with the
    /// Welch–Satterthwaite degrees of freedom and a two-sided interval at `alpha`.
    public static func welch(
        mean1: Double, variance1: Double, units1: Double, mean0: Double, variance0: Double, units0: Double, alpha: Double
    ) -> Estimate {
        let a = variance1 / units1
        let b = variance0 / units0
        let standardError = (a + b).squareRoot()
        let difference = mean1 - mean0
        guard standardError > 0 else { return degenerate(difference) }
        let degrees = (a + b) * (a + b) / (a * a / (units1 - 1) + b * b / (units0 - 1))
        let t = StudentT(degreesOfFreedom: degrees)
        let critical = t.quantile(1 - alpha / 2)
        return Estimate(
            estimate: difference, standardError: standardError, lower: difference - critical * standardError,
            upper: difference + critical * standardError, pValue: min(1, 2 * t.survival(abs(difference / standardError))),
            degreesOfFreedom: degrees)
    }

    /// The relative difference mean₁/mean₀ − 1 with the delta method's variance
    /// Var ≈ v₁/(n₁m₀²) + m₁²v₀/(n₀m₀⁴) (the two means independent), normal interval and test.
    /// `nil` when mean₀ is 0.
    public static func relative(
        mean1: Double, variance1: Double, units1: Double, mean0: Double, variance0: Double, units0: Double, alpha: Double
    ) -> Estimate? {
        guard mean0 != 0 else { return nil }
        let lift = mean1 / mean0 - 1
        let m0Squared = mean0 * mean0
        let variance = variance1 / (units1 * m0Squared) + mean1 * mean1 * variance0 / (units0 * m0Squared * m0Squared)
        let standardError = variance.squareRoot()
        guard standardError > 0 else { return degenerate(lift) }
        let critical = Normal.quantile(1 - alpha / 2)
        return Estimate(
            estimate: lift, standardError: standardError, lower: lift - critical * standardError,
            upper: lift + critical * standardError, pValue: min(1, 2 * Normal.survival(abs(lift) / standardError)),
            degreesOfFreedom: nil)
    }

    /// The normal-mixture sequential probability ratio test of "difference = 0" for an estimate
    /// with variance `variance`, mixing over effects θ ~ N(0, τ²):
    /// Λ = √(V/(V+τ²)) · exp(τ²d² / (2V(V+τ²))), always-valid p = min(1, 1/Λ), and the confidence
    /// sequence {θ : Λ(θ) < 1/α}, half-width √(V(V+τ²)/τ² · (2 log(1/α) + log((V+τ²)/V))).
    public static func mixtureSequential(
        difference: Double, variance: Double, mixingVariance: Double, alpha: Double
    ) -> (lower: Double, upper: Double, pValue: Double) {
        guard variance > 0, mixingVariance > 0 else {
            return (difference, difference, difference == 0 ? 1 : 0)
        }
        let total = variance + mixingVariance
        let logLikelihoodRatio = 0.5 * log(variance / total)
            + mixingVariance * difference * difference / (2 * variance * total)
        let pValue = min(1, exp(-logLikelihoodRatio))
        let halfWidth = (variance * total / mixingVariance * (2 * log(1 / alpha) + log(total / variance))).squareRoot()
        return (difference - halfWidth, difference + halfWidth, pValue)
    }

    /// Under flat priors on both means and the normal approximation, the difference D (in the
    /// good direction) is N(d, s²) a posteriori: P(D > 0) = Φ(d/s) and
    /// E[max(0, −D)] = s·φ(d/s) − d·Φ(−d/s).
    public static func bayesian(difference: Double, standardError: Double) -> BayesianEstimate {
        guard standardError > 0 else {
            return BayesianEstimate(
                chanceToBeatControl: difference > 0 ? 1 : (difference < 0 ? 0 : 0.5), expectedLoss: max(0, -difference))
        }
        let z = difference / standardError
        return BayesianEstimate(
            chanceToBeatControl: Normal.cdf(z),
            expectedLoss: max(0, standardError * Normal.density(z) - difference * Normal.cdf(-z)))
    }

    /// Pearson's chi-squared goodness-of-fit test of `observed` counts against `weights`
    /// (normalized to the observed total), k − 1 degrees of freedom.
    public static func sampleRatio(observed: [Double], weights: [Double]) -> (chiSquared: Double, degreesOfFreedom: Double, pValue: Double, expected: [Double]) {
        let total = observed.reduce(0, +)
        let weightTotal = weights.reduce(0, +)
        let expected = weights.map { total * $0 / weightTotal }
        var chiSquared = 0.0
        for (o, e) in zip(observed, expected) { chiSquared += (o - e) * (o - e) / e }
        let degrees = Double(observed.count - 1)
        return (chiSquared, degrees, ChiSquared(degreesOfFreedom: degrees).survival(chiSquared), expected)
    }

    /// Benjamini–Hochberg adjusted p-values (Benjamini & Hochberg 1995; the "adjusted" form of
    /// Yekutieli & Benjamini 1999): for the i-th smallest of m, min over j ≥ i of m·p₍ⱼ₎/j,
    /// capped at 1, returned in the input's order.
    public static func benjaminiHochberg(_ pValues: [Double]) -> [Double] {
        let m = Double(pValues.count)
        let order = pValues.indices.sorted { pValues[$0] < pValues[$1] }
        var adjusted = [Double](repeating: 1, count: pValues.count)
        var running = 1.0
        for (rank, index) in order.enumerated().reversed() {
            running = min(running, m * pValues[index] / Double(rank + 1))
            adjusted[index] = min(1, running)
        }
        return adjusted
    }

    private static func degenerate(_ difference: Double) -> Estimate {
        Estimate(
            estimate: difference, standardError: 0, lower: difference, upper: difference,
            pValue: difference == 0 ? 1 : 0, degreesOfFreedom: nil)
    }
}
