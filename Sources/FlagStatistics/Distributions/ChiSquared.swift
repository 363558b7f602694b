import Foundation

/// The chi-squared distribution with k > 0 degrees of freedom.
public struct ChiSquared: Sendable, Hashable {
    /// k, greater than 0.
    public let degreesOfFreedom: Double

    /// The distribution with `degreesOfFreedom` k; traps unless k > 0 (a programmer error).
    public init(degreesOfFreedom: Double) {
        precondition(degreesOfFreedom > 0, "a chi-squared distribution needs positive degrees of freedom")
        self.degreesOfFreedom = degreesOfFreedom
    }

    /// P(X > x) = Q(k/2, x/2), the regularized upper incomplete gamma function (Abramowitz & Stegun, ch. 26).
    public func survival(_ x: Double) -> Double {
        SpecialFunctions.upperIncompleteGamma(degreesOfFreedom / 2, max(0, x) / 2)
    }
}
