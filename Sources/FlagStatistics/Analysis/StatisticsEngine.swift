/// Analyses an experiment from its sufficient statistics. Pure: no I/O, no clock, no randomness.
public enum StatisticsEngine {
    /// The most metrics and arms one analysis takes (each comparison is a few microseconds; the
    /// bound keeps work reachable from a request small).
    public static let maximumMetrics = 200
    /// The most arms one analysis takes, the control included.
    public static let maximumArms = 20
    /// The largest magnitude of a statistic: squares and products of such numbers stay finite.
    public static let maximumMagnitude = 1e100
    /// The significance levels (α, and the sample ratio check's threshold) the engine accepts.
    /// Below 10⁻¹² no experiment could reach a verdict; above 0.5 an interval covers less than
    /// half the time.
    public static let significanceRange: ClosedRange<Double> = 1e-12...0.5
    /// Units an arm needs before it is compared, when ``ExperimentData/minimumUnitsPerArm`` is absent.
    public static let defaultMinimumUnitsPerArm = 100.0
    /// Converted and unconverted units each arm of a conversion metric needs: the usual condition
    /// (np ≥ 5 and n(1 − p) ≥ 5) for the normal approximation of a binomial proportion.
    public static let minimumConversions = 5.0
    /// The sequential test's mixing standard deviation, as a share of the metric's pooled
    /// standard deviation, when ``ExperimentData/sequentialMixingStandardDeviation`` is absent.
    public static let defaultMixingWidth = 0.1
    /// The smallest relative share deviation reported as a sample ratio mismatch, by default.
    public static let defaultSampleRatioMinimumDeviation = 0.01
    /// K, the concentration of the sequential sample ratio test's Dirichlet prior: it looks for
    /// share deviations of about √(p(1 − p)/K), 1.6 points at an even split.
    public static let sampleRatioConcentration = 1000.0

    /// The analysis of `data`.
    ///
    /// - Throws: ``StatisticsError`` naming the first field the analysis cannot use.
    public static func analyze(_ data: ExperimentData) throws(StatisticsError) -> ExperimentAnalysis {
        let alpha = try significance(data.alpha ?? 0.05, at: "alpha")
        let threshold = try significance(data.sampleRatioThreshold ?? 0.001, at: "sampleRatioThreshold")
        if let tau = data.sequentialMixingStandardDeviation, !(tau > 0 && tau.isFinite && tau <= maximumMagnitude) {
            throw StatisticsError("sequentialMixingStandardDeviation", "must be a positive number of magnitude at most 1e100, not \(tau)")
        }
        let minimumUnits = data.minimumUnitsPerArm ?? defaultMinimumUnitsPerArm
        guard minimumUnits >= 2, minimumUnits <= maximumMagnitude else {
            throw StatisticsError("minimumUnitsPerArm", "must be a number from 2 to 1e100, not \(minimumUnits)")
        }
        guard !data.metrics.isEmpty else { throw StatisticsError("metrics", "at least one metric is needed") }
        guard data.metrics.count <= maximumMetrics else {
            throw StatisticsError("metrics", "at most \(maximumMetrics) metrics per analysis, not \(data.metrics.count)")
        }
        var metrics: [MetricAnalysis] = []
        for (index, metric) in data.metrics.enumerated() {
            metrics.append(
                try analyze(
                    metric, at: "metrics[\(index)]", control: data.control, alpha: alpha, tau: data.sequentialMixingStandardDeviation,
                    minimumUnits: minimumUnits))
        }
        // The chosen correction across every comparison of every metric, fixed-horizon and
        // sequential p-values separately.
        let correction = data.correction ?? .bh
        let sequentialCorrection: MultipleComparisonCorrection = correction.appliesToSequentialTest ? correction : .holm
        let fixed = adjust(metrics, by: correction)
        let sequential = adjust(metrics.flatMap { $0.comparisons.map(\.sequential.pValue) }, by: sequentialCorrection)
        var position = 0
        for m in metrics.indices {
            for c in metrics[m].comparisons.indices {
                metrics[m].comparisons[c].adjustedPValue = fixed[position]
                metrics[m].comparisons[c].sequential.adjustedPValue = sequential[position]
                position += 1
            }
        }
        let sampleRatio = try sampleRatio(data, threshold: threshold)
        return ExperimentAnalysis(
            inputs: data, alpha: alpha, sampleRatio: sampleRatio, metrics: metrics,
            methods: methods(
                alpha: alpha, threshold: threshold, tau: data.sequentialMixingStandardDeviation, minimumUnits: minimumUnits,
                minimumDeviation: sampleRatio?.minimumDeviation ?? defaultSampleRatioMinimumDeviation, correction: correction),
            correction: correction, sequentialCorrection: sequentialCorrection)
    }

