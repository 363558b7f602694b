import Foundation

/// One arm's p-quantile from its per-unit values, with a distribution-free standard error.
///
/// The quantile is the sample quantile of Hyndman & Fan's definition 7 (linear interpolation
/// between the order statistics at rank 1 + (n − 1)p; the default of numpy, R and pandas). Its
/// standard error comes from the order-statistic confidence interval [Y₍ₗ₎, Y₍ᵤ₎] for the
/// population quantile ξ_p (Thompson 1936; e.g. Conover, *Practical Nonparametric Statistics*,
/// 3rd ed., §3.2): for continuous values, P(Y₍ₗ₎ ≤ ξ_p < Y₍ᵤ₎) = P(l ≤ B ≤ u − 1) with
/// B ~ Binomial(n, p), whatever the distribution. Reading that interval as a normal one with the
/// same coverage, z* = Φ⁻¹(1 − (1 − coverage)/2) and SE = (Y₍ᵤ₎ − Y₍ₗ₎)/(2z*). This is Price &
/// Bonett's standard error of a median (R. M. Price, D. G. Bonett, "Distribution-free confidence
/// intervals for difference and ratio of medians", *Journal of Statistical Computation and
/// Simulation* 72 (2002) 119–124; D. G. Bonett, R. M. Price, *Psychological Methods* 7 (2002)
/// 370–383) with the ranks generalised from the median to any p: l and u are (n + 1)p ∓ 2√(np(1 − p))
/// rounded to the nearest integer, a half rounded away from the centre; for p = ½ they are
/// Price & Bonett's c = (n + 1)/2 − √n and n − c + 1.
///
/// Assumptions: the units are independent and their values continuous (few ties). Refused: fewer
/// units than put both ranks inside the sample (at least 5 for the median, 44 for the 90th
/// percentile, 94 for the 95th, 490 for the 99th), and an interval whose two order statistics are
/// equal (ties around the quantile, where the standard error would read as zero).
public struct QuantileEstimate: Sendable, Hashable, Codable {
    /// p, between 0 and 1 (exclusive).
    public let probability: Double
    /// n, the number of values.
    public let units: Int
    /// The sample p-quantile.
    public let quantile: Double
    /// l and u, 1-based ranks of the order statistics that bound the interval.
    public let lowerRank: Int
    /// u, the 1-based rank of the order statistic bounding the interval from above.
    public let upperRank: Int
    /// Y₍ₗ₎ and Y₍ᵤ₎.
    public let lowerValue: Double
    /// Y₍ᵤ₎, the interval's upper end.
    public let upperValue: Double
    /// P(l ≤ B ≤ u − 1): the exact coverage of [Y₍ₗ₎, Y₍ᵤ₎] for continuous values.
    public let coverage: Double
    /// (Y₍ᵤ₎ − Y₍ₗ₎)/(2z*).
    public let standardError: Double

    /// The most values an arm may have: sorting them is the work (about a second for this many).
    public static let maximumUnits = 5_000_000

    /// - Parameters:
    ///   - values: One value per unit, each finite; at most ``maximumUnits``.
    ///   - probability: p.
    ///   - path: Where the values come from, for errors (`treatment`, `arms.on.values`, …).
    /// - Throws: ``StatisticsError`` for p outside (0, 1), a value that is NaN or infinite, too many
    ///   or too few values, or ties that leave the interval with zero width.
    public init(values: [Double], probability: Double, path: String = "values") throws(StatisticsError) {
        guard probability > 0, probability < 1 else {
            throw StatisticsError("probability", "must be between 0 and 1 (exclusive), not \(probability)")
        }
        guard values.count <= Self.maximumUnits else {
            throw StatisticsError(path, "at most \(Self.maximumUnits) values, not \(values.count)")
        }
        if let index = values.firstIndex(where: { !$0.isFinite }) {
            throw StatisticsError("\(path)[\(index)]", "must be a finite number, not \(values[index])")
        }
        let n = values.count
        let p = probability
        let centre = Double(n + 1) * p
        let spread = 2 * (Double(n) * p * (1 - p)).squareRoot()
        // Halves round away from the centre (the wider interval); the 1e-9 absorbs rounding in
        // the spread so that an exact half is recognised.
        let lower = Int((centre - spread - 0.5 - 1e-9).rounded(.up))
        let upper = Int((centre + spread + 0.5 + 1e-9).rounded(.down))
        guard lower >= 1, upper <= n, lower < upper else {
            throw StatisticsError(
                path,
                "\(n) values are too few for the \(p)-quantile's interval (its order statistics would be at ranks \(lower) and \(upper) of \(n))"
            )
        }
        let sorted = values.sorted()
        let outside = Self.binomialMassOutside(lower, upper - 1, units: n, probability: p)
        guard outside > 0 else {
            throw StatisticsError(path, "the binomial coverage of the \(p)-quantile's interval is 1 to double precision")
        }
        let z = -Normal.quantile(outside / 2)
        let width = sorted[upper - 1] - sorted[lower - 1]
        guard width > 0, width.isFinite else {
            throw StatisticsError(
                path,
                width == 0
                    ? "the values at ranks \(lower) to \(upper) are all \(sorted[lower - 1]): too many ties near the \(p)-quantile for its standard error"
                    : "the values at ranks \(lower) and \(upper) are too far apart for double precision")
        }
        self.probability = p
        units = n
        quantile = Self.sampleQuantile(sorted, p)
        lowerRank = lower
        upperRank = upper
        lowerValue = sorted[lower - 1]
        upperValue = sorted[upper - 1]
        coverage = 1 - outside
        standardError = width / (2 * z)
    }

    /// Hyndman & Fan's definition 7 on sorted values: at h = (n − 1)p (0-based),
    /// Y[⌊h⌋] + (h − ⌊h⌋)(Y[⌊h⌋ + 1] − Y[⌊h⌋]).
    static func sampleQuantile(_ sorted: [Double], _ p: Double) -> Double {
        let h = Double(sorted.count - 1) * p
        let below = Int(h.rounded(.down))
        let fraction = h - Double(below)
        guard below + 1 < sorted.count, fraction > 0 else { return sorted[below] }
        return sorted[below] + fraction * (sorted[below + 1] - sorted[below])
    }

    /// P(B < first) + P(B > last) for B ~ Binomial(n, p), summed from the mode outwards with the
    /// ratio of consecutive probabilities and normalized by the total of the terms (so no
    /// factorial's rounding enters); terms below 10⁻²⁰ of the mode are left out.
    static func binomialMassOutside(_ first: Int, _ last: Int, units n: Int, probability p: Double) -> Double {
        let odds = p / (1 - p)
        let mode = min(n, Int((Double(n + 1) * p).rounded(.down)))
        var total = 1.0
        var outside = (mode < first || mode > last) ? 1.0 : 0
        var term = 1.0
        var k = mode
        while k < n {
            term *= Double(n - k) / Double(k + 1) * odds
            k += 1
            if term < 1e-20 { break }
            total += term
            if k > last { outside += term }
        }
        term = 1
        k = mode
        while k > 0 {
            term *= Double(k) / Double(n - k + 1) / odds
            k -= 1
            if term < 1e-20 { break }
            total += term
            if k < first { outside += term }
        }
        return outside / total
    }
}
