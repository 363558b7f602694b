import Foundation

/// Thompson sampling on a conversion metric, computed instead of drawn: each arm's next share of
/// units is the minimum share plus its part of the rest in proportion to its posterior chance of
/// being the best arm, which is the share Thompson sampling's random draws give it on average
/// (Thompson 1933; "randomized probability matching", Scott 2010). The chance is an integral,
/// taken by quadrature, so the same data give the same weights on every replica: no random
/// numbers, no clock. Pure: no I/O.
///
/// Each arm's conversion rate has the posterior Beta(α + conversions, β + units − conversions)
/// under the prior Beta(α, β); arms are independent. For arm i, with f and F the posteriors'
/// densities and distribution functions,
///
/// - P(i is best) = ∫₀¹ fᵢ(x) Πⱼ≠ᵢ Fⱼ(x) dx;
/// - the expected loss of choosing i, E[maxⱼ θⱼ − θᵢ] = E[max θ] − E[θᵢ], with
///   E[max θ] = ∫₀¹ (1 − Πⱼ Fⱼ(x)) dx.
///
/// Both integrals are taken by adaptive Gauss–Kronrod quadrature, started at each posterior's
/// mean and ±2, 8 and 64 standard deviations from it, to 10⁻¹⁰ of the result. The work is bounded:
/// at most ``maximumArms`` arms and ``maximumUnits`` units each, at most 1,000 quadrature segments
/// per integral. See <doc:Bandits> for the stopping rule, the limits and the simulated regret.
public enum BanditAllocator {
    /// What the weights add up to: basis points, the unit of the server's `fractional` splits
    /// (0.01 % is the finest share).
    public static let weightTotal = 10_000
    /// The most arms one allocation takes.
    public static let maximumArms = StatisticsEngine.maximumArms
    /// The most units an arm may have. The incomplete beta function's continued fraction needs
    /// about √units steps near the posterior's mean (2,000 at 10⁹ units and a 5 % rate), so
    /// larger counts are refused rather than computed slowly or imprecisely.
    public static let maximumUnits = 1e9
    /// The prior's α and β. Below ½ an arm without conversions has a posterior density that
    /// rises too steeply at 0 for the quadrature's bounded work; above 10⁶ the prior outweighs
    /// any experiment's data.
    public static let priorRange: ClosedRange<Double> = 0.5...1e6
    /// The share every arm keeps when ``BanditData/minimumShare`` is absent: 1 %.
    public static let defaultMinimumShare = 0.01
    /// Units every arm needs before the stopping rule may stop on the data, when
    /// ``BanditStoppingRule/minimumUnitsPerArm`` is absent.
    public static let defaultMinimumUnitsPerArm = 100.0
    /// The chance of being best that declares a winner, when
    /// ``BanditStoppingRule/probabilityToBeBest`` is absent.
    public static let defaultProbabilityToBeBest = 0.95

    /// Standard deviations from a posterior's mean beyond which its distribution function is
    /// taken as 0 or 1: the tail beyond is below 10⁻²⁰ for every posterior the limits allow.
    static let negligibleTail = 64.0
    /// The quadrature's relative tolerance.
    static let tolerance = 1e-10

    /// The allocation for `data`: each arm's chance of being best, expected loss and next
    /// weight, and the stopping rule's decision.
    ///
    /// - Throws: ``StatisticsError`` naming the first field that cannot be used (conversions
    ///   above units, a negative count, a minimum share the arms cannot all have, …).
    public static func allocate(_ data: BanditData) throws(StatisticsError) -> BanditAllocation {
        let (prior, minimumWeight) = try validate(data)
        let posteriors = data.arms.map {
            BetaDistribution(a: prior.alpha + $0.conversions, b: prior.beta + ($0.units - $0.conversions))
        }
        let (probabilities, maximum) = integrals(posteriors)
        let weights = weights(probabilities: probabilities, minimumWeight: minimumWeight)
        var arms: [BanditArmAllocation] = []
        for (index, arm) in data.arms.enumerated() {
            let posterior = posteriors[index]
            arms.append(
                BanditArmAllocation(
                    name: arm.name, posterior: BetaPrior(alpha: posterior.a, beta: posterior.b), posteriorMean: posterior.mean,
                    probabilityToBeBest: probabilities[index], expectedLoss: max(0, maximum - posterior.mean),
                    share: Double(weights[index]) / Double(weightTotal), weight: weights[index]))
        }
        let best = probabilities.max() ?? 0
        let leader = arms[probabilities.firstIndex { $0 >= best - 1e-12 } ?? 0]
        return BanditAllocation(
            inputs: data, arms: arms, weightTotal: weightTotal, leader: leader.name,
            decision: decide(data, leader: leader))
    }

