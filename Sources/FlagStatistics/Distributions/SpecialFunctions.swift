import Foundation

/// The special functions the distributions rest on: the regularized incomplete beta and gamma
/// functions, evaluated by their series and continued fractions (Abramowitz & Stegun 26.5.8 and
/// 6.5.29/6.5.31; the modified Lentz algorithm of Thompson & Barnett 1986 for the fractions).
enum SpecialFunctions {
    /// Relative precision the series and fractions stop at.
    static let epsilon = 1e-16
    /// Iterations before a series or fraction gives up (never reached for the arguments the
    /// analysis passes: they converge in well under a hundred).
    static let maximumIterations = 10_000
    /// Smallest magnitude kept in a continued fraction's denominators (Lentz's "tiny").
    static let tiny = 1e-300

    /// The natural logarithm of the beta function, B(a, b) = Γ(a)Γ(b)/Γ(a+b).
    ///
    /// When one argument is large and the other is not, log Γ(a) − log Γ(a + b) is the difference
    /// of two numbers near a·log a: subtracting the platform's `lgamma` values would lose every
    /// digit at a ≈ 10¹³ (Student's t with 10¹⁴ degrees of freedom). There the difference is taken
    /// from Stirling's series term by term (A&S 6.1.41), which cancels nothing.
    static func logBeta(_ a: Double, _ b: Double) -> Double {
        let large = max(a, b)
        let small = min(a, b)
        guard large >= 1e4, small <= 1e3 else { return lgamma(a) + lgamma(b) - lgamma(a + b) }
        return lgamma(small) + logGammaDifference(large, small)
    }

    /// log Γ(a) − log Γ(a + b) for a ≥ 10⁴ and 0 < b ≤ 10³, from Stirling's series
    /// log Γ(z) = (z − ½) log z − z + ½ log 2π + 1/(12z) − 1/(360z³) + 1/(1260z⁵) − …:
    /// −(a − ½)·log(1 + b/a) − b·log(a + b) + b + c(a) − c(a + b), c the series' tail.
    static func logGammaDifference(_ a: Double, _ b: Double) -> Double {
        func tail(_ z: Double) -> Double {
            let inverse = 1 / z
            let square = inverse * inverse
            return inverse * (1.0 / 12 - square * (1.0 / 360 - square * (1.0 / 1260 - square / 1680)))
        }
        return -(a - 0.5) * log1p(b / a) - b * log(a + b) + b + (tail(a) - tail(a + b))
    }

    /// The regularized incomplete beta function I_x(a, b), for a, b > 0 and 0 ≤ x ≤ 1.
    static func incompleteBeta(_ x: Double, _ a: Double, _ b: Double) -> Double {
        incompleteBeta(x, complement: 1 - x, a, b)
    }

    /// I_x(a, b) given x and y = 1 − x, each computed without cancellation by the caller (for
    /// Student's t, x = ν/(ν + t²) and y = t²/(ν + t²)): near x = 1 the fraction's terms and the
    /// front factor need y itself, which 1 − x has lost.
    static func incompleteBeta(_ x: Double, complement y: Double, _ a: Double, _ b: Double) -> Double {
        precondition(a > 0 && b > 0, "incompleteBeta needs a, b > 0")
        if x <= 0 { return 0 }
        if y <= 0 { return 1 }
        // The fraction converges fast for x < (a + 1)/(a + b + 2); beyond, use I_x(a,b) = 1 − I_{1−x}(b,a).
        if x > (a + 1) / (a + b + 2) {
            return 1 - incompleteBeta(y, complement: x, b, a)
        }
        let logX = x < 0.5 ? log(x) : log1p(-y)
        let logY = y < 0.5 ? log(y) : log1p(-x)
        let front = exp(a * logX + b * logY - logBeta(a, b)) / a
        return front * betaFraction(x, complement: y, a, b)
    }

