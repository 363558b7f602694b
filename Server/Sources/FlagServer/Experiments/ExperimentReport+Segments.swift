public import FlagStatistics

/// Results by segment: each segment's units analysed by the same statistics engine as the pooled
/// report, with every segment's p-values adjusted together.
///
/// The rule (also in `Docs/Experiments.md`):
///
/// - A unit's segment is the app version (or platform) of the batch that carried its first
///   exposure in the experiment, for good: a unit that upgrades later stays in its first segment,
///   as it stays in its first arm.
/// - Each segment is analysed on its own (the same engine, α, minimum sample per arm and CUPED
///   as the pooled report); an arm below the minimum sample gets no verdict.
/// - Every always-valid p-value of every segment, metric and arm is adjusted in one family by the
///   experiment's correction: Benjamini–Hochberg (1995), or Holm (1979) when the experiment chose
///   Holm or Dunnett (Dunnett holds for the fixed-horizon test only). The fixed-horizon p-values
///   are adjusted the same way, for display.
/// - A segment's verdict uses its adjusted p-value at this look only (there is no daily history
///   per segment, so no running minimum): segments show where an effect differs; the pooled
///   report decides. A sample ratio mismatch of the pooled report blocks every segment's verdict.
public struct ExperimentSegmentReport: Sendable, Hashable, Codable {
    /// The attribute that split the units.
    public var dimension: ExperimentSegmentDimension
    /// The values that could get a segment of their own.
    public var limit: Int
    /// How many values were pooled in the "other" segment.
    public var otherValues: Int
    /// The correction every segment's p-values were adjusted by, together.
    public var correction: MultipleComparisonCorrection
    /// The p-values adjusted together (segments × metrics × arms that could be compared).
    public var comparisons: Int
    /// Units each arm and the control need in a segment before it is compared.
    public var minimumUnitsPerArm: Double
    /// The segments in the store's order: the largest values, then "unknown" and "other".
    public var segments: [Segment]

    /// One segment: its units per arm and each metric's arms.
    public struct Segment: Sendable, Hashable, Codable {
        /// The value ("5.1.0", "iOS"), or "unknown" or "other".
        public var key: String
        /// Whether the segment is one value, the units of unknown value, or the other values pooled.
        public var kind: ExperimentSegmentTotals.Kind
        /// Units per arm, in the report's arm order (the control first).
        public var units: [ArmCount]
        /// Each metric of the query, in its order. Every one is compared here by its mean, a percentile
        /// metric's too: segments carry no quantiles.
        public var metrics: [Metric]
        /// Why the engine could not analyse the segment at all, else `nil`.
        public var problem: String?
    }

    /// An arm's units in a segment.
    public struct ArmCount: Sendable, Hashable, Codable {
        /// The arm's variant key.
        public var arm: String
        /// The arm's units whose first exposure came from this segment.
        public var units: Int
    }

    /// One metric in a segment.
    public struct Metric: Sendable, Hashable, Codable {
        /// The metric's key, as in the pooled report.
        public var key: String
        /// The name the results page shows: the metric's settings' name, else its key.
        public var name: String
        /// The control first.
        public var arms: [Arm]
    }

    /// One arm of one metric in a segment.
    public struct Arm: Sendable, Hashable, Codable {
        /// The arm's variant key.
        public var arm: String
        /// The sufficient statistics the engine took.
        public var statistics: ArmStatistics
        /// The arm's mean (CUPED-adjusted when applied); `nil` without an analysis.
        public var mean: Double?
        /// The engine's comparison with the control, its `adjustedPValue` and
        /// `sequential.adjustedPValue` adjusted across every segment; `nil` for the control and
        /// below the minimum sample.
        public var comparison: Comparison?
        /// Why the arm is not compared (below the minimum sample, no variance), else `nil`.
        public var notEnoughData: String?
        /// `nil` for the control.
        public var decision: ExperimentReport.Decision?
    }

