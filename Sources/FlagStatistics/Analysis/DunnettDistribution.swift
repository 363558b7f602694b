import Foundation

/// The distribution of max |Tᵢ| over k treatment-versus-control t statistics that share one
/// control (Dunnett's many-to-one comparisons: C. W. Dunnett, "A multiple comparison procedure for
/// comparing several treatments with a control", *Journal of the American Statistical
/// Association* 50 (1955) 1096–1121).
///
/// With a common variance estimated on ν degrees of freedom, Tᵢ = Zᵢ/S where S² ~ χ²_ν/ν and the
/// Zᵢ are standard normal with correlations ρᵢⱼ = λᵢλⱼ, λᵢ = √(nᵢ/(nᵢ + n₀)) (the shared control
/// mean). That correlation structure makes the Zᵢ independent given one shared normal Y:
/// Zᵢ = λᵢY + √(1 − λᵢ²)·Wᵢ, so (Dunnett 1955, §3; the same reduction as Gupta 1963 for
/// product correlations)
///
///     P(max |Zᵢ| < c) = ∫ φ(y) Πᵢ [Φ((c − λᵢy)/rᵢ) − Φ((−c − λᵢy)/rᵢ)] dy,   rᵢ = √(n₀/(nᵢ + n₀)),
///
/// and for finite ν this is averaged over the chi distribution of S:
/// P(max |Tᵢ| < c) = E[P(max |Zᵢ| < cS)]. Both integrals are computed with adaptive Gauss–Kronrod
/// quadrature; the exceedance 1 − Πᵢ(1 − qᵢ) is formed as −expm1(Σ log1p(−qᵢ)) from the normal
/// tails qᵢ, so small p-values keep their relative precision.
///
/// Accuracy: the quadrature tolerances are 10⁻⁹ relative (inner) and 10⁻⁸ (outer) on error
/// estimates far larger than the errors; against the closed form at k = 1 (the two-sided t test,
/// and 2Φ(−c) for ν = ∞) the survival function agrees to 5·10⁻¹⁴ relative for ν from 1 to 10¹³
/// and p-values from 0.8 down to 10⁻⁸⁸ (`MultipleComparisonsTests` requires 10⁻⁹).
public struct DunnettDistribution: Sendable, Hashable {
    /// λᵢ = √(nᵢ/(nᵢ + n₀)) per treatment, in input order.
    public let correlationFactors: [Double]
    /// ν; `.infinity` for a known variance (the normal case).
    public let degreesOfFreedom: Double

    /// Distinct (λ, r = √(1 − λ²)) pairs with how often each occurs: equal arms share one factor.
    private let groups: [Group]

    private struct Group: Sendable, Hashable {
        var lambda: Double
        var complement: Double
        var count: Double
    }

    /// The most treatment arms a distribution accepts: each evaluation costs time proportional to
    /// the distinct arm sizes (20 distinct sizes at ν = 2: about 0.2 s a p-value in a release
    /// build), and an experiment has a handful.
    public static let maximumTreatments = 20

    /// - Parameters:
    ///   - controlUnits: n₀, the control arm's units (more than 1).
    ///   - treatmentUnits: n₁ … n_k, each more than 1; 1 ≤ k ≤ ``maximumTreatments``.
    ///   - degreesOfFreedom: ν of the variance estimate, at least 1 (for a pooled variance,
    ///     Σnᵢ − (k + 1)); `.infinity` when the variance is known.
    /// - Throws: ``StatisticsError`` naming the parameter out of range.
    public init(controlUnits: Double, treatmentUnits: [Double], degreesOfFreedom: Double) throws(StatisticsError) {
        guard controlUnits.isFinite, controlUnits > 1 else {
            throw StatisticsError("controlUnits", "must be a finite number above 1, not \(controlUnits)")
        }
        guard !treatmentUnits.isEmpty else {
            throw StatisticsError("treatmentUnits", "at least one treatment arm is needed")
        }
        guard treatmentUnits.count <= Self.maximumTreatments else {
            throw StatisticsError(
                "treatmentUnits", "at most \(Self.maximumTreatments) treatment arms, not \(treatmentUnits.count)")
        }
        for (index, units) in treatmentUnits.enumerated() {
            guard units.isFinite, units > 1 else {
                throw StatisticsError("treatmentUnits[\(index)]", "must be a finite number above 1, not \(units)")
            }
        }
        guard degreesOfFreedom >= 1 else {
            throw StatisticsError(
                "degreesOfFreedom", "must be at least 1 (or infinite for a known variance), not \(degreesOfFreedom)")
        }
        self.degreesOfFreedom = degreesOfFreedom
        correlationFactors = treatmentUnits.map { ($0 / ($0 + controlUnits)).squareRoot() }
        var counts: [Double: Double] = [:]
        for units in treatmentUnits { counts[units, default: 0] += 1 }
        groups = counts.keys.sorted().map { units in
            Group(
                lambda: (units / (units + controlUnits)).squareRoot(),
                complement: (controlUnits / (units + controlUnits)).squareRoot(), count: counts[units]!)
        }
    }

