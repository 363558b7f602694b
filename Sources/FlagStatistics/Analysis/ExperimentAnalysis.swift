/// The analysis of an experiment: the inputs it was computed from, the sample ratio check, and per
/// metric every arm against the control.
public struct ExperimentAnalysis: Sendable, Hashable, Codable {
    /// The data analysed, as given, so that every figure can be recomputed.
    public var inputs: ExperimentData
    /// The α used.
    public var alpha: Double
    /// The sample ratio check, when an allocation was given.
    public var sampleRatio: SampleRatioCheck?
    /// One analysis per metric, in the order of the data's metrics.
    public var metrics: [MetricAnalysis]
    /// The methods and priors, in words (shown on results pages).
    public var methods: [String]
    /// The correction of every ``Comparison/adjustedPValue`` (the fixed-horizon test's); absent in
    /// analyses made before it could be chosen, which used Benjamini–Hochberg.
    public var correction: MultipleComparisonCorrection?
    /// The correction of every ``SequentialEstimate/adjustedPValue``: the chosen one, or Holm when
    /// Dunnett was chosen (it holds for the fixed-horizon test only); absent as ``correction``.
    public var sequentialCorrection: MultipleComparisonCorrection?
}

/// A chi-squared goodness-of-fit test of the observed units per arm against the allocation.
///
/// Pearson's test is the fixed-horizon view; the decision rests on the anytime-valid sequential
/// test (``StatisticalTests/sequentialSampleRatio(observed:weights:concentration:)``), which may
/// be re-checked at every view, and on a minimum deviation, so that a split off by a hair in a
/// huge experiment is not called a mismatch.
public struct SampleRatioCheck: Sendable, Hashable, Codable {
    /// Units observed per arm.
    public var observed: [String: Double]
    /// Units expected per arm under the allocation (the total split by the planned shares).
    public var expected: [String: Double]
    /// Pearson's χ² statistic, Σ (observed − expected)² / expected.
    public var chiSquared: Double
    /// The arms less one.
    public var degreesOfFreedom: Double
    /// Pearson's fixed-horizon p-value (valid at one planned look only; shown, not decided on).
    public var pValue: Double
    /// The always-valid p-value of the Dirichlet-multinomial sequential test.
    public var sequentialPValue: Double?
    /// The largest |observed share / planned share − 1| over the arms.
    public var maximumDeviation: Double?
    /// The deviation below which no mismatch is reported.
    public var minimumDeviation: Double?
    /// The sequential p-value below which the split is a mismatch (0.001 unless the data set another).
    public var threshold: Double
    /// `sequentialPValue < threshold` and `maximumDeviation ≥ minimumDeviation`: the split is not
    /// the one planned, and no decision should be made.
    public var mismatch: Bool

    /// A check as computed; the sequential p-value and the deviations are `nil` in checks made before they existed.
    public init(
        observed: [String: Double], expected: [String: Double], chiSquared: Double, degreesOfFreedom: Double, pValue: Double,
        sequentialPValue: Double? = nil, maximumDeviation: Double? = nil, minimumDeviation: Double? = nil,
        threshold: Double, mismatch: Bool
    ) {
        self.observed = observed
        self.expected = expected
        self.chiSquared = chiSquared
        self.degreesOfFreedom = degreesOfFreedom
        self.pValue = pValue
        self.sequentialPValue = sequentialPValue
        self.maximumDeviation = maximumDeviation
        self.minimumDeviation = minimumDeviation
        self.threshold = threshold
        self.mismatch = mismatch
    }
}

/// One metric: a summary of each arm and each arm against the control.
public struct MetricAnalysis: Sendable, Hashable, Codable {
    /// The metric's name, as the data gave it.
    public var name: String
    /// How the metric's values are formed per unit.
    public var kind: MetricData.Kind
    /// Whether a larger value is the good direction (`true` unless the data said otherwise).
    public var higherIsBetter: Bool
    /// Whether the metric must not get worse.
    public var guardrail: Bool
    /// The CUPED adjustment, when every arm carried its covariate.
    public var cuped: CUPEDAdjustment?
    /// Each arm's summary, the control first.
    public var arms: [ArmSummary]
    /// Each arm against the control, for the arms with enough data (see `notEnoughData`).
    public var comparisons: [Comparison]
    /// The arms not compared, each with the reason: too few units, too few conversions, a
    /// variance of zero or lost to rounding. Empty when every arm was compared.
    public var notEnoughData: [NotEnoughData] = []
}

/// An arm the analysis did not compare with the control, and why. A standard error of zero is
/// never reported as certainty: it means the data cannot tell yet.
public struct NotEnoughData: Sendable, Hashable, Codable {
    /// The arm's name.
    public var arm: String
    /// Why it was not compared, in words (too few units, no conversions, no variance…).
    public var reason: String

