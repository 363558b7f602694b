/// Analyses an experiment from its sufficient statistics. Pure: no I/O, no clock, no randomness.
public enum StatisticsEngine {
    /// The most metrics and arms one analysis takes (each comparison is a few microseconds; the
    /// bound keeps work reachable from a request small).
    public static let maximumMetrics = 200
    public static let maximumArms = 20
    /// The largest magnitude of a statistic: squares and products of such numbers stay finite.
    public static let maximumMagnitude = 1e100

    /// The analysis of `data`.
    ///
    /// - Throws: ``StatisticsError`` naming the first field the analysis cannot use.
    public static func analyze(_ data: ExperimentData) throws(StatisticsError) -> ExperimentAnalysis {
        let alpha = data.alpha ?? 0.05
        guard alpha > 0, alpha < 1 else { throw StatisticsError("alpha", "must be between 0 and 1 (exclusive), not \(alpha)") }
        let threshold = data.sampleRatioThreshold ?? 0.001
        guard threshold > 0, threshold < 1 else {
            throw StatisticsError("sampleRatioThreshold", "must be between 0 and 1 (exclusive), not \(threshold)")
        }
        if let tau = data.sequentialMixingStandardDeviation, !(tau > 0 && tau.isFinite) {
            throw StatisticsError("sequentialMixingStandardDeviation", "must be a positive number, not \(tau)")
        }
        guard !data.metrics.isEmpty else { throw StatisticsError("metrics", "at least one metric is needed") }
        guard data.metrics.count <= maximumMetrics else {
            throw StatisticsError("metrics", "at most \(maximumMetrics) metrics per analysis, not \(data.metrics.count)")
        }
        var metrics: [MetricAnalysis] = []
        for (index, metric) in data.metrics.enumerated() {
            metrics.append(try analyze(metric, at: "metrics[\(index)]", control: data.control, alpha: alpha, tau: data.sequentialMixingStandardDeviation))
        }
        // Benjamini–Hochberg across every comparison of every metric, fixed-horizon and
        // sequential p-values separately.
        let fixed = StatisticalTests.benjaminiHochberg(metrics.flatMap { $0.comparisons.map(\.absolute.pValue) })
        let sequential = StatisticalTests.benjaminiHochberg(metrics.flatMap { $0.comparisons.map(\.sequential.pValue) })
        var position = 0
        for m in metrics.indices {
            for c in metrics[m].comparisons.indices {
                metrics[m].comparisons[c].adjustedPValue = fixed[position]
                metrics[m].comparisons[c].sequential.adjustedPValue = sequential[position]
                position += 1
            }
        }
        return ExperimentAnalysis(
            inputs: data, alpha: alpha, sampleRatio: try sampleRatio(data, threshold: threshold), metrics: metrics,
            methods: methods(alpha: alpha, threshold: threshold, tau: data.sequentialMixingStandardDeviation))
    }

    private static func analyze(
        _ metric: MetricData, at path: String, control: String, alpha: Double, tau: Double?
    ) throws(StatisticsError) -> MetricAnalysis {
        guard metric.arms.count <= maximumArms else {
            throw StatisticsError("\(path).arms", "at most \(maximumArms) arms, not \(metric.arms.count)")
        }
        guard metric.arms[control] != nil else {
            throw StatisticsError("\(path).arms", "the control arm \"\(control)\" is missing")
        }
        guard metric.arms.count >= 2 else { throw StatisticsError("\(path).arms", "at least one arm besides the control is needed") }
        let conversion = metric.kind == .conversion
        for (name, arm) in metric.arms {
            try check(arm, at: "\(path).arms.\(name)", conversion: conversion)
        }
        let withCovariate = metric.arms.values.filter(\.hasCovariate).count
        guard withCovariate == 0 || withCovariate == metric.arms.count else {
            throw StatisticsError("\(path).arms", "CUPED needs the covariate fields in every arm or in none")
        }
        let names = [control] + metric.arms.keys.filter { $0 != control }.sorted()
        var summaries = names.map { name in
            let arm = metric.arms[name]!
            return ArmSummary(arm: name, units: arm.units, mean: arm.mean, variance: arm.variance(conversion: conversion))
        }
        var cuped: CUPEDAdjustment?
        if withCovariate > 0 {
            let adjustment = CUPED.adjust(names.map { metric.arms[$0]! }, conversion: conversion)
            cuped = adjustment.adjustment
            for index in summaries.indices {
                summaries[index].mean = adjustment.arms[index].mean
                summaries[index].variance = adjustment.arms[index].variance
            }
        }
        let higherIsBetter = metric.higherIsBetter ?? true
        let base = summaries[0]
        // The sequential test's mixing variance: τ given, or 0.1 of the pooled standard deviation.
        let pooledVariance = summaries.map { ($0.units - 1) * $0.variance }.reduce(0, +)
            / summaries.map { $0.units - 1 }.reduce(0, +)
        let mixingVariance = tau.map { $0 * $0 } ?? 0.01 * pooledVariance
        let comparisons = summaries.dropFirst().map { arm in
            let absolute = StatisticalTests.welch(
                mean1: arm.mean, variance1: arm.variance, units1: arm.units,
                mean0: base.mean, variance0: base.variance, units0: base.units, alpha: alpha)
            let relative = StatisticalTests.relative(
                mean1: arm.mean, variance1: arm.variance, units1: arm.units,
                mean0: base.mean, variance0: base.variance, units0: base.units, alpha: alpha)
            let sequential = StatisticalTests.mixtureSequential(
                difference: absolute.estimate, variance: absolute.standardError * absolute.standardError,
                mixingVariance: mixingVariance, alpha: alpha)
            let good = higherIsBetter ? absolute.estimate : -absolute.estimate
            return Comparison(
                arm: arm.arm, control: control, absolute: absolute, relative: relative,
                sequential: SequentialEstimate(
                    lower: sequential.lower, upper: sequential.upper, pValue: sequential.pValue,
                    mixingVariance: mixingVariance, adjustedPValue: sequential.pValue),
                bayesian: StatisticalTests.bayesian(difference: good, standardError: absolute.standardError),
                adjustedPValue: absolute.pValue)
        }
        return MetricAnalysis(
            name: metric.name, kind: metric.kind, higherIsBetter: higherIsBetter, guardrail: metric.guardrail ?? false,
            cuped: cuped, arms: summaries, comparisons: comparisons)
    }