    /// `pValues` adjusted by `correction`, in order (Benjamini–Hochberg or Holm; never Dunnett,
    /// which needs the comparisons' statistics). A value that is not a probability is adjusted to 1.
    static func adjust(_ pValues: [Double], by correction: MultipleComparisonCorrection) -> [Double] {
        switch correction {
        case .bh, .dunnett: return StatisticalTests.benjaminiHochberg(pValues)
        case .holm: return MultipleComparisons.holm(pValues).map { $0.isNaN ? 1 : $0 }
        }
    }

    /// The fixed-horizon p-values of every comparison of every metric, in order, adjusted by
    /// `correction`. Dunnett: within each metric, its arms against the shared control by the
    /// normal (large-sample) many-to-one distribution with each arm's own variance of the mean
    /// (``DunnettDistribution/init(controlVariance:treatmentVariances:)``); across the metrics
    /// that have comparisons, Bonferroni (times their number), since the metrics' correlation
    /// is unknown.
    static func adjust(_ metrics: [MetricAnalysis], by correction: MultipleComparisonCorrection) -> [Double] {
        guard correction == .dunnett else {
            return adjust(metrics.flatMap { $0.comparisons.map(\.absolute.pValue) }, by: correction)
        }
        let family = Double(metrics.filter { !$0.comparisons.isEmpty }.count)
        var adjusted: [Double] = []
        for metric in metrics where !metric.comparisons.isEmpty {
            let control = metric.arms[0]
            let variances = metric.comparisons.map { comparison -> Double in
                let arm = metric.arms.first { $0.arm == comparison.arm }!
                return arm.variance / arm.units
            }
            let distribution = try? DunnettDistribution(
                controlVariance: control.variance / control.units, treatmentVariances: variances)
            for comparison in metric.comparisons {
                let t = comparison.absolute.estimate / comparison.absolute.standardError
                // Without a distribution (a variance the comparison did not need, such as a
                // control whose own variance is zero), Bonferroni within the metric: still valid.
                let p = distribution?.survival(abs(t)) ?? min(1, Double(metric.comparisons.count) * comparison.absolute.pValue)
                adjusted.append(p.isNaN ? 1 : min(1, family * p))
            }
        }
        return adjusted
    }

    /// `value` if it is a significance level the engine accepts (``significanceRange``).
    static func significance(_ value: Double, at path: String) throws(StatisticsError) -> Double {
        guard significanceRange.contains(value) else {
            throw StatisticsError(path, "must be from 1e-12 to 0.5, not \(value)")
        }
        return value
    }

