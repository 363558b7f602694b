import Foundation

/// The beta distribution Beta(a, b) on [0, 1]: the posterior of a conversion rate after a
/// Beta prior and binomial data.
///
/// The density is taken in Loader's saddle-point form, which keeps its relative precision when
/// a and b are both large (a posterior after a billion units): the textbook
/// x^(a−1)(1−x)^(b−1)/B(a, b) subtracts numbers near 10¹⁰ in the exponent and keeps about six
/// digits there. With k = a − 1 and n = a + b − 2, the density is (n + 1) times the binomial
/// probability of k successes in n trials at rate x, computed as
/// exp(δ(n) − δ(k) − δ(n − k) − D(k, nx) − D(n − k, n(1 − x))) · √(n / (2π k (n − k))), δ the
/// error of Stirling's formula and D the deviance term (C. Loader, "Fast and accurate computation
/// of binomial probabilities", 2000; the same form R's `dbinom` uses). The distribution function
/// is that density's front factor times the continued fraction of A&S 26.5.8.
struct BetaDistribution: Sendable, Hashable {
    /// The first shape parameter, a > 0.
    let a: Double
    /// The second shape parameter, b > 0.
    let b: Double
    /// log of the constant factor of the density, for the saddle-point form (a, b > 1): δ(n) −
    /// δ(k) − δ(n − k) + ½·log(n/(2π k (n − k))) + log(n + 1); for the textbook form, −log B(a, b).
    private let logConstant: Double
    private let usesSaddlePoint: Bool

    /// Beta(a, b).
    ///
    /// - Precondition: a and b are positive and finite.
    init(a: Double, b: Double) {
        precondition(a > 0 && b > 0 && a.isFinite && b.isFinite, "a beta distribution needs positive, finite a and b")
        self.a = a
        self.b = b
        usesSaddlePoint = a > 1 && b > 1
        if usesSaddlePoint {
            let k = a - 1
            let n = a + b - 2
            logConstant = Self.stirlingError(n) - Self.stirlingError(k) - Self.stirlingError(n - k)
                + 0.5 * (log(n) - log(2 * Double.pi) - log(k) - log(n - k)) + log1p(n)
        } else {
            logConstant = -SpecialFunctions.logBeta(a, b)
        }
    }

    /// The mean a/(a + b).
    var mean: Double { a / (a + b) }

    /// The standard deviation √(ab/((a + b)²(a + b + 1))).
    var standardDeviation: Double {
        let total = a + b
        return (a / total * (b / total) / (total + 1)).squareRoot()
    }

    /// The density at x (0 outside [0, 1]; +∞ at an end where the shape parameter is below 1).
    func density(_ x: Double) -> Double {
        guard x >= 0, x <= 1 else { return 0 }
        return density(x, complement: 1 - x)
    }

    /// The density at x given y = 1 − x, each computed without cancellation by the caller (near
    /// x = 1, y is what keeps the digits).
    func density(_ x: Double, complement y: Double) -> Double {
        if usesSaddlePoint {
            if x == 0 || y == 0 { return 0 }
            let k = a - 1
            let n = a + b - 2
            return exp(logConstant - Self.deviance(k, n * x) - Self.deviance(n - k, n * y))
        }
        if x == 0 { return a == 1 ? exp(logConstant) : (a < 1 ? .infinity : 0) }
        if y == 0 { return b == 1 ? exp(logConstant) : (b < 1 ? .infinity : 0) }
        let logX = x < 0.5 ? log(x) : log1p(-y)
        let logY = y < 0.5 ? log(y) : log1p(-x)
        return exp(logConstant + (a - 1) * logX + (b - 1) * logY)
    }

    /// P(X ≤ x) = I_x(a, b).
    func cdf(_ x: Double) -> Double {
        cdf(x, complement: 1 - x)
    }

    /// P(X ≤ x) given y = 1 − x, each computed without cancellation by the caller.
    func cdf(_ x: Double, complement y: Double) -> Double {
        if x <= 0 { return 0 }
        if y <= 0 { return 1 }
        // x^a y^b / B(a, b) = x·y·density(x): the fraction's front factor, with the density's precision.
        let scaled = x * y * density(x, complement: y)
        if x > (a + 1) / (a + b + 2) {
            return 1 - scaled / b * SpecialFunctions.betaFraction(y, complement: x, b, a)
        }
        return scaled / a * SpecialFunctions.betaFraction(x, complement: y, a, b)
    }

    /// δ(n) = log Γ(n + 1) − (n + ½)·log n + n − ½·log 2π, the error of Stirling's formula:
    /// its asymptotic series beyond 15 (Loader 2000, eq. 3), the direct formula below.
    static func stirlingError(_ n: Double) -> Double {
        if n <= 15 {
            return lgamma(n + 1) - (n + 0.5) * log(n) + n - 0.5 * log(2 * Double.pi)
        }
        let square = n * n
        return (1.0 / 12 - (1.0 / 360 - (1.0 / 1260 - (1.0 / 1680 - 1.0 / (1188 * square)) / square) / square) / square) / n
    }

    /// D(x, m) = x·log(x/m) + m − x, without cancellation when x is close to m (Loader 2000,
    /// eq. 5: the series in v = (x − m)/(x + m)).
    static func deviance(_ x: Double, _ m: Double) -> Double {
        if x == 0 { return m }
        if abs(x - m) < 0.1 * (x + m) {
            var v = (x - m) / (x + m)
            var sum = (x - m) * v
            var term = 2 * x * v
            v *= v
            for j in 1..<1000 {
                term *= v
                let next = sum + term / Double(2 * j + 1)
                if next == sum { return next }
                sum = next
            }
            return sum
        }
        return x * log(x / m) + m - x
    }
}