    /// The report of `totals` for `report`'s experiment (its arms, α, correction and sample
    /// ratio check) and `query`.
    public init(
        totals: ExperimentSegmentTotals, limit: Int, query: ExperimentResultsQuery, report: ExperimentReport,
        settings: ExperimentReport.Settings
    ) {
        dimension = totals.dimension
        self.limit = limit
        otherValues = totals.otherValues
        let correction: MultipleComparisonCorrection = (report.correction ?? .bh) == .bh ? .bh : .holm
        self.correction = correction
        minimumUnitsPerArm = StatisticsEngine.defaultMinimumUnitsPerArm
        let arms = report.arms
        let analyses = totals.segments.map { segment -> (ExperimentData, Result<ExperimentAnalysis, StatisticsError>) in
            let data = ExperimentReport.data(query: query, arms: arms, units: segment.units, metrics: segment.metrics, settings: settings)
            do throws(StatisticsError) {
                return (data, .success(try StatisticsEngine.analyze(data)))
            } catch {
                return (data, .failure(error))
            }
        }
        // One family: every comparison the engine made, in every segment.
        var sequential: [Double] = []
        var fixed: [Double] = []
        for (_, result) in analyses {
            guard case .success(let analysis) = result else { continue }
            for metric in analysis.metrics {
                for comparison in metric.comparisons {
                    sequential.append(comparison.sequential.pValue)
                    fixed.append(comparison.absolute.pValue)
                }
            }
        }
        let adjustedSequential = Self.adjust(sequential, by: correction)
        let adjustedFixed = Self.adjust(fixed, by: correction)
        comparisons = sequential.count
        let mismatch = report.sampleRatio?.mismatch ?? false
        var position = 0
        var segments: [Segment] = []
        for (segment, (data, result)) in zip(totals.segments, analyses) {
            let analysis = try? result.get()
            var problem: String?
            if case .failure(let error) = result { problem = ExperimentReport.explain(error) }
            let label = segment.kind == .value ? "\(totals.dimension.words) \(segment.key)" : "the \(segment.key) \(totals.dimension.words)s"
            var metrics: [Metric] = []
            for (index, (metric, input)) in zip(query.metrics, data.metrics).enumerated() {
                let result = analysis?.metrics[index]
                let name = settings.metrics[metric.key]?.name ?? metric.key
                var results: [Arm] = []
                for arm in arms {
                    var comparison = result?.comparisons.first { $0.arm == arm }
                    if comparison != nil {
                        comparison?.sequential.adjustedPValue = adjustedSequential[position]
                        comparison?.adjustedPValue = adjustedFixed[position]
                        position += 1
                    }
                    let notEnough = result?.notEnoughData.first { $0.arm == arm }?.reason
                    var decision: ExperimentReport.Decision?
                    if arm != settings.control {
                        decision = ExperimentReport.armDecision(
                            arm: arm, control: settings.control, metric: "\(name) in \(label)", comparison: comparison,
                            guardrail: input.guardrail ?? false, higherIsBetter: input.higherIsBetter ?? true, alpha: settings.alpha,
                            mismatch: mismatch,
                            problem: notEnough.map { "No verdict on \(name) in \(label) for \(arm): \($0)." } ?? problem,
                            comparisons: max(1, sequential.count), correction: correction)
                    }
                    results.append(
                        Arm(
                            arm: arm, statistics: input.arms[arm]!, mean: result?.arms.first { $0.arm == arm }?.mean,
                            comparison: comparison, notEnoughData: notEnough, decision: decision))
                }
                metrics.append(Metric(key: metric.key, name: name, arms: results))
            }
            segments.append(
                Segment(
                    key: segment.key, kind: segment.kind,
                    units: arms.map { ArmCount(arm: $0, units: segment.units[$0] ?? 0) }, metrics: metrics, problem: problem))
        }
        self.segments = segments
    }

    /// `pValues` adjusted by Benjamini–Hochberg or Holm, in order; a value that is not a
    /// probability is adjusted to 1.
    static func adjust(_ pValues: [Double], by correction: MultipleComparisonCorrection) -> [Double] {
        switch correction {
        case .bh, .dunnett: StatisticalTests.benjaminiHochberg(pValues)
        case .holm: MultipleComparisons.holm(pValues).map { $0.isNaN ? 1 : $0 }
        }
    }
}

extension ExperimentReport {
    /// The CSV columns of results by segment, in order.
    public static let segmentCSVColumns = [
        "dimension", "segment", "segment_kind", "metric", "metric_name", "arm", "control", "units", "sum", "sum_of_squares",
        "mean", "difference", "difference_lower", "difference_upper", "p_value", "adjusted_p_value", "sequential_lower",
        "sequential_upper", "sequential_p_value", "sequential_adjusted_p_value", "not_enough_data", "decision", "direction",
    ]

    /// One row per segment, metric and arm (the control first, its comparison fields empty);
    /// `nil` when the report has no segments. Numbers and names as in ``csv()``.
    public func segmentCSV() -> String? {
        guard let segments else { return nil }
        var lines = [Self.segmentCSVColumns.joined(separator: ",")]
        for segment in segments.segments {
            for metric in segment.metrics {
                for arm in metric.arms {
                    let s = arm.statistics
                    let c = arm.comparison
                    let fields: [String] = [
                        segments.dimension.rawValue, Self.text(segment.key), segment.kind.rawValue, Self.text(metric.key),
                        Self.text(metric.name), Self.text(arm.arm), String(arm.arm == control), Self.number(s.units), Self.number(s.sum),
                        Self.number(s.sumOfSquares), Self.number(arm.mean), Self.number(c?.absolute.estimate),
                        Self.number(c?.absolute.lower), Self.number(c?.absolute.upper), Self.number(c?.absolute.pValue),
                        Self.number(c?.adjustedPValue), Self.number(c?.sequential.lower), Self.number(c?.sequential.upper),
                        Self.number(c?.sequential.pValue), Self.number(c?.sequential.adjustedPValue), Self.text(arm.notEnoughData ?? ""),
                        arm.decision?.state.rawValue ?? "", arm.decision?.direction?.rawValue ?? "",
                    ]
                    lines.append(fields.joined(separator: ","))
                }
            }
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}