    private static func analyze(
        _ metric: MetricData, at path: String, control: String, alpha: Double, tau: Double?, minimumUnits: Double
    ) throws(StatisticsError) -> MetricAnalysis {
        guard metric.arms.count <= maximumArms else {
            throw StatisticsError("\(path).arms", "at most \(maximumArms) arms, not \(metric.arms.count)")
        }
        guard metric.arms[control] != nil else {
            throw StatisticsError("\(path).arms", "the control arm \"\(control)\" is missing")
        }
        guard metric.arms.count >= 2 else { throw StatisticsError("\(path).arms", "at least one arm besides the control is needed") }
        for (name, arm) in metric.arms {
            try check(arm, at: "\(path).arms.\(name)", kind: metric.kind)
        }
        let withCovariate = metric.arms.values.filter(\.hasCovariate).count
        guard withCovariate == 0 || withCovariate == metric.arms.count else {
            throw StatisticsError("\(path).arms", "CUPED needs the covariate fields in every arm or in none")
        }
        if withCovariate > 0, metric.kind == .ratio {
            throw StatisticsError("\(path).arms", "a ratio metric takes no CUPED covariate")
        }
        let names = [control] + metric.arms.keys.filter { $0 != control }.sorted()
        var summaries = names.map { name in summary(name, metric.arms[name]!, kind: metric.kind) }
        var cuped: CUPEDAdjustment?
        if withCovariate > 0 {
            let adjustment = try CUPED.adjust(names.map { metric.arms[$0]! }, conversion: metric.kind == .conversion, at: path)
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
        let mixingVariance = tau.map { $0 * $0 } ?? defaultMixingWidth * defaultMixingWidth * pooledVariance
        var comparisons: [Comparison] = []
        var notEnough: [NotEnoughData] = []
        let controlProblem = problem(with: metric.arms[control]!, kind: metric.kind, minimumUnits: minimumUnits, role: "the control")
        for arm in summaries.dropFirst() {
            if let reason = controlProblem
                ?? problem(with: metric.arms[arm.arm]!, kind: metric.kind, minimumUnits: minimumUnits, role: "the arm")
            {
                notEnough.append(NotEnoughData(arm: arm.arm, reason: reason))
                continue
            }
            guard
                let absolute = StatisticalTests.welch(
                    mean1: arm.mean, variance1: arm.variance, units1: arm.units,
                    mean0: base.mean, variance0: base.variance, units0: base.units, alpha: alpha),
                let sequential = StatisticalTests.mixtureSequential(
                    difference: absolute.estimate, variance: absolute.standardError * absolute.standardError,
                    mixingVariance: mixingVariance, alpha: alpha)
            else {
                notEnough.append(NotEnoughData(
                    arm: arm.arm, reason: "the values do not vary in either arm: the difference has no standard error yet"))
                continue
            }
            let relative = StatisticalTests.relative(
                mean1: arm.mean, variance1: arm.variance, units1: arm.units,
                mean0: base.mean, variance0: base.variance, units0: base.units, alpha: alpha)
            let good = higherIsBetter ? absolute.estimate : -absolute.estimate
            comparisons.append(Comparison(
                arm: arm.arm, control: control, absolute: absolute, relative: relative,
                sequential: SequentialEstimate(
                    lower: sequential.lower, upper: sequential.upper, pValue: sequential.pValue,
                    mixingVariance: mixingVariance, adjustedPValue: sequential.pValue),
                bayesian: StatisticalTests.bayesian(difference: good, standardError: absolute.standardError),
                adjustedPValue: absolute.pValue))
        }
        return MetricAnalysis(
            name: metric.name, kind: metric.kind, higherIsBetter: higherIsBetter, guardrail: metric.guardrail ?? false,
            cuped: cuped, arms: summaries, comparisons: comparisons, notEnoughData: notEnough)
    }

    /// An arm's mean and per-unit variance; for a ratio metric the ratio and n·Var(ratio), so that
    /// variance/units is the delta method's variance of the ratio.
    private static func summary(_ name: String, _ arm: ArmStatistics, kind: MetricData.Kind) -> ArmSummary {
        if kind == .ratio {
            let ratio = StatisticalTests.ratio(
                units: arm.units, numeratorSum: arm.sum, numeratorSumOfSquares: arm.sumOfSquares ?? 0,
                denominatorSum: arm.denominatorSum ?? 0, denominatorSumOfSquares: arm.denominatorSumOfSquares ?? 0,
                sumOfProducts: arm.sumOfProducts ?? 0)
            return ArmSummary(arm: name, units: arm.units, mean: ratio?.ratio ?? 0, variance: (ratio?.variance ?? 0) * arm.units)
        }
        return ArmSummary(arm: name, units: arm.units, mean: arm.mean, variance: arm.variance(conversion: kind == .conversion))
    }

    /// Why `arm` cannot be compared yet, or `nil`: too few units, too few conversions or
    /// non-conversions, a ratio without denominators, or a spread that rounding has swallowed.
    private static func problem(with arm: ArmStatistics, kind: MetricData.Kind, minimumUnits: Double, role: String) -> String? {
        if arm.units < minimumUnits {
            return "\(role) has \(ReportNumber(arm.units)) units, fewer than the \(ReportNumber(minimumUnits)) each arm needs (minimumUnitsPerArm)"
        }
        switch kind {
        case .conversion:
            let converted = min(arm.sum, arm.units - arm.sum)
            if converted < minimumConversions {
                return "\(role) has \(ReportNumber(arm.sum)) converted units of \(ReportNumber(arm.units)); "
                    + "the normal approximation needs at least \(ReportNumber(minimumConversions)) converted and \(ReportNumber(minimumConversions)) unconverted units"
            }
        case .ratio:
            if (arm.denominatorSum ?? 0) <= 0 {
                return "\(role)'s denominators sum to 0: it has no ratio yet"
            }
        case .mean, .count:
            if arm.varianceLostToRounding(conversion: false) {
                return "\(role)'s variance is lost to rounding in sumOfSquares (values far from zero): sum the values minus an offset and give the offset"
            }
        }
        return nil
    }

    private static func check(_ arm: ArmStatistics, at path: String, kind: MetricData.Kind) throws(StatisticsError) {
        let fields: [(String, Double?)] = [
            ("units", arm.units), ("sum", arm.sum), ("sumOfSquares", arm.sumOfSquares), ("covariateSum", arm.covariateSum),
            ("covariateSumOfSquares", arm.covariateSumOfSquares), ("sumOfProducts", arm.sumOfProducts), ("offset", arm.offset),
            ("denominatorSum", arm.denominatorSum), ("denominatorSumOfSquares", arm.denominatorSumOfSquares),
        ]
        for case (let name, let value?) in fields where !(value.isFinite && abs(value) <= maximumMagnitude) {
            throw StatisticsError("\(path).\(name)", "must be a finite number of magnitude at most 1e100")
        }
        guard arm.units >= 2 else { throw StatisticsError("\(path).units", "at least 2 units are needed, not \(arm.units)") }
        if let squares = arm.sumOfSquares, squares < 0 {
            throw StatisticsError("\(path).sumOfSquares", "a sum of squares cannot be negative, not \(squares)")
        }
        switch kind {
        case .conversion:
            guard arm.sum >= 0, arm.sum <= arm.units else {
                throw StatisticsError("\(path).sum", "converted units must be between 0 and the arm's \(arm.units) units, not \(arm.sum)")
            }
            if let squares = arm.sumOfSquares, abs(squares - arm.sum) > 1e-9 * max(1, arm.sum) {
                throw StatisticsError("\(path).sumOfSquares", "a conversion's values are 0 or 1, so it equals sum (\(arm.sum)), not \(squares)")
            }
        case .mean, .count, .ratio:
            guard let squares = arm.sumOfSquares else {
                throw StatisticsError("\(path).sumOfSquares", "is needed for a \(kind.rawValue) metric")
            }
            if kind == .count, arm.sum < 0 {
                throw StatisticsError("\(path).sum", "a count metric counts events, so its sum cannot be negative, not \(arm.sum)")
            }
            // Cauchy–Schwarz: n·Σy² ≥ (Σy)², up to rounding.
            guard arm.units * squares >= arm.sum * arm.sum * (1 - 1e-12) else {
                throw StatisticsError("\(path).sumOfSquares", "is too small for the sum (n·Σy² < (Σy)²): the statistics do not come from one set of values")
            }
        }
        if kind == .ratio {
            try checkRatio(arm, at: path)
        }
        if arm.hasCovariate, let x = arm.covariateSum, let xx = arm.covariateSumOfSquares, let xy = arm.sumOfProducts {
            guard arm.units * xx >= x * x * (1 - 1e-12) else {
                throw StatisticsError("\(path).covariateSumOfSquares", "is too small for covariateSum (n·Σx² < (Σx)²)")
            }
            let squares = kind == .conversion ? arm.sum : (arm.sumOfSquares ?? 0)
            guard correlationIsPossible(units: arm.units, x: (x, xx), y: (arm.sum, squares), products: xy) else {
                throw StatisticsError("\(path).sumOfProducts", "implies a correlation between the covariate and the metric beyond ±1: the sums do not come from one set of units")
            }
        }
    }

    private static func checkRatio(_ arm: ArmStatistics, at path: String) throws(StatisticsError) {
        guard let d = arm.denominatorSum, let dd = arm.denominatorSumOfSquares, let nd = arm.sumOfProducts else {
            throw StatisticsError("\(path).denominatorSum", "a ratio metric needs denominatorSum, denominatorSumOfSquares and sumOfProducts")
        }
        // 0 is an arm whose units have no denominator yet (no session, no order): valid, and not
        // enough data (``problem(with:kind:minimumUnits:role:)``); below 0 no ratio is meant.
        guard d >= 0 else { throw StatisticsError("\(path).denominatorSum", "cannot be negative, not \(d)") }
        guard arm.units * dd >= d * d * (1 - 1e-12) else {
            throw StatisticsError("\(path).denominatorSumOfSquares", "is too small for denominatorSum (n·ΣD² < (ΣD)²)")
        }
        guard correlationIsPossible(units: arm.units, x: (d, dd), y: (arm.sum, arm.sumOfSquares ?? 0), products: nd) else {
            throw StatisticsError("\(path).sumOfProducts", "implies a correlation of numerator and denominator beyond ±1: the sums do not come from one set of units")
        }
    }

    /// Cauchy–Schwarz on sums: |Σxy − ΣxΣy/n| ≤ √(Sxx·Syy) up to rounding, or the sums imply a
    /// correlation beyond ±1 and cannot come from one set of units.
    private static func correlationIsPossible(
        units: Double, x: (sum: Double, squares: Double), y: (sum: Double, squares: Double), products: Double
    ) -> Bool {
        let sxx = ArmStatistics.centeredSquares(squares: x.squares, sum: x.sum, units: units).value
        let syy = ArmStatistics.centeredSquares(squares: y.squares, sum: y.sum, units: units).value
        let sxy = products - x.sum * y.sum / units
        let slack = 1e-9 * (abs(products) + abs(x.sum * y.sum / units)) + 1e-300
        return abs(sxy) <= (max(0, sxx) * max(0, syy)).squareRoot() * (1 + 1e-9) + slack
    }

    private static func sampleRatio(_ data: ExperimentData, threshold: Double) throws(StatisticsError) -> SampleRatioCheck? {
        guard let allocation = data.allocation else { return nil }
        let units = data.units ?? data.metrics[0].arms.mapValues(\.units)
        return try sampleRatioCheck(
            observed: units, allocation: allocation, threshold: threshold,
            minimumDeviation: data.sampleRatioMinimumDeviation ?? defaultSampleRatioMinimumDeviation)
    }

    /// The sample ratio check of `observed` units per arm against the planned `allocation`:
    /// Pearson's chi-squared test (shown), the anytime-valid sequential test (decided on) and the
    /// largest relative deviation of a share.
    ///
    /// - Throws: ``StatisticsError`` for an arm with units but no planned share, an allocation arm
    ///   without a count, a weight that is not positive, or an out-of-range setting.
    public static func sampleRatioCheck(
        observed units: [String: Double], allocation: [String: Double], threshold: Double,
        minimumDeviation: Double = defaultSampleRatioMinimumDeviation
    ) throws(StatisticsError) -> SampleRatioCheck {
        _ = try significance(threshold, at: "sampleRatioThreshold")
        guard minimumDeviation >= 0, minimumDeviation < 1 else {
            throw StatisticsError("sampleRatioMinimumDeviation", "must be from 0 to 1 (exclusive), not \(minimumDeviation)")
        }
        let names = allocation.keys.sorted()
        guard names.count >= 2 else { throw StatisticsError("allocation", "needs at least two arms") }
        for (name, count) in units.sorted(by: { $0.key < $1.key }) where allocation[name] == nil && count > 0 {
            throw StatisticsError("allocation", "the arm \"\(name)\" has units but no planned share: give every arm its weight")
        }
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
        let total = observed.reduce(0, +)
        guard total > 0 else { throw StatisticsError("units", "no units in any arm") }
        let test = StatisticalTests.sampleRatio(observed: observed, weights: weights)
        let sequential = StatisticalTests.sequentialSampleRatio(
            observed: observed, weights: weights, concentration: sampleRatioConcentration)
        let weightTotal = weights.reduce(0, +)
        let deviation = zip(observed, weights).map { abs(($0 / total) / ($1 / weightTotal) - 1) }.max() ?? 0
        return SampleRatioCheck(
            observed: Dictionary(uniqueKeysWithValues: zip(names, observed)),
            expected: Dictionary(uniqueKeysWithValues: zip(names, test.expected)), chiSquared: test.chiSquared,
            degreesOfFreedom: test.degreesOfFreedom, pValue: test.pValue, sequentialPValue: sequential,
            maximumDeviation: deviation, minimumDeviation: minimumDeviation, threshold: threshold,
            mismatch: sequential < threshold && deviation >= minimumDeviation)
    }

    private static func methods(
        alpha: Double, threshold: Double, tau: Double?, minimumUnits: Double, minimumDeviation: Double,
        correction: MultipleComparisonCorrection
    ) -> [String] {
        [
            "Absolute difference: Welch's t test and interval, two-sided at α = \(alpha), Welch–Satterthwaite degrees of freedom.",
            "Relative difference: Fieller's interval for (arm mean − control mean)/|control mean| with the Welch t critical value; none when the control mean is not distinguishable from 0.",
            "Ratio metrics: Σ numerator/Σ denominator per arm with the delta method's variance, the unit as the independent draw.",
            "Sequential: mixture sequential probability ratio test with normal mixing variance τ² = "
                + (tau.map { "\($0 * $0) (given)" } ?? "(\(defaultMixingWidth) × the pooled standard deviation)²")
                + "; intervals and p-values valid at every look.",
            "Bayesian: flat (improper) priors on each arm's mean, normal approximation of the likelihood; chance to beat the control and expected loss.",
            "CUPED (when covariates are given): θ = Cov(x, y)/Var(x) over all units; each arm adjusted to the pooled covariate mean.",
            "Minimum sample: an arm is compared once it and the control have \(ReportNumber(minimumUnits)) units (and, for a conversion, \(ReportNumber(minimumConversions)) converted and unconverted units); a variance of zero is reported as not enough data, never as certainty.",
            "Sample ratio: anytime-valid Dirichlet-multinomial test (Lindon & Malek 2022, K = \(ReportNumber(sampleRatioConcentration))) against the allocation; a p-value below \(threshold) with a share off by at least \(minimumDeviation * 100) % is a mismatch and blocks a decision (Pearson's chi-squared shown beside it).",
            multipleComparisons(correction),
        ]
    }

    private static func multipleComparisons(_ correction: MultipleComparisonCorrection) -> String {
        switch correction {
        case .bh:
            "Multiple comparisons: Benjamini–Hochberg adjusted p-values across every metric and arm (fixed-horizon and sequential separately), controlling the false discovery rate."
        case .holm:
            "Multiple comparisons: Holm's step-down adjusted p-values across every metric and arm (fixed-horizon and sequential separately), controlling the family-wise error rate under any dependence."
        case .dunnett:
            "Multiple comparisons: Dunnett's many-to-one adjusted p-values for the fixed-horizon test (the arms of each metric against the shared control, normal approximation with each arm's own variance; Bonferroni across metrics); Dunnett does not hold for the always-valid sequential p-values, which are adjusted by Holm."
        }
    }
}

/// A count or setting as people read it: `100`, not `100.0`; `2.5` stays `2.5`.
struct ReportNumber: CustomStringConvertible {
    let value: Double
    init(_ value: Double) { self.value = value }
    var description: String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
