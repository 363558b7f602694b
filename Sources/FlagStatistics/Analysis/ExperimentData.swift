/// What the statistics engine analyses: per-arm sufficient statistics of an experiment's metrics,
/// and the settings of the analysis. Its JSON form is what `flags stats analyze` and the server's
/// analysis endpoint take, and what an experiment's export carries.
public struct ExperimentData: Sendable, Hashable, Codable {
    /// The arm the others are compared with.
    public var control: String
    /// The planned share of units per arm (any positive weights; normalized), for the sample
    /// ratio check. Without it there is no check.
    public var allocation: [String: Double]?
    /// Units per arm for the sample ratio check; when absent, the first metric's units.
    public var units: [String: Double]?
    /// The significance level α of every interval and test; 0.05 when absent.
    public var alpha: Double?
    /// The p-value below which the sample ratio check reports a mismatch; 0.001 when absent.
    public var sampleRatioThreshold: Double?
    /// The mixing standard deviation τ of the sequential test, on each metric's own scale (the
    /// absolute difference of means). When absent, ``StatisticsEngine/defaultMixingWidth`` (0.1) of
    /// the metric's pooled standard deviation.
    public var sequentialMixingStandardDeviation: Double?
    /// The fewest units an arm needs before any of its comparisons is made;
    /// ``StatisticsEngine/defaultMinimumUnitsPerArm`` (100) when absent. Below it the arm is
    /// reported as not having enough data, never as a difference.
    public var minimumUnitsPerArm: Double?
    /// The smallest relative deviation of an arm's observed share from its planned one that the
    /// sample ratio check reports as a mismatch (0.01: 1 %); ``StatisticsEngine/defaultSampleRatioMinimumDeviation``
    /// when absent. 0 reports any significant deviation.
    public var sampleRatioMinimumDeviation: Double?
    /// How p-values are adjusted for the number of comparisons: Benjamini–Hochberg (`bh`) when
    /// absent, `holm`, or `dunnett` (fixed-horizon only: the sequential p-values then get Holm).
    public var correction: MultipleComparisonCorrection?
    /// The metrics analysed, each with its arms' sufficient statistics.
    public var metrics: [MetricData]

    /// Data of `metrics` compared with `control`; each setting left `nil` takes the default its member documents.
    public init(
        control: String, allocation: [String: Double]? = nil, units: [String: Double]? = nil, alpha: Double? = nil,
        sampleRatioThreshold: Double? = nil, sequentialMixingStandardDeviation: Double? = nil, minimumUnitsPerArm: Double? = nil,
        sampleRatioMinimumDeviation: Double? = nil, correction: MultipleComparisonCorrection? = nil, metrics: [MetricData]
    ) {
        self.control = control
        self.allocation = allocation
        self.units = units
        self.alpha = alpha
        self.sampleRatioThreshold = sampleRatioThreshold
        self.sequentialMixingStandardDeviation = sequentialMixingStandardDeviation
        self.minimumUnitsPerArm = minimumUnitsPerArm
        self.sampleRatioMinimumDeviation = sampleRatioMinimumDeviation
        self.correction = correction
        self.metrics = metrics
    }
}

/// One metric's sufficient statistics per arm.
public struct MetricData: Sendable, Hashable, Codable {
    /// How a metric's values are formed per unit, which decides how its variance is taken.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// The unit sent the event at least once in the window: values 0 or 1.
        case conversion
        /// The mean of a value per unit (revenue, duration).
        case mean
        /// The number of events per unit.
        case count
        /// Σ numerator / Σ denominator over the arm's units (errors per session, revenue per
        /// order), the unit the independent draw: each arm carries `denominatorSum`,
        /// `denominatorSumOfSquares` and `sumOfProducts` (Σ numerator·denominator) beside `sum`
        /// and `sumOfSquares` of the numerators; analysed by the delta method.
        case ratio
    }

    /// The metric's name, shown in the analysis.
    public var name: String
    /// How the metric's values are formed per unit.
    public var kind: Kind
    /// Whether a higher value is the better one (conversion, revenue); `false` for errors,
    /// crashes, latency. `true` when absent.
    public var higherIsBetter: Bool?
    /// A guardrail metric: one that must not get worse.
    public var guardrail: Bool?
    /// The arms' sufficient statistics, by arm name (the control's among them).
    public var arms: [String: ArmStatistics]

    /// A metric's data; `higherIsBetter` and `guardrail` default to `true` and `false` when `nil`.
    public init(name: String, kind: Kind, higherIsBetter: Bool? = nil, guardrail: Bool? = nil, arms: [String: ArmStatistics]) {
        self.name = name
        self.kind = kind
        self.higherIsBetter = higherIsBetter
        self.guardrail = guardrail
        self.arms = arms
    }
}

/// Input the analysis cannot use, with where it is.
public struct StatisticsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where: `metrics[2].arms.on.units`, `alpha`, ….
    public let path: String
    /// What is wrong there, in words.
    public let problem: String

    /// A problem at `path`.
    public init(_ path: String, _ problem: String) {
        self.path = path
        self.problem = problem
    }

    /// `path: problem`.
    public var description: String { "\(path): \(problem)" }
}
