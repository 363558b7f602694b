import Foundation

/// How many units an experiment needs to detect an effect, and for how long it must run.
///
/// By default the plan sizes the test the engine decides with: the mixture sequential test
/// (``StatisticalTests/mixtureSequential(difference:variance:mixingVariance:alpha:)``) with the
/// engine's mixing width, at a significance level shared by every comparison the experiment
/// makes ((arms − 1) × metrics, Bonferroni's bound on the Benjamini–Hochberg adjustment the
/// engine applies). Sizing a fixed-horizon test instead, as many calculators do, leaves the
/// sequential test with a power of 0.3–0.5 at the planned size.
public struct SampleSizePlan: Sendable, Hashable, Codable {
    /// The metric the plan is sized for, and what its variance is made of.
    public enum Metric: Sendable, Hashable, Codable {
        /// A conversion rate with this baseline (0 < p < 1).
        case conversion(baseline: Double)
        /// A mean with this per-unit standard deviation.
        case mean(standardDeviation: Double)
    }

    /// The test the plan sizes.
    public enum Test: String, Sendable, Hashable, Codable, CaseIterable {
        /// The mixture sequential test the engine and the server decide with (the default).
        case sequential
        /// A two-sided fixed-horizon z test read once, at the planned size.
        case fixedHorizon = "fixed-horizon"
    }

    /// Units needed in each arm.
    public var unitsPerArm: Double
    /// Units needed in all arms together.
    public var totalUnits: Double
    /// Days at the given traffic, rounded up; `nil` without traffic.
    public var days: Double?
    /// The test sized.
    public var test: Test
    /// Comparisons the experiment makes: (arms − 1) × metrics.
    public var comparisons: Int
    /// The significance level each comparison is sized at: α / comparisons.
    public var alphaPerComparison: Double
    /// The sequential test's mixing standard deviation, as a share of the metric's standard
    /// deviation; `nil` for a fixed-horizon plan.
    public var mixingWidth: Double?
    /// The power the plan reaches at `unitsPerArm`: at least the power asked for in a sequential
    /// plan; in a fixed-horizon one, the normal approximation's power under the alternative.
    public var achievedPower: Double

    /// The largest unit count a plan searches (beyond it the effect is not detectable in practice).
    public static let maximumUnitsPerArm = 1e12

