import Foundation

/// The tests and intervals of the engine, each on plain numbers. The DocC article
/// "Statistical methods" gives every formula with its source.
///
/// None of them reports certainty from a standard error of zero: a test whose variance is zero
/// (or not a positive finite number) returns `nil`, and the engine reports "not enough data".
public enum StatisticalTests {
    /// Welch's unequal-variance t test of mean₁ − mean₀ (Welch 1947), with the
    /// Welch–Satterthwaite degrees of freedom and a two-sided interval at `alpha`.
    ///
    /// - Returns: `nil` when the standard error is not a positive finite number (both variances
    ///   zero, or too small to represent): no test can be made.
    public static func welch(
        mean1: Double, variance1: Double, units1: Double, mean0: Double, variance0: Double, units0: Double, alpha: Double
    ) -> Estimate? {
        let a = variance1 / units1
        let b = variance0 / units0
        let standardError = (a + b).squareRoot()
        let difference = mean1 - mean0
        guard standardError > 0, standardError.isFinite, difference.isFinite else { return nil }
        let degrees = welchDegrees(a: a, b: b, units1: units1, units0: units0)
        let t = StudentT(degreesOfFreedom: degrees)
        let critical = t.upperQuantile(alpha / 2)
        return Estimate(
            estimate: difference, standardError: standardError, lower: difference - critical * standardError,
            upper: difference + critical * standardError, pValue: min(1, 2 * t.survival(abs(difference / standardError))),
            degreesOfFreedom: degrees)
    }

    /// ν = (a + b)²/(a²/(n₁ − 1) + b²/(n₀ − 1)) with a = s₁²/n₁, b = s₀²/n₀, written with the
    /// shares w = a/(a + b) as 1/(w²/(n₁ − 1) + (1 − w)²/(n₀ − 1)) so that no square of a tiny
    /// variance underflows (at 10¹⁰⁰ units the squares are zero and the first form is 0/0).
    static func welchDegrees(a: Double, b: Double, units1: Double, units0: Double) -> Double {
        let w = a / (a + b)
        return 1 / (w * w / (units1 - 1) + (1 - w) * (1 - w) / (units0 - 1))
    }

    /// The relative difference (mean₁ − mean₀)/|mean₀| by Fieller's theorem (Fieller 1954;
    /// Franz 2007 for its use on A/B tests): the interval of the ratio ρ = mean₁/mean₀ is
    /// {ρ : (m₁ − ρm₀)² ≤ q²(s₁² + ρ²s₀²)}, s² = variance/units, q the Welch t critical value, and
    /// the relative difference is sign(m₀)(ρ − 1), so its sign always agrees with the absolute
    /// difference (a negative control mean no longer flips it). Unlike the delta method, the
    /// interval is not forced to be symmetric, which keeps its coverage on small or skewed
    /// samples. The p-value is the Welch test's: ρ = 1 lies outside the interval exactly when
    /// that test rejects. `standardError` is the delta method's, for reference only.
    ///
    /// - Returns: `nil` when the control mean is not distinguishable from 0 at `alpha`
    ///   (m₀² ≤ q²s₀²): the ratio's interval is then unbounded, and no relative figure is given;
    ///   or when no test can be made (see ``welch(mean1:variance1:units1:mean0:variance0:units0:alpha:)``).
    public static func relative(
        mean1: Double, variance1: Double, units1: Double, mean0: Double, variance0: Double, units0: Double, alpha: Double
    ) -> Estimate? {
        guard mean0 != 0,
            let absolute = welch(
                mean1: mean1, variance1: variance1, units1: units1, mean0: mean0, variance0: variance0, units0: units0, alpha: alpha),
            let degrees = absolute.degreesOfFreedom
        else { return nil }
        let s1 = variance1 / units1
        let s0 = variance0 / units0
        let q = StudentT(degreesOfFreedom: degrees).upperQuantile(alpha / 2)
        let a = mean0 * mean0 - q * q * s0
        guard a > 0 else { return nil }
        // The roots of aρ² − 2m₁m₀ρ + (m₁² − q²s₁²) = 0; the discriminant is
        // q²(m₀²s₁² + m₁²s₀² − q²s₀s₁), positive whenever a > 0.
        let discriminant = q * q * (mean0 * mean0 * s1 + mean1 * mean1 * s0 - q * q * s0 * s1)
        let root = max(0, discriminant).squareRoot()
        let low = (mean1 * mean0 - root) / a
        let high = (mean1 * mean0 + root) / a
        let sign: Double = mean0 > 0 ? 1 : -1
        let lift = (mean1 - mean0) / abs(mean0)
        let bounds = sign > 0 ? (low - 1, high - 1) : (1 - high, 1 - low)
        let m0Squared = mean0 * mean0
        let deltaVariance = s1 / m0Squared + mean1 * mean1 * s0 / (m0Squared * m0Squared)
        return Estimate(
            estimate: lift, standardError: deltaVariance.squareRoot(), lower: bounds.0, upper: bounds.1,
            pValue: absolute.pValue, degreesOfFreedom: degrees)
    }