    /// The normal (ν = ∞) distribution of max |Zᵢ| for k differences from one control whose means
    /// have their own variances: Zᵢ = (dᵢ)/√(vᵢ + v₀) are correlated by ρᵢⱼ = λᵢλⱼ with
    /// λᵢ = √(v₀/(v₀ + vᵢ)), the same product structure as equal variances (where vᵢ = σ²/nᵢ), so
    /// unequal variances (Welch's standard errors) keep the exact reduction to one integral.
    ///
    /// - Parameters:
    ///   - controlVariance: v₀, the variance of the control's mean (positive, finite).
    ///   - treatmentVariances: v₁ … v_k, the variances of the treatments' means.
    /// - Throws: ``StatisticsError`` naming the parameter out of range.
    public init(controlVariance: Double, treatmentVariances: [Double]) throws(StatisticsError) {
        guard controlVariance.isFinite, controlVariance > 0 else {
            throw StatisticsError("controlVariance", "must be a positive finite number, not \(controlVariance)")
        }
        guard !treatmentVariances.isEmpty else {
            throw StatisticsError("treatmentVariances", "at least one treatment arm is needed")
        }
        guard treatmentVariances.count <= Self.maximumTreatments else {
            throw StatisticsError(
                "treatmentVariances", "at most \(Self.maximumTreatments) treatment arms, not \(treatmentVariances.count)")
        }
        for (index, variance) in treatmentVariances.enumerated() {
            guard variance.isFinite, variance > 0 else {
                throw StatisticsError("treatmentVariances[\(index)]", "must be a positive finite number, not \(variance)")
            }
        }
        degreesOfFreedom = .infinity
        // λ² = v₀/(v₀ + v) and r² = v/(v₀ + v), each from shares so that neither overflows.
        func factors(_ variance: Double) -> (lambda: Double, complement: Double) {
            let share = variance / (variance + controlVariance)
            return ((1 - share).squareRoot(), share.squareRoot())
        }
        correlationFactors = treatmentVariances.map { factors($0).lambda }
        var counts: [Double: Double] = [:]
        for variance in treatmentVariances { counts[variance, default: 0] += 1 }
        groups = counts.keys.sorted().map { variance in
            let pair = factors(variance)
            return Group(lambda: pair.lambda, complement: pair.complement, count: counts[variance]!)
        }
    }

    /// The number of treatment arms k.
    public var treatments: Int { correlationFactors.count }

    /// P(max |Tᵢ| ≥ c): the two-sided many-to-one adjusted p-value of a statistic with |t| = c.
    public func survival(_ c: Double) -> Double {
        guard c > 0 else { return 1 }
        guard degreesOfFreedom.isFinite else { return min(1, normalSurvival(c)) }
        return min(1, studentSurvival(c))
    }

    /// The critical value c with P(max |Tᵢ| ≥ c) = α: the two-sided simultaneous intervals are
    /// dᵢ ± c·SEᵢ, and a comparison with |tᵢ| ≥ c is significant at family-wise level α.
    ///
    /// - Throws: ``StatisticsError`` when α is not between 0 and 1.
    public func criticalValue(alpha: Double) throws(StatisticsError) -> Double {
        guard alpha > 0, alpha < 1 else {
            throw StatisticsError("alpha", "must be between 0 and 1 (exclusive), not \(alpha)")
        }
        // Solve on the log scale, where the tail is close to linear in c.
        let logAlpha = log(alpha)
        func f(_ c: Double) -> Double { log(max(survival(c), Double.leastNormalMagnitude)) - logAlpha }
        var low = 0.0
        var lowValue = -logAlpha
        var high = 2.0
        var highValue = f(high)
        while highValue > 0, high < 1e300 {
            low = high
            lowValue = highValue
            high *= 2
            highValue = f(high)
        }
        return Self.root(of: f, low: low, lowValue: lowValue, high: high, highValue: highValue, tolerance: 1e-10)
    }