    /// The continued fraction of A&S 26.5.8: 1/(1+ d1/(1+ d2/(1+ …))).
    /// Its first denominator 1 − (a + b)x/(a + 1) is written (1 − b + (a + b)y)/(a + 1), which
    /// keeps its digits when a is large and x is near 1.
    static func betaFraction(_ x: Double, complement y: Double, _ a: Double, _ b: Double) -> Double {
        var c = 1.0
        var d = (1 - b + (a + b) * y) / (a + 1)
        if abs(d) < tiny { d = tiny }
        d = 1 / d
        var result = d
        for m in 1...maximumIterations {
            let m = Double(m)
            // Even step: d_{2m} = m(b − m)x / ((a + 2m − 1)(a + 2m)).
            let even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
            d = 1 + even * d
            if abs(d) < tiny { d = tiny }
            c = 1 + even / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            result *= d * c
            // Odd step: d_{2m+1} = −(a + m)(a + b + m)x / ((a + 2m)(a + 2m + 1)).
            let odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
            d = 1 + odd * d
            if abs(d) < tiny { d = tiny }
            c = 1 + odd / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let step = d * c
            result *= step
            if abs(step - 1) < epsilon { break }
        }
        return result
    }

    /// The regularized upper incomplete gamma function Q(a, x) = Γ(a, x)/Γ(a), for a > 0, x ≥ 0.
    static func upperIncompleteGamma(_ a: Double, _ x: Double) -> Double {
        precondition(a > 0, "upperIncompleteGamma needs a > 0")
        if x <= 0 { return 1 }
        if x < a + 1 { return 1 - lowerGammaSeries(a, x) }
        return upperGammaFraction(a, x)
    }

    /// P(a, x) by its series (A&S 6.5.29): e^{−x} x^a / Γ(a+1) · Σ x^n / ((a+1)…(a+n)).
    private static func lowerGammaSeries(_ a: Double, _ x: Double) -> Double {
        var term = 1 / a
        var sum = term
        var denominator = a
        for _ in 0..<maximumIterations {
            denominator += 1
            term *= x / denominator
            sum += term
            if abs(term) < abs(sum) * epsilon { break }
        }
        return sum * exp(-x + a * log(x) - lgamma(a))
    }

    /// Q(a, x) by its continued fraction (A&S 6.5.31), for x ≥ a + 1.
    private static func upperGammaFraction(_ a: Double, _ x: Double) -> Double {
        var b = x + 1 - a
        var c = 1 / tiny
        var d = 1 / b
        var result = d
        for i in 1...maximumIterations {
            let i = Double(i)
            let an = -i * (i - a)
            b += 2
            d = an * d + b
            if abs(d) < tiny { d = tiny }
            c = b + an / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let step = d * c
            result *= step
            if abs(step - 1) < epsilon { break }
        }
        return exp(-x + a * log(x) - lgamma(a)) * result
    }

    /// The root of the increasing function `f` where it equals `target`, by Newton's method kept
    /// inside a bracket (a bisection step whenever Newton would leave it).
    ///
    /// - Parameters:
    ///   - f: An increasing function.
    ///   - derivative: Its derivative (a density).
    ///   - start: The first guess.
    static func increasingRoot(
        of f: (Double) -> Double, derivative: (Double) -> Double, equal target: Double, start: Double
    ) -> Double {
        // Bracket the root by doubling outwards from the start.
        var low = start - 1
        var high = start + 1
        var width = 1.0
        while f(low) > target { width *= 2; low = start - width }
        width = 1
        while f(high) < target { width *= 2; high = start + width }
        var x = start
        for _ in 0..<200 {
            let value = f(x) - target
            if value == 0 { return x }
            if value < 0 { low = x } else { high = x }
            let slope = derivative(x)
            var next = x - value / slope
            if !(slope > 0) || !next.isFinite || next <= low || next >= high {
                next = (low + high) / 2
            }
            if abs(next - x) <= 1e-15 * max(1, abs(x)) { return next }
            x = next
        }
        return x
    }
}