    /// Plans a two-sided test of each treatment arm against the control, with equal allocation.
    ///
    /// Fixed horizon, for a mean: n = 2σ²(z₁₋α/₂ + z₁₋β)²/δ². For a conversion rate p₁ → p₂ = p₁ + δ:
    /// n = (z₁₋α/₂·√(2p̄(1−p̄)) + z₁₋β·√(p₁(1−p₁) + p₂(1−p₂)))²/δ², p̄ = (p₁ + p₂)/2
    /// (Fleiss, Levin & Paik 2003, §4.2, without continuity correction).
    ///
    /// Sequential: the smallest n at which the test, read once at n, rejects with the asked power
    /// (reading it earlier as well only adds chances to reject). With V = (σ₁² + σ₂²)/n the
    /// variance of the difference and τ² = w²(σ₁² + σ₂²)/2, it rejects when
    /// d² ≥ c² = 2V(V + τ²)/τ² · (log(1/α′) + ½·log((V + τ²)/V)), so the power is
    /// Φ((δ − c)/√V) + Φ((−δ − c)/√V) (Johari, Pekelis & Walsh 2017 for the test).
    ///
    /// - Parameters:
    ///   - effect: The minimum absolute difference worth detecting (δ, on the metric's scale).
    ///   - arms: Arms including the control.
    ///   - metrics: Metrics the experiment decides on (each arm is compared on each).
    ///   - mixingWidth: w, the sequential test's mixing standard deviation as a share of the
    ///     metric's standard deviation (the engine's default, 0.1, when absent).
    ///   - unitsPerDay: Units entering the experiment per day, all arms together.
    /// - Throws: ``StatisticsError`` for a parameter out of range, naming it.
    public init(
        metric: Metric, effect: Double, alpha: Double = 0.05, power: Double = 0.8, arms: Int = 2, metrics: Int = 1,
        test: Test = .sequential, mixingWidth: Double? = nil, unitsPerDay: Double? = nil
    ) throws(StatisticsError) {
        let setting = try Setting(
            metric: metric, alpha: alpha, power: power, arms: arms, metrics: metrics, test: test, mixingWidth: mixingWidth)
        guard effect != 0, effect.isFinite else { throw StatisticsError("effect", "must be a non-zero number, not \(effect)") }
        if let unitsPerDay { guard unitsPerDay > 0, unitsPerDay.isFinite else { throw StatisticsError("unitsPerDay", "must be a positive number") } }
        let variances = try setting.variances(effect: effect)
        let n: Double
        switch test {
        case .fixedHorizon:
            let zAlpha = Normal.upperQuantile(setting.alphaPerComparison / 2)
            let zBeta = Normal.quantile(power)
            switch metric {
            case .mean:
                n = variances.0 * 2 * (zAlpha + zBeta) * (zAlpha + zBeta) / (effect * effect)
            case .conversion(let p1):
                let p2 = p1 + effect
                let pooled = (p1 + p2) / 2
                let root = zAlpha * (2 * pooled * (1 - pooled)).squareRoot() + zBeta * (p1 * (1 - p1) + p2 * (1 - p2)).squareRoot()
                n = root * root / (effect * effect)
            }
        case .sequential:
            // The power grows with n; find the smallest n reaching it by bisection on a log scale.
            var low = 2.0
            var high = 2.0
            while setting.power(effect: effect, variances: variances, unitsPerArm: high) < power {
                guard high < Self.maximumUnitsPerArm else {
                    throw StatisticsError("effect", "\(effect) is not detectable with fewer than 1e12 units per arm")
                }
                low = high
                high = min(high * 2, Self.maximumUnitsPerArm)
            }
            while high - low > 1 {
                let middle = ((low + high) / 2).rounded(.down)
                if setting.power(effect: effect, variances: variances, unitsPerArm: middle) >= power { high = middle } else { low = middle }
            }
            n = high
        }
        let perArm = max(2, n.rounded(.up))
        let total = perArm * Double(arms)
        unitsPerArm = perArm
        totalUnits = total
        days = unitsPerDay.map { (total / $0).rounded(.up) }
        self.test = test
        comparisons = setting.comparisons
        alphaPerComparison = setting.alphaPerComparison
        self.mixingWidth = test == .sequential ? setting.mixingWidth : nil
        achievedPower = setting.power(effect: effect, variances: variances, unitsPerArm: perArm)
    }

    /// The smallest absolute effect the test detects with `power` at `unitsPerArm` units per arm
    /// (for a conversion, the increase of the baseline; the decrease of the same size is detected
    /// at least as easily when the baseline is below ½).
    ///
    /// - Throws: ``StatisticsError`` for a parameter out of range, naming it.
    public static func minimumDetectableEffect(
        metric: Metric, unitsPerArm: Double, alpha: Double = 0.05, power: Double = 0.8, arms: Int = 2, metrics: Int = 1,
        test: Test = .sequential, mixingWidth: Double? = nil
    ) throws(StatisticsError) -> Double {
        let setting = try Setting(
            metric: metric, alpha: alpha, power: power, arms: arms, metrics: metrics, test: test, mixingWidth: mixingWidth)
        guard unitsPerArm >= 2, unitsPerArm <= maximumUnitsPerArm else {
            throw StatisticsError("unitsPerArm", "must be from 2 to 1e12, not \(unitsPerArm)")
        }
        // The power grows with the effect; bisect between 0 and the largest effect the metric allows.
        var low = 0.0
        var high: Double
        switch metric {
        case .mean(let deviation): high = deviation
            while setting.power(effect: high, variances: try setting.variances(effect: high), unitsPerArm: unitsPerArm) < power {
                high *= 2
                guard high.isFinite else { throw StatisticsError("unitsPerArm", "no effect is detectable at \(unitsPerArm) units") }
            }
        case .conversion(let baseline): high = (1 - baseline) * (1 - 1e-12)
            guard setting.power(effect: high, variances: try setting.variances(effect: high), unitsPerArm: unitsPerArm) >= power else {
                throw StatisticsError("unitsPerArm", "no increase of the baseline \(baseline) is detectable with power \(power) at \(unitsPerArm) units per arm")
            }
        }
        for _ in 0..<200 where high - low > 1e-12 * high {
            let middle = (low + high) / 2
            if setting.power(effect: middle, variances: try setting.variances(effect: middle), unitsPerArm: unitsPerArm) >= power {
                high = middle
            } else {
                low = middle
            }
        }
        return high
    }