    private static func check(_ arm: ArmStatistics, at path: String, conversion: Bool) throws(StatisticsError) {
        let fields: [(String, Double?)] = [
            ("units", arm.units), ("sum", arm.sum), ("sumOfSquares", arm.sumOfSquares), ("covariateSum", arm.covariateSum),
            ("covariateSumOfSquares", arm.covariateSumOfSquares), ("sumOfProducts", arm.sumOfProducts),
        ]
        for case (let name, let value?) in fields where !(value.isFinite && abs(value) <= maximumMagnitude) {
            throw StatisticsError("\(path).\(name)", "must be a finite number of magnitude at most 1e100")
        }
        guard arm.units >= 2 else { throw StatisticsError("\(path).units", "at least 2 units are needed, not \(arm.units)") }
        if conversion {
            guard arm.sum >= 0, arm.sum <= arm.units else {
                throw StatisticsError("\(path).sum", "converted units must be between 0 and the arm's \(arm.units) units, not \(arm.sum)")
            }
        } else {
            guard let squares = arm.sumOfSquares else {
                throw StatisticsError("\(path).sumOfSquares", "is needed for a mean or count metric")
            }
            // Cauchy–Schwarz: n·Σy² ≥ (Σy)², up to rounding.
            guard arm.units * squares >= arm.sum * arm.sum * (1 - 1e-12) else {
                throw StatisticsError("\(path).sumOfSquares", "is too small for the sum (n·Σy² < (Σy)²): the statistics do not come from one set of values")
            }
        }
        if arm.hasCovariate, let x = arm.covariateSum, let xx = arm.covariateSumOfSquares, arm.units * xx < x * x * (1 - 1e-12) {
            throw StatisticsError("\(path).covariateSumOfSquares", "is too small for covariateSum (n·Σx² < (Σx)²)")
        }
    }

    private static func sampleRatio(_ data: ExperimentData, threshold: Double) throws(StatisticsError) -> SampleRatioCheck? {
        guard let allocation = data.allocation else { return nil }
        let units = data.units ?? data.metrics[0].arms.mapValues(\.units)
        let names = allocation.keys.sorted()
        guard names.count >= 2 else { throw StatisticsError("allocation", "needs at least two arms") }
        var observed: [Double] = []
        var weights: [Double] = []
        for name in names {
            let weight = allocation[name]!
            guard weight > 0, weight <= maximumMagnitude else {
                throw StatisticsError("allocation.\(name)", "must be a positive weight, not \(weight)")
            }
            guard let count = units[name], count >= 0, count <= maximumMagnitude else {
                throw StatisticsError("units.\(name)", "the allocation's arm \"\(name)\" has no unit count")
            }
            observed.append(count)
            weights.append(weight)
        }
        guard observed.reduce(0, +) > 0 else { throw StatisticsError("units", "no units in any arm") }
        let test = StatisticalTests.sampleRatio(observed: observed, weights: weights)
        return SampleRatioCheck(
            observed: Dictionary(uniqueKeysWithValues: zip(names, observed)),
            expected: Dictionary(uniqueKeysWithValues: zip(names, test.expected)), chiSquared: test.chiSquared,
            degreesOfFreedom: test.degreesOfFreedom, pValue: test.pValue, threshold: threshold, mismatch: test.pValue < threshold)
    }

    private static func methods(alpha: Double, threshold: Double, tau: Double?) -> [String] {
        [
            "Absolute difference: Welch's t test and interval, two-sided at α = \(alpha), Welch–Satterthwaite degrees of freedom.",
            "Relative difference: the delta method (normal interval) for arm mean / control mean − 1.",
            "Sequential: mixture sequential probability ratio test with normal mixing variance τ² = "
                + (tau.map { "\($0 * $0) (given)" } ?? "0.01 × the pooled variance")
                + "; intervals and p-values valid at every look.",
            "Bayesian: flat (improper) priors on each arm's mean, normal approximation of the likelihood; chance to beat the control and expected loss.",
            "CUPED (when covariates are given): θ = Cov(x, y)/Var(x) over all units; each arm adjusted to the pooled covariate mean.",
            "Sample ratio: Pearson's chi-squared test against the allocation; a p-value below \(threshold) is a mismatch and blocks a decision.",
            "Multiple comparisons: Benjamini–Hochberg adjusted p-values across every metric and arm (fixed-horizon and sequential separately).",
        ]
    }
}