    /// Each posterior's chance of being the highest (normalized to add up to 1: the quadrature's
    /// error, below 10⁻¹⁰, is what normalizing removes) and E[max θ], in one quadrature whose
    /// points evaluate every posterior once: at x, fᵢ(x)·Πⱼ≠ᵢ Fⱼ(x) for every i (from the
    /// products of the distribution functions before and after i) and 1 − Πⱼ Fⱼ(x).
    ///
    /// [0, ½] is integrated in x and [½, 1] in y = 1 − x, so that the points near 1 are as finely
    /// spaced as those near 0: a posterior with β below 1 (Jeffreys' prior, an arm without units)
    /// has a density that rises without bound at 1, and the quadrature resolves that rise only
    /// where the variable has the digits to.
    static func integrals(_ posteriors: [BetaDistribution]) -> (probabilities: [Double], expectedMaximum: Double) {
        let count = posteriors.count
        var distribution = [Double](repeating: 0, count: count)
        var after = [Double](repeating: 1, count: count + 1)
        func integrand(_ x: Double, _ y: Double, _ out: inout [Double]) {
            for (j, posterior) in posteriors.enumerated() { distribution[j] = cdf(posterior, x, y) }
            for j in stride(from: count - 1, through: 0, by: -1) { after[j] = after[j + 1] * distribution[j] }
            var before = 1.0
            for (i, posterior) in posteriors.enumerated() {
                let others = before * after[i + 1]
                let density = others > 0 ? posterior.density(x, complement: y) : 0
                // An end where the density is infinite is never a node; a rounded one may be.
                out[i] = density.isFinite ? density * others : 0
                before *= distribution[i]
            }
            out[count] = 1 - after[0]
        }
        let points = breakpoints(around: posteriors)
        let lower = AdaptiveQuadrature.integrate(
            components: count + 1, { x, out in integrand(x, 1 - x, &out) }, breakpoints: points.filter { $0 <= 0.5 } + [0.5],
            relativeTolerance: tolerance, absoluteTolerance: 1e-15)
        let upper = AdaptiveQuadrature.integrate(
            components: count + 1, { y, out in integrand(1 - y, y, &out) },
            breakpoints: ([0.5] + points.filter { $0 >= 0.5 }.map { 1 - $0 }).sorted(), relativeTolerance: tolerance,
            absoluteTolerance: 1e-15)
        let probabilities = (0..<count).map { max(0, lower[$0] + upper[$0]) }
        let total = probabilities.reduce(0, +)
        return (
            total > 0 ? probabilities.map { $0 / total } : probabilities.map { _ in 1 / Double(count) },
            lower[count] + upper[count]
        )
    }

    /// F(x), taken as 0 or 1 beyond ``negligibleTail`` standard deviations from the mean.
    private static func cdf(_ posterior: BetaDistribution, _ x: Double, _ y: Double) -> Double {
        let distance = (x - posterior.mean) / posterior.standardDeviation
        if distance < -negligibleTail { return 0 }
        if distance > negligibleTail { return 1 }
        return posterior.cdf(x, complement: y)
    }

    /// The quadrature's starting segments: 0, 1, and each posterior's mean and ±2, 8 and 64
    /// standard deviations from it (where a narrow posterior's mass is), within [0, 1]; the
    /// quadrature bisects from there.
    private static func breakpoints(around posteriors: [BetaDistribution]) -> [Double] {
        var points = [0.0, 1.0]
        for posterior in posteriors {
            points.append(posterior.mean)
            for step in [2.0, 8, negligibleTail] {
                points.append(posterior.mean - step * posterior.standardDeviation)
                points.append(posterior.mean + step * posterior.standardDeviation)
            }
        }
        return Array(Set(points.filter { $0 >= 0 && $0 <= 1 })).sorted()
    }

    /// The weights: `minimumWeight` each, and the rest of ``weightTotal`` shared in proportion to
    /// `probabilities` by largest remainders (ties to the earlier arm), so they add up exactly.
    static func weights(probabilities: [Double], minimumWeight: Int) -> [Int] {
        let rest = weightTotal - minimumWeight * probabilities.count
        let total = probabilities.reduce(0, +)
        let quotas = probabilities.map { total > 0 ? Double(rest) * $0 / total : Double(rest) / Double(probabilities.count) }
        var weights = quotas.map { Int($0.rounded(.down)) }
        let order = quotas.indices.sorted { left, right in
            let l = quotas[left] - Double(weights[left])
            let r = quotas[right] - Double(weights[right])
            return l != r ? l > r : left < right
        }
        for index in order.prefix(max(0, rest - weights.reduce(0, +))) { weights[index] += 1 }
        // Quotas whose rounding errors add up past the rest (never seen: they would need to be
        // off by a whole basis point) give it back from the largest weights.
        while weights.reduce(0, +) > rest, let largest = weights.indices.max(by: { weights[$0] < weights[$1] }) {
            weights[largest] -= 1
        }
        return weights.map { $0 + minimumWeight }
    }
}