    /// A ratio metric Σ numerator / Σ denominator over an arm's units (clicks per session, crashes
    /// per session counted per user) and the variance of that ratio by the delta method, with the
    /// unit, not the event, as the independent draw (Deng, Knoblich & Lu 2018, §3):
    /// Var(R̂) ≈ (s²_N − 2R·s_ND + R²·s²_D)/(n·D̄²), R = ΣN/ΣD, D̄ = ΣD/n, s the sample
    /// (co)variances of the per-unit numerators and denominators.
    ///
    /// - Returns: `nil` when the denominator's sum is not positive or fewer than 2 units.
    public static func ratio(
        units: Double, numeratorSum: Double, numeratorSumOfSquares: Double, denominatorSum: Double,
        denominatorSumOfSquares: Double, sumOfProducts: Double
    ) -> (ratio: Double, variance: Double)? {
        guard units >= 2, denominatorSum > 0 else { return nil }
        let r = numeratorSum / denominatorSum
        let meanDenominator = denominatorSum / units
        let n1 = units - 1
        let varianceN = ArmStatistics.centeredSquares(squares: numeratorSumOfSquares, sum: numeratorSum, units: units).value / n1
        let varianceD = ArmStatistics.centeredSquares(squares: denominatorSumOfSquares, sum: denominatorSum, units: units).value / n1
        let covariance = (sumOfProducts - numeratorSum * denominatorSum / units) / n1
        let spread = max(0, varianceN - 2 * r * covariance + r * r * varianceD)
        return (r, spread / (units * meanDenominator * meanDenominator))
    }

    /// The normal-mixture sequential probability ratio test of "difference = 0" for an estimate
    /// with variance `variance`, mixing over effects θ ~ N(0, τ²):
    /// Λ = √(V/(V+τ²)) · exp(τ²d² / (2V(V+τ²))), always-valid p = min(1, 1/Λ), and the confidence
    /// sequence {θ : Λ(θ) < 1/α}, half-width √(V(V+τ²)/τ² · (2 log(1/α) + log((V+τ²)/V))).
    ///
    /// - Returns: `nil` unless the variance and τ² are positive finite numbers.
    public static func mixtureSequential(
        difference: Double, variance: Double, mixingVariance: Double, alpha: Double
    ) -> (lower: Double, upper: Double, pValue: Double)? {
        guard variance > 0, variance.isFinite, mixingVariance > 0, mixingVariance.isFinite, difference.isFinite else {
            return nil
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
    ///
    /// - Precondition: `standardError` is positive (the engine gives no view without one).
    public static func bayesian(difference: Double, standardError: Double) -> BayesianEstimate {
        precondition(standardError > 0, "a Bayesian view needs a positive standard error")
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

    /// The anytime-valid sample ratio test of Lindon & Malek (2022): a Dirichlet-multinomial
    /// mixture over the arms' shares against the planned ones. With planned shares pᵢ (the
    /// weights normalized), prior Dirichlet(K·pᵢ) and observed counts xᵢ (N in all), the Bayes
    /// factor is BF = Γ(K)/Γ(K + N) · Πᵢ Γ(Kpᵢ + xᵢ)/Γ(Kpᵢ) / Πᵢ pᵢ^xᵢ, a nonnegative
    /// martingale under the planned split, so p = min(1, 1/BF) may be read at every look
    /// (Ville's inequality) without inflating false alarms.
    ///
    /// - Parameter concentration: K, the prior's concentration: the shares it expects deviate by
    ///   about √(p(1 − p)/K); larger K looks for smaller deviations.
    public static func sequentialSampleRatio(observed: [Double], weights: [Double], concentration: Double) -> Double {
        let weightTotal = weights.reduce(0, +)
        let total = observed.reduce(0, +)
        var logFactor = lgamma(concentration) - lgamma(concentration + total)
        for (x, w) in zip(observed, weights) {
            let p = w / weightTotal
            let prior = concentration * p
            logFactor += lgamma(prior + x) - lgamma(prior)
            if x > 0 { logFactor -= x * log(p) }
        }
        return min(1, exp(-logFactor))
    }

    /// Benjamini–Hochberg adjusted p-values (Benjamini & Hochberg 1995; the "adjusted" form of
    /// Yekutieli & Benjamini 1999): for the i-th smallest of m, min over j ≥ i of m·p₍ⱼ₎/j,
    /// capped at 1, returned in the input's order. A p-value that is not a number counts as 1 (no
    /// evidence) and is adjusted to 1; it never lowers another's adjustment.
    public static func benjaminiHochberg(_ pValues: [Double]) -> [Double] {
        let clean = pValues.map { $0.isNaN ? 1 : min(1, max(0, $0)) }
        let m = Double(clean.count)
        let order = clean.indices.sorted { clean[$0] < clean[$1] }
        var adjusted = [Double](repeating: 1, count: clean.count)
        var running = 1.0
        for (rank, index) in order.enumerated().reversed() {
            running = min(running, m * clean[index] / Double(rank + 1))
            adjusted[index] = min(1, running)
        }
        return adjusted
    }
}
