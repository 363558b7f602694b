import Foundation

/// Student's t distribution with `degreesOfFreedom` ν > 0 (not necessarily an integer: Welch's
/// test gives fractional ones).
public struct StudentT: Sendable, Hashable {
    public let degreesOfFreedom: Double

    public init(degreesOfFreedom: Double) {
        precondition(degreesOfFreedom > 0, "a t distribution needs positive degrees of freedom")
        self.degreesOfFreedom = degreesOfFreedom
    }

    /// The density Γ((ν+1)/2) / (√(νπ) Γ(ν/2)) · (1 + t²/ν)^{−(ν+1)/2}.
    public func density(_ t: Double) -> Double {
        let nu = degreesOfFreedom
        let logDensity = lgamma((nu + 1) / 2) - lgamma(nu / 2) - 0.5 * log(nu * Double.pi)
            - (nu + 1) / 2 * log1p(t * t / nu)
        return exp(logDensity)
    }

    /// P(T > t) for t ≥ 0 is I_{ν/(ν+t²)}(ν/2, 1/2)/2 (Abramowitz & Stegun, ch. 26).
    public func survival(_ t: Double) -> Double {
        let nu = degreesOfFreedom
        let tail = SpecialFunctions.incompleteBeta(nu / (nu + t * t), nu / 2, 0.5) / 2
        return t >= 0 ? tail : 1 - tail
    }

    /// P(T ≤ t).
    public func cdf(_ t: Double) -> Double {
        survival(-t)
    }

    /// The quantile: the t with P(T ≤ t) = p, for 0 < p < 1.
    public func quantile(_ p: Double) -> Double {
        precondition(p > 0 && p < 1, "a t quantile needs 0 < p < 1")
        if p > 0.5 { return -quantile(1 - p) }
        if p == 0.5 { return 0 }
        return SpecialFunctions.increasingRoot(of: cdf, derivative: density, equal: p, start: Normal.quantile(p))
    }
}