    /// The validated settings shared by the plan and the detectable effect.
    private struct Setting {
        var metric: Metric
        var test: Test
        var comparisons: Int
        var alphaPerComparison: Double
        var mixingWidth: Double

        init(
            metric: Metric, alpha: Double, power: Double, arms: Int, metrics: Int, test: Test, mixingWidth: Double?
        ) throws(StatisticsError) {
            _ = try StatisticsEngine.significance(alpha, at: "alpha")
            guard power > 0, power < 1 else { throw StatisticsError("power", "must be between 0 and 1 (exclusive), not \(power)") }
            guard arms >= 2, arms <= StatisticsEngine.maximumArms else {
                throw StatisticsError("arms", "must be from 2 (the control and one treatment) to \(StatisticsEngine.maximumArms), not \(arms)")
            }
            guard metrics >= 1, metrics <= StatisticsEngine.maximumMetrics else {
                throw StatisticsError("metrics", "must be from 1 to \(StatisticsEngine.maximumMetrics), not \(metrics)")
            }
            let width = mixingWidth ?? StatisticsEngine.defaultMixingWidth
            guard width > 0, width <= 100 else { throw StatisticsError("mixingWidth", "must be a positive share of the standard deviation up to 100, not \(width)") }
            switch metric {
            case .mean(let deviation):
                guard deviation > 0, deviation.isFinite, deviation <= StatisticsEngine.maximumMagnitude else {
                    throw StatisticsError("standardDeviation", "must be a positive number, not \(deviation)")
                }
            case .conversion(let p):
                guard p > 0, p < 1 else { throw StatisticsError("baseline", "a conversion rate must be between 0 and 1 (exclusive), not \(p)") }
            }
            self.metric = metric
            self.test = test
            comparisons = (arms - 1) * metrics
            alphaPerComparison = alpha / Double(comparisons)
            self.mixingWidth = width
        }

        /// The per-unit variances of the control and the treatment.
        func variances(effect: Double) throws(StatisticsError) -> (Double, Double) {
            switch metric {
            case .mean(let deviation):
                return (deviation * deviation, deviation * deviation)
            case .conversion(let p1):
                let p2 = p1 + effect
                guard p2 > 0, p2 < 1 else { throw StatisticsError("effect", "baseline + effect must stay between 0 and 1, not \(p2)") }
                return (p1 * (1 - p1), p2 * (1 - p2))
            }
        }

        /// The power at n units per arm of the test sized.
        func power(effect: Double, variances: (Double, Double), unitsPerArm n: Double) -> Double {
            let v = (variances.0 + variances.1) / n
            let sd = v.squareRoot()
            let critical: Double
            switch test {
            case .fixedHorizon:
                // The fixed-horizon z test, with the variance under the alternative.
                critical = Normal.upperQuantile(alphaPerComparison / 2) * sd
            case .sequential:
                let tau2 = mixingWidth * mixingWidth * (variances.0 + variances.1) / 2
                let total = v + tau2
                critical = (2 * v * total / tau2 * (log(1 / alphaPerComparison) + 0.5 * log(total / v))).squareRoot()
            }
            let delta = abs(effect)
            return Normal.cdf((delta - critical) / sd) + Normal.cdf((-delta - critical) / sd)
        }
    }
}
