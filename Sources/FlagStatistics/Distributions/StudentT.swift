import Foundation

/// Student's t distribution with `degreesOfFreedom` ν > 0 (not necessarily an integer: Welch's
/// test gives fractional ones).
public struct StudentT: Sendable, Hashable {
    /// ν, greater than 0 and possibly fractional.
    public let degreesOfFreedom: Double

    /// From this many degrees of freedom on, the tail comes from the leading term of the
    /// large-a expansion of the incomplete beta function instead of its continued fraction,
    /// whose steps lose about ν·10⁻¹⁷ of relative precision each.
    static let expansionDegrees = 1e7

    /// - Precondition: `degreesOfFreedom` is positive (infinity is the normal distribution).
    public init(degreesOfFreedom: Double) {
        precondition(degreesOfFreedom > 0, "a t distribution needs positive degrees of freedom")
        self.degreesOfFreedom = degreesOfFreedom
    }

    private var isNormal: Bool { degreesOfFreedom == .infinity }

    /// The density Γ((ν+1)/2) / (√(νπ) Γ(ν/2)) · (1 + t²/ν)^{−(ν+1)/2}.
    public func density(_ t: Double) -> Double {
        if isNormal { return Normal.density(t) }
        let nu = degreesOfFreedom
        // Γ((ν+1)/2)/Γ(ν/2) = 1/B(ν/2, 1/2) · √π, taken without cancellation for large ν.
        let logDensity = -SpecialFunctions.logBeta(nu / 2, 0.5) - 0.5 * log(nu) - (nu + 1) / 2 * log1p(t * t / nu)
        return exp(logDensity)
    }

    /// P(T > t) for t ≥ 0 is I_x(ν/2, 1/2)/2 with x = ν/(ν+t²) (Abramowitz & Stegun 26.7.1 and
    /// 26.5.27); x and 1 − x are both computed directly, so large ν keeps its precision.
    public func survival(_ t: Double) -> Double {
        if isNormal { return Normal.survival(t) }
        let nu = degreesOfFreedom
        let square = t * t
        let tail: Double
        if square.isInfinite {
            tail = 0
        } else if nu >= Self.expansionDegrees {
            tail = Self.largeDegreesTail(nu: nu, square: square)
        } else {
            let total = nu + square
            tail = SpecialFunctions.incompleteBeta(nu / total, complement: square / total, nu / 2, 0.5) / 2
        }
        return t >= 0 ? tail : 1 - tail
    }

    /// P(T > |t|) for large ν by the leading term of the expansion of I_x(a, b) for large a
    /// (Temme 1996, §11.3.3; the first term of DiDonato & Morris 1992's BGRAT): with a = ν/2,
    /// b = ½, T = a + (b − 1)/2 and u = T·log(1 + t²/ν),
    /// I_x(a, b) ≈ Γ(a + b)/(Γ(a)·T^b) · Q(b, u), and Q(½, u) = erfc(√u). Its relative error is of
    /// order t⁸/ν² (under 4·10⁻¹⁰ at ν = 10⁷ for |t| ≤ 37, checked against mpmath; beyond |t| = 38
    /// the tail is below the smallest double anyway).
    static func largeDegreesTail(nu: Double, square: Double) -> Double {
        let a = nu / 2
        let shifted = a - 0.25
        let u = shifted * log1p(square / nu)
        let logRatio = -SpecialFunctions.logGammaDifference(a, 0.5) - 0.5 * log(shifted)
        return exp(logRatio) * erfc(u.squareRoot()) / 2
    }

    /// P(T ≤ t).
    public func cdf(_ t: Double) -> Double {
        survival(-t)
    }

    /// The quantile: the t with P(T ≤ t) = p, for 0 < p < 1.
    public func quantile(_ p: Double) -> Double {
        precondition(p > 0 && p < 1, "a t quantile needs 0 < p < 1")
        if p > 0.5 { return -quantile(1 - p) }
        return -upperQuantile(p)
    }

    /// The t with P(T > t) = q, for 0 < q < 1, without forming 1 − q (which is 1 for q below 10⁻¹⁶).
    public func upperQuantile(_ q: Double) -> Double {
        precondition(q > 0 && q < 1, "a t quantile needs 0 < q < 1")
        if isNormal { return Normal.upperQuantile(q) }
        if q > 0.5 { return -upperQuantile(1 - q) }
        if q == 0.5 { return 0 }
        // Solve cdf(−t) = q on the lower side, where the cdf has no cancellation.
        let lower = SpecialFunctions.increasingRoot(
            of: cdf, derivative: density, equal: q, start: -Normal.upperQuantile(q))
        return -lower
    }
}