    // MARK: The normal case

    /// P(max |Zᵢ| ≥ x), by the product integral over the shared normal Y (even in y, so twice the
    /// integral over y ≥ 0).
    private func normalSurvival(_ x: Double) -> Double {
        // Beyond 40 the Bonferroni bound 2k·Q(x) is below 10⁻³³⁵: zero in double precision.
        guard x < 40 else { return 0 }
        // The exceedance at y is concentrated near y = λx (width r), and the mass beyond x + 10
        // is below e^{−10x−50} of the total.
        let limit = x + 10
        var points: [Double] = [0, limit]
        for step in 1..<4 { points.append(limit * Double(step) / 4) }
        // Where r is small the exceedance steps from 0 to 1 over a width r/λ around y = x/λ:
        // segments of that scale there, or the rule's nodes straddle the step and miss its tails.
        // Nine points per step while there are few steps, five beyond (each point costs a
        // segment of every evaluation).
        let sharp = groups.filter { $0.complement < 0.5 }
        let multiples: [Double] = sharp.count <= 4 ? [-12, -6, -3, -1.5, 0, 1.5, 3, 6, 12] : [-6, -1.5, 0, 1.5, 6]
        for group in sharp {
            let width = group.complement / group.lambda
            for multiple in multiples {
                let point = x / group.lambda + multiple * width
                if point > 0, point < limit { points.append(point) }
            }
        }
        points.sort()
        let integral = AdaptiveQuadrature.integrate(
            { y in Self.standardNormalDensity(y) * exceedance(x, y) }, breakpoints: points,
            relativeTolerance: 1e-9, absoluteTolerance: 1e-300)
        return 2 * integral
    }

    /// 1 − Πᵢ (1 − qᵢ(y)), qᵢ(y) = P(|λᵢy + rᵢWᵢ| ≥ x), as −expm1(Σ log1p(−qᵢ)).
    private func exceedance(_ x: Double, _ y: Double) -> Double {
        var logInside = 0.0
        for group in groups {
            let shift = group.lambda * y
            let tail = Self.upperTail((x - shift) / group.complement) + Self.upperTail((x + shift) / group.complement)
            logInside += group.count * log1p(-min(1, tail))
        }
        return -expm1(logInside)
    }

    // MARK: Finite degrees of freedom

    /// E[P(max |Zᵢ| ≥ cS)] over S = √(χ²_ν/ν), integrated in t = ln S, whose density
    /// √(ν/π)/e^{δ(ν/2)} · exp(ν(t − (e^{2t} − 1)/2)) is smooth and log-concave with its mode at 0
    /// (δ is Stirling's error of log Γ, which keeps the constant exact for large ν).
    private func studentSurvival(_ c: Double) -> Double {
        let nu = degreesOfFreedom
        let logConstant = 0.5 * log(nu / Double.pi) - Self.stirlingError(nu / 2)
        let logK = log(Double(treatments))
        // An upper bound of the log-integrand (P(max|Z| ≥ x) ≤ min(1, k·e^{−x²/2})), concave in t:
        // the integral lives where it is within 75 of its maximum.
        func bound(_ t: Double) -> Double {
            let x = c * exp(t)
            return nu * Self.logShape(t) + min(0, logK - x * x / 2)
        }
        // The maximum lies between the saddle point of the tail, t* = −½ ln(1 + c²/ν), and 0.
        var low = -0.5 * log1p(c * c / nu) - 1
        var high = 1.0
        for _ in 0..<200 {
            let third = (high - low) / 3
            if bound(low + third) < bound(high - third) { low += third } else { high -= third }
        }
        let peak = (low + high) / 2
        let top = bound(peak)
        // The log-integrand's curvature at the peak gives its width there (about 1/√(2ν) for
        // large ν, where a fixed grid would step over the whole mass).
        // (The bound's second derivative is −2e^{2t}(ν + c²) where the tail term is active, and
        // −2e^{2t}ν where it is not: the larger curvature gives the narrower, safe, width.)
        let width = min(1, 1 / (2 * exp(2 * peak) * (nu + c * c)).squareRoot())
        var left = peak
        var step = width
        while left > -700, bound(left) > top - 75 {
            left = max(-700, peak - step)
            step *= 2
        }
        // Above t = 10 the density is below exp(−ν(e²⁰ − 21)/2): nothing.
        var right = peak
        step = width
        while right < 10, bound(right) > top - 75 {
            right = min(10, peak + step)
            step *= 2
        }
        var points: [Double] = [left, right]
        for multiple in [-4.0, -1.5, 0, 1.5, 4] {
            let point = peak + multiple * width
            if point > left, point < right { points.append(point) }
        }
        points.sort()
        return AdaptiveQuadrature.integrate(
            { t in exp(logConstant + nu * Self.logShape(t)) * normalSurvival(c * exp(t)) }, breakpoints: points,
            relativeTolerance: 1e-8, absoluteTolerance: 1e-300)
    }