    /// The arm `arm`, not compared for `reason`.
    public init(arm: String, reason: String) {
        self.arm = arm
        self.reason = reason
    }
}

/// An arm's mean and variance (after CUPED, when applied).
public struct ArmSummary: Sendable, Hashable, Codable {
    /// The arm's name.
    public var arm: String
    /// The arm's units.
    public var units: Double
    /// The arm's mean per unit (CUPED-adjusted when applied).
    public var mean: Double
    /// The sample variance (divided by units − 1) of one unit's value; the variance of the mean is this over ``units``.
    public var variance: Double
}

/// θ = Cov(x, y)/Var(x) over all units, and how much of the variance it removed.
public struct CUPEDAdjustment: Sendable, Hashable, Codable {
    /// θ = Cov(x, y)/Var(x): how much of the covariate's deviation is taken off each unit's value.
    public var theta: Double
    /// The pooled covariate mean x̄ the arms are adjusted towards.
    public var covariateMean: Double
    /// 1 − Var(adjusted)/Var(raw), summed over the arms' variances of the mean.
    public var varianceReduction: Double
}

/// An interval for a difference and its test, at the analysis' α.
public struct Estimate: Sendable, Hashable, Codable {
    /// The difference (or relative difference) estimated.
    public var estimate: Double
    /// The estimate's standard error.
    public var standardError: Double
    /// The lower end of the (1 − α) interval.
    public var lower: Double
    /// The upper end of the (1 − α) interval.
    public var upper: Double
    /// Two-sided p-value of "no difference".
    public var pValue: Double
    /// Welch–Satterthwaite degrees of freedom; `nil` where the normal distribution is used.
    public var degreesOfFreedom: Double?
}

/// The mixture sequential probability ratio test: intervals valid at every look.
public struct SequentialEstimate: Sendable, Hashable, Codable {
    /// The lower end of the always-valid (1 − α) interval of the difference.
    public var lower: Double
    /// The upper end of the always-valid (1 − α) interval of the difference.
    public var upper: Double
    /// The always-valid p-value min(1, 1/Λ) of this look.
    public var pValue: Double
    /// τ², the variance of the normal mixture over effects.
    public var mixingVariance: Double
    /// `pValue`, adjusted across all comparisons of the experiment by
    /// ``ExperimentAnalysis/sequentialCorrection``.
    public var adjustedPValue: Double
}

/// The Bayesian view under flat priors and the normal approximation.
public struct BayesianEstimate: Sendable, Hashable, Codable {
    /// P(the arm is better than the control | data), in the metric's good direction.
    public var chanceToBeatControl: Double
    /// E[max(0, control − arm)] in the good direction: what shipping the arm loses on average
    /// if it is in fact worse, in the metric's units.
    public var expectedLoss: Double
}

/// An arm against the control on one metric.
public struct Comparison: Sendable, Hashable, Codable {
    /// The arm compared.
    public var arm: String
    /// The control it is compared with.
    public var control: String
    /// Arm mean − control mean, by Welch's t.
    public var absolute: Estimate
    /// (Arm mean − control mean)/|control mean|, by Fieller's interval; `nil` when the control
    /// mean is not distinguishable from 0 (the interval of a ratio is then unbounded).
    public var relative: Estimate?
    /// The always-valid view of the absolute difference, for looks at any time.
    public var sequential: SequentialEstimate
    /// The Bayesian view of the absolute difference.
    public var bayesian: BayesianEstimate
    /// The absolute difference's p-value adjusted across all comparisons of the experiment by
    /// ``ExperimentAnalysis/correction``.
    public var adjustedPValue: Double
}

extension MetricAnalysis {
    private enum CodingKeys: String, CodingKey {
        case name, kind, higherIsBetter, guardrail, cuped, arms, comparisons, notEnoughData
    }

    /// Decodes an analysis exported before `notEnoughData` existed as one with every arm compared.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        kind = try container.decode(MetricData.Kind.self, forKey: .kind)
        higherIsBetter = try container.decode(Bool.self, forKey: .higherIsBetter)
        guardrail = try container.decode(Bool.self, forKey: .guardrail)
        cuped = try container.decodeIfPresent(CUPEDAdjustment.self, forKey: .cuped)
        arms = try container.decode([ArmSummary].self, forKey: .arms)
        comparisons = try container.decode([Comparison].self, forKey: .comparisons)
        notEnoughData = try container.decodeIfPresent([NotEnoughData].self, forKey: .notEnoughData) ?? []
    }
}
