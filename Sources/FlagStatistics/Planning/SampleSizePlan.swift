/// How many units an experiment needs to detect an effect, and for how long it must run.
public struct SampleSizePlan: Sendable, Hashable, Codable {
    public enum Metric: Sendable, Hashable, Codable {
        /// A conversion rate with this baseline (0 < p < 1).
        case conversion(baseline: Double)
        /// A mean with this per-unit standard deviation.
        case mean(standardDeviation: Double)
    }

    /// Units needed in each arm.
    public var unitsPerArm: Double
    /// Units needed in all arms together.
    public var totalUnits: Double
    /// Days at the given traffic, rounded up; `nil` without traffic.
    public var days: Double?

    /// Plans a two-sided fixed-horizon test of each treatment arm against the control, with equal
    /// allocation.
    ///
    /// For a mean: n = 2σ²(z₁₋α/₂ + z₁₋β)²/δ². For a conversion rate p₁ → p₂ = p₁ + δ:
    /// n = (z₁₋α/₂·√(2p̄(1−p̄)) + z₁₋β·√(p₁(1−p₁) + p₂(1−p₂)))²/δ², p̄ = (p₁ + p₂)/2
    /// (Fleiss, Levin & Paik 2003, §4.2, without continuity correction).
    ///
    /// - Parameters:
    ///   - effect: The minimum absolute difference worth detecting (δ, on the metric's scale).
    ///   - arms: Arms including the control.
    ///   - unitsPerDay: Units entering the experiment per day, all arms together.
    /// - Throws: ``StatisticsError`` for a parameter out of range.
    public init(
        metric: Metric, effect: Double, alpha: Double = 0.05, power: Double = 0.8, arms: Int = 2, unitsPerDay: Double? = nil
    ) throws(StatisticsError) {
        guard alpha > 0, alpha < 1 else { throw StatisticsError("alpha", "must be between 0 and 1 (exclusive)") }
        guard power > 0, power < 1 else { throw StatisticsError("power", "must be between 0 and 1 (exclusive)") }
        guard effect != 0, effect.isFinite else { throw StatisticsError("effect", "must be a non-zero number") }
        guard arms >= 2 else { throw StatisticsError("arms", "at least 2 (the control and one treatment)") }
        if let unitsPerDay { guard unitsPerDay > 0 else { throw StatisticsError("unitsPerDay", "must be positive") } }
        let zAlpha = Normal.quantile(1 - alpha / 2)
        let zBeta = Normal.quantile(power)
        let n: Double
        switch metric {
        case .mean(let deviation):
            guard deviation > 0 else { throw StatisticsError("standardDeviation", "must be positive") }
            n = 2 * deviation * deviation * (zAlpha + zBeta) * (zAlpha + zBeta) / (effect * effect)
        case .conversion(let p1):
            let p2 = p1 + effect
            guard p1 > 0, p1 < 1 else { throw StatisticsError("baseline", "a conversion rate must be between 0 and 1 (exclusive)") }
            guard p2 > 0, p2 < 1 else { throw StatisticsError("effect", "baseline + effect must stay between 0 and 1, not \(p2)") }
            let pooled = (p1 + p2) / 2
            let root = zAlpha * (2 * pooled * (1 - pooled)).squareRoot() + zBeta * (p1 * (1 - p1) + p2 * (1 - p2)).squareRoot()
            n = root * root / (effect * effect)
        }
        unitsPerArm = n.rounded(.up)
        totalUnits = unitsPerArm * Double(arms)
        days = unitsPerDay.map { (totalUnits / $0).rounded(.up) }
    }
}