    /// t − (e^{2t} − 1)/2, by its series −Σ_{n≥2} 2^{n−1}tⁿ/n! near 0 (where the subtraction would
    /// cancel).
    private static func logShape(_ t: Double) -> Double {
        guard abs(t) < 0.25 else { return t - expm1(2 * t) / 2 }
        var term = 2 * t * t / 2  // 2^{n−1} tⁿ / n! at n = 2
        var sum = term
        var n = 2.0
        while abs(term) > 1e-18 * abs(sum) {
            n += 1
            term *= 2 * t / n
            sum += term
        }
        return -sum
    }

    /// δ(x) = ln Γ(x) − ((x − ½) ln x − x + ½ ln 2π), by its asymptotic series for large x
    /// (Abramowitz & Stegun 6.1.41) and from `lgamma` below.
    private static func stirlingError(_ x: Double) -> Double {
        if x < 15 { return lgamma(x) - ((x - 0.5) * log(x) - x + 0.5 * log(2 * Double.pi)) }
        let inverse = 1 / x
        let square = inverse * inverse
        return inverse * (1.0 / 12 - square * (1.0 / 360 - square * (1.0 / 1260 - square / 1680)))
    }

    // MARK: Helpers

    private static func standardNormalDensity(_ y: Double) -> Double {
        exp(-y * y / 2) / (2 * Double.pi).squareRoot()
    }

    /// P(Z ≥ z) for standard normal Z, without cancellation in the upper tail.
    private static func upperTail(_ z: Double) -> Double {
        erfc(z / 2.0.squareRoot()) / 2
    }

    /// A root of f between `low` and `high` (where f changes sign) by Brent's method (R. P. Brent,
    /// *Algorithms for Minimization without Derivatives*, 1973, ch. 4): inverse quadratic or secant
    /// steps, bisection whenever those do not shrink the bracket fast enough.
    static func root(
        of f: (Double) -> Double, low: Double, lowValue: Double, high: Double, highValue: Double, tolerance: Double
    ) -> Double {
        var a = low, fa = lowValue
        var b = high, fb = highValue
        var c = a, fc = fa
        var d = b - a, e = d
        for _ in 0..<300 {
            if (fb > 0) == (fc > 0) {
                c = a; fc = fa; d = b - a; e = d
            }
            if abs(fc) < abs(fb) {
                a = b; fa = fb
                b = c; fb = fc
                c = a; fc = fa
            }
            let step = 2 * Double.ulpOfOne * abs(b) + tolerance * max(1, abs(b)) / 2
            let middle = (c - b) / 2
            if abs(middle) <= step || fb == 0 { return b }
            if abs(e) >= step, abs(fa) > abs(fb) {
                let s = fb / fa
                var p: Double
                var q: Double
                if a == c {
                    p = 2 * middle * s
                    q = 1 - s
                } else {
                    let ratioA = fa / fc, ratioB = fb / fc
                    p = s * (2 * middle * ratioA * (ratioA - ratioB) - (b - a) * (ratioB - 1))
                    q = (ratioA - 1) * (ratioB - 1) * (s - 1)
                }
                if p > 0 { q = -q } else { p = -p }
                if 2 * p < min(3 * middle * q - abs(step * q), abs(e * q)) {
                    e = d
                    d = p / q
                } else {
                    d = middle; e = middle
                }
            } else {
                d = middle; e = middle
            }
            a = b; fa = fb
            b += abs(d) > step ? d : (middle > 0 ? step : -step)
            fb = f(b)
        }
        return b
    }
}
