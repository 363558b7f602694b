import Foundation

/// The standard normal distribution.
public enum Normal {
    /// The density φ(x).
    public static func density(_ x: Double) -> Double {
        exp(-x * x / 2) / (2 * Double.pi).squareRoot()
    }

    /// The cumulative distribution Φ(x) = erfc(−x/√2)/2 (Abramowitz & Stegun, ch. 7 and 26), exact to the precision of
    /// the platform's `erfc` in both tails.
    public static func cdf(_ x: Double) -> Double {
        erfc(-x / 2.0.squareRoot()) / 2
    }

    /// The survival function 1 − Φ(x), without cancellation in the upper tail.
    public static func survival(_ x: Double) -> Double {
        cdf(-x)
    }

    /// The quantile Φ⁻¹(p), for 0 < p < 1.
    public static func quantile(_ p: Double) -> Double {
        precondition(p > 0 && p < 1, "a normal quantile needs 0 < p < 1")
        // Symmetric: solve in the lower half, where Φ is computed without cancellation.
        if p > 0.5 { return -quantile(1 - p) }
        if p == 0.5 { return 0 }
        // A start from the tail's asymptote, then bracketed Newton steps on Φ.
        let start = -(-2 * log(p)).squareRoot() + 1
        return SpecialFunctions.increasingRoot(of: cdf, derivative: density, equal: p, start: min(start, 0))
    }

    /// The x with 1 − Φ(x) = q, for 0 < q < 1, without forming 1 − q: `upperQuantile(α/2)` is the
    /// two-sided critical value for every α the analysis accepts, down to the smallest.
    public static func upperQuantile(_ q: Double) -> Double {
        precondition(q > 0 && q < 1, "a normal quantile needs 0 < q < 1")
        return -quantile(q)
    }
}
