public import FlagStatistics

/// What people see of an experiment: its totals analysed by the statistics engine now and at the
/// end of every day, the sample ratio check, reassigned units, and a decision per experiment, per
/// metric and per arm. Pure: built from an ``ExperimentResultsQuery``, the ``ExperimentTotals`` an
/// event store counted and the experiment's ``Settings``; no I/O, no clock.
///
/// The decision rule (the same words on the results page and in `Docs/ExperimentResults-Report.md`):
///
/// 1. **Sample ratio mismatch — no decision.** When the units per arm fail the sample ratio check
///    against the planned allocation (Pearson's χ², p below the threshold, 0.001 unless set), every
///    decision of the experiment, its metrics and arms is this one, whatever the metrics say.
/// 2. Otherwise an arm is **significant** on a metric when the always-valid (sequential) p-value
///    of its difference from the control, adjusted across every metric and arm of the experiment
///    by the experiment's correction (Benjamini–Hochberg unless it chose Holm), is at most α. Unadjusted, that p-value is at most α exactly
///    when the always-valid interval excludes 0; the adjustment asks more as the comparisons grow.
///    It is **better** when the difference is in the metric's good direction, else **worse**.
/// 3. An arm significantly worse on a guardrail metric is **guardrail harmed**.
/// 4. Everything else is **keep collecting**: also while an arm or the control has fewer units than
///    the engine's minimum sample (100 unless set; `FlagStatistics`' MinimumSample article), and,
///    for a percentile metric, until the experiment has ended (its interval is fixed-horizon).
///
/// A metric takes the most severe state of its arms (guardrail harmed, then significant, then keep
/// collecting); the experiment takes the most severe state of its metrics.
public struct ExperimentReport: Sendable, Hashable, Codable {
    /// The experiment's id.
    public var experiment: String
    /// The environment the experiment runs in.
    public var environment: String
    /// The key of the flag whose variants are the arms.
    public var flag: String
    /// The experiment's status in words ("Running since 20 Nov", "Stopped").
    public var status: String
    /// What the experiment hopes to show, as its authors wrote it.
    public var hypothesis: String
    /// The arm the others are compared with.
    public var control: String
    /// The control first, then the other arms in the query's order.
    public var arms: [String]
    /// The significance level the decisions use.
    public var alpha: Double
    /// Milliseconds since 1970.
    public var start: Int64
    /// When the experiment stopped (milliseconds since 1970); `nil` while it runs.
    public var end: Int64?
    /// Events received up to this time are counted (milliseconds since 1970).
    public var countedThrough: Int64
    /// Units per arm against the allocation, in ``arms`` order.
    public var units: [ArmUnits]
    /// The sample ratio check (also when the engine could not analyse the metrics yet).
    public var sampleRatio: SampleRatioCheck?
    /// What the engine took: `POST /admin/v1/statistics/analyze` or `flags stats analyze` on it
    /// give ``analysis``.
    public var data: ExperimentData
    /// The engine's answer on the current totals; `nil` with ``problem`` when it could not answer.
    public var analysis: ExperimentAnalysis?
    /// Why the engine could not analyse the totals; `nil` when it could.
    public var problem: String?
    /// One report per metric, in the query's order (a percentile metric's carries its ``MetricReport/percentile``).
    public var metrics: [MetricReport]
    /// The analysis at the end of each day, oldest first: the sequential bound over time.
    public var days: [DayReport]
    /// The experiment's decision: a sample ratio mismatch, else the most severe of its metrics'.
    public var decision: Decision
    /// The number of comparisons (metrics × arms besides the control) the correction adjusts across.
    public var comparisons: Int
    /// The correction the decision's p-values were adjusted by; `nil` in reports made before it
    /// could be chosen (Benjamini–Hochberg).
    public var correction: MultipleComparisonCorrection?
    /// Results by segment (app version or platform), when asked for (`ExperimentReport+Segments.swift`).
    public var segments: ExperimentSegmentReport?

    /// How an experiment is shown and judged: everything besides the totals.
    public struct Settings: Sendable, Hashable, Codable {
        /// The arm the others are compared with.
        public var control: String
        /// The planned weight of each arm (any positive numbers; normalized).
        public var allocation: [String: Double]
        /// The significance level the decisions use.
        public var alpha: Double
        /// The p-value below which the sample ratio check is a mismatch; 0.001 when `nil`.
        public var sampleRatioThreshold: Double?
        /// The experiment's status in words, shown as it is.
        public var status: String
        /// What the experiment hopes to show.
        public var hypothesis: String
        /// Per metric key; a metric without an entry shows its key, higher is better, no guardrail.
        public var metrics: [String: MetricSettings]
        /// The multiple-comparison correction the decision uses (its sequential p-values): `bh`
        /// or `holm`. Dunnett holds for the fixed-horizon test only; given, the decision is Holm's.
        public var correction: MultipleComparisonCorrection

        /// Settings; α 0.05, the sample ratio threshold 0.001, no metric settings and Benjamini–Hochberg
        /// unless given.
        public init(
            control: String, allocation: [String: Double], alpha: Double = 0.05, sampleRatioThreshold: Double? = nil,
            status: String, hypothesis: String, metrics: [String: MetricSettings] = [:], correction: MultipleComparisonCorrection = .bh
        ) {
            self.control = control
            self.allocation = allocation
            self.alpha = alpha
            self.sampleRatioThreshold = sampleRatioThreshold
            self.status = status
            self.hypothesis = hypothesis
            self.metrics = metrics
            self.correction = correction
        }
    }

    /// How one metric is shown and judged.
    public struct MetricSettings: Sendable, Hashable, Codable {
        /// The metric's name as people read it.
        public var name: String
        /// Whether a larger value is the good direction.
        public var higherIsBetter: Bool
        /// Whether the metric is a guardrail: an arm significantly worse on it is guardrail harmed.
        public var guardrail: Bool

        /// A metric's settings; higher is better and no guardrail by default.
        public init(name: String, higherIsBetter: Bool = true, guardrail: Bool = false) {
            self.name = name
            self.higherIsBetter = higherIsBetter
            self.guardrail = guardrail
        }
    }

    /// One arm's units against the allocation.
    public struct ArmUnits: Sendable, Hashable, Codable {
        /// The arm's variant.
        public var arm: String
        /// The units counted in the arm.
        public var units: Int
        /// Units first served this arm and later another one (counted here, never mixed in).
        public var reassigned: Int
        /// The arm's share of all units, 0…1 (0 when there are none).
        public var observedShare: Double
        /// The allocation's share, 0…1 (0 for an arm the allocation does not name).
        public var plannedShare: Double
    }

    /// One metric: its settings, each arm's inputs and comparison, and its decision.
    public struct MetricReport: Sendable, Hashable, Codable {
        /// The metric's key.
        public var key: String
        /// The metric's name as people read it.
        public var name: String
        /// The tracked event the metric counts.
        public var event: String
        /// Conversion, mean or count.
        public var kind: MetricData.Kind
        /// Whether a larger value is the good direction.
        public var higherIsBetter: Bool
        /// Whether the metric is a guardrail.
        public var guardrail: Bool
        /// The CUPED adjustment the engine applied, when the metric carries its covariate.
        public var cuped: CUPEDAdjustment?
        /// The control first.
        public var arms: [ArmResult]
        /// The metric's decision: the most severe of its arms' (from the percentile comparison for a
        /// percentile metric).
        public var decision: Decision
        /// How each unit's value was capped before the arm statistics; `nil` when not capped.
        public var cap: CapReport?
        /// A percentile metric's comparison (`ExperimentReport+Percentiles.swift`), which decides
        /// it; `nil` for a metric compared by its mean.
        public var percentile: PercentileReport?
    }

    /// A metric's cap as applied: the fixed value or the percentile asked for, the threshold used
    /// and how many units of each arm had a value above it.
    public struct CapReport: Sendable, Hashable, Codable {
        /// The fixed cap, when the metric has one.
        public var value: Double?
        /// The percentile asked for (0.5–1), when the cap is one.
        public var percentile: Double?
        /// The threshold the values were capped at (the percentile computed from every unit's
        /// value, arms pooled); `nil` for a percentile cap before any unit is counted.
        public var threshold: Double?
        /// Arm → units whose value was above the threshold (replaced by it).
        public var cappedUnits: [String: Int]

        /// A cap as the counter applied it: `value` for a fixed cap, `percentile` for a percentile cap.
        public init(value: Double?, percentile: Double?, threshold: Double?, cappedUnits: [String: Int]) {
            self.value = value
            self.percentile = percentile
            self.threshold = threshold
            self.cappedUnits = cappedUnits
        }
    }

    /// One arm of a metric: its statistics, mean, comparison with the control and decision.
    public struct ArmResult: Sendable, Hashable, Codable {
        /// The arm's variant.
        public var arm: String
        /// The sufficient statistics the engine took for this arm.
        public var statistics: ArmStatistics
        /// The arm's mean (CUPED-adjusted when applied); `nil` without an analysis.
        public var mean: Double?
        /// The arm against the control; `nil` for the control and without an analysis.
        public var comparison: Comparison?
        /// `nil` for the control.
        public var decision: Decision?
    }

    /// The analysis as it stood at the end of one day.
    public struct DayReport: Sendable, Hashable, Codable {
        /// The day's start (milliseconds since 1970, UTC).
        public var day: Int64
        /// Units counted per arm by that day's end.
        public var units: [String: Int]
        /// What the engine took that day.
        public var data: ExperimentData
        /// Per metric key and arm: the always-valid interval of the difference from the control.
        public var intervals: [Interval]
        /// Why the engine could not analyse the day (too few units), else `nil`.
        public var problem: String?
    }

    /// One arm's always-valid interval on one metric at the end of one day.
    public struct Interval: Sendable, Hashable, Codable {
        /// The metric's key.
        public var metric: String
        /// The arm's variant.
        public var arm: String
        /// The arm's mean minus the control's, in the metric's units.
        public var estimate: Double
        /// The always-valid interval's lower end.
        public var lower: Double
        /// The always-valid interval's upper end.
        public var upper: Double
        /// The control's mean that day, to show the interval relative to it.
        public var controlMean: Double
    }

    /// What a decision says (the rule is in the type's documentation).
    public enum DecisionState: String, Sendable, Hashable, Codable, CaseIterable {
        /// No verdict yet: the adjusted p-value is above α, the arm or the control is below the minimum
        /// sample (``StatisticsEngine/defaultMinimumUnitsPerArm`` units), or a percentile metric's
        /// experiment has not ended.
        case keepCollecting = "keep-collecting"
        /// The arm's adjusted p-value is at most α: the always-valid one, or a percentile metric's
        /// quantile-difference p-value once the experiment has ended.
        case significant
        /// Significantly worse on a guardrail metric.
        case guardrailHarmed = "guardrail-harmed"
        /// The units per arm fail the sample ratio check: no decision.
        case sampleRatioMismatch = "sample-ratio-mismatch"

        /// The state in words, as the page shows it.
        public var words: String {
            switch self {
            case .keepCollecting: "Keep collecting"
            case .significant: "Significant"
            case .guardrailHarmed: "Guardrail harmed"
            case .sampleRatioMismatch: "Sample ratio mismatch — no decision"
            }
        }

        /// Guardrail harmed over significant over keep collecting (a mismatch blocks all).
        var severity: Int {
            switch self {
            case .keepCollecting: 0
            case .significant: 1
            case .guardrailHarmed: 2
            case .sampleRatioMismatch: 3
            }
        }
    }

    /// Which way a significant difference goes, by the metric's good direction.
    public enum Direction: String, Sendable, Hashable, Codable {
        /// Better or worse than the control.
        case better, worse
    }

    /// A decision and the sentence that explains it.
    public struct Decision: Sendable, Hashable, Codable {
        /// What the decision says.
        public var state: DecisionState
        /// For a significant arm: better or worse than the control; for a metric or the
        /// experiment, set when every significant arm goes the same way.
        public var direction: Direction?
        /// The sentence that explains the decision, as the page shows it.
        public var text: String
    }

    /// The report of `query`'s `totals` under `settings`.
    public init(query: ExperimentResultsQuery, totals: ExperimentTotals, settings: Settings) {
        experiment = query.experiment
        environment = query.environment
        flag = query.flag
        status = settings.status
        hypothesis = settings.hypothesis
        control = settings.control
        let arms = [settings.control] + query.arms.filter { $0 != settings.control }
        self.arms = arms
        alpha = settings.alpha
        start = query.start
        end = query.end
        countedThrough = totals.countedThrough
        let comparisons = query.metrics.count * (arms.count - 1)
        self.comparisons = comparisons
        // The decision reads the sequential p-values: their correction is the chosen one, Holm for Dunnett.
        let correction: MultipleComparisonCorrection = settings.correction.appliesToSequentialTest ? settings.correction : .holm
        self.correction = correction

        let data = Self.data(query: query, arms: arms, units: totals.units, metrics: totals.metrics, settings: settings)
        self.data = data
        var analysis: ExperimentAnalysis?
        var problem: String?
        do throws(StatisticsError) {
            analysis = try StatisticsEngine.analyze(data)
        } catch {
            problem = Self.explain(error)
        }
        self.analysis = analysis
        self.problem = problem
        let sampleRatio = analysis?.sampleRatio ?? Self.sampleRatio(data, threshold: settings.sampleRatioThreshold ?? 0.001)
        self.sampleRatio = sampleRatio

        let total = arms.reduce(0) { $0 + (totals.units[$1] ?? 0) }
        let weights = settings.allocation.filter { arms.contains($0.key) && $0.value > 0 }
        let weightTotal = weights.values.reduce(0, +)
        let units = arms.map { arm in
            ArmUnits(
                arm: arm, units: totals.units[arm] ?? 0, reassigned: totals.reassignedUnits[arm] ?? 0,
                observedShare: total > 0 ? Double(totals.units[arm] ?? 0) / Double(total) : 0,
                plannedShare: weightTotal > 0 ? (weights[arm] ?? 0) / weightTotal : 0)
        }
        self.units = units

        // The lowest adjusted always-valid p-value of each metric and arm over the daily looks: the
        // sequential test may stop at its first crossing, so a verdict reached once never reverts.
        var lowest: [String: Double] = [:]
        days = totals.daily.map { day in
            let data = Self.data(query: query, arms: arms, units: day.units, metrics: day.metrics, settings: settings)
            do throws(StatisticsError) {
                let analysis = try StatisticsEngine.analyze(data)
                var intervals: [Interval] = []
                for (metric, result) in zip(query.metrics, analysis.metrics) {
                    let controlMean = result.arms.first { $0.arm == settings.control }?.mean ?? 0
                    for arm in arms.dropFirst() {
                        guard let comparison = result.comparisons.first(where: { $0.arm == arm }) else { continue }
                        let key = Self.lowestKey(metric.key, arm)
                        lowest[key] = min(lowest[key] ?? 1, comparison.sequential.adjustedPValue)
                        intervals.append(
                            Interval(
                                metric: metric.key, arm: arm, estimate: comparison.absolute.estimate,
                                lower: comparison.sequential.lower, upper: comparison.sequential.upper, controlMean: controlMean))
                    }
                }
                return DayReport(day: day.day, units: day.units, data: data, intervals: intervals, problem: nil)
            } catch {
                return DayReport(day: day.day, units: day.units, data: data, intervals: [], problem: Self.explain(error))
            }
        }

        let mismatch = sampleRatio?.mismatch ?? false
        let compared = zip(query.metrics, data.metrics).enumerated().map { index, pair in
            var report = Self.metricReport(
                pair.0, input: pair.1, result: analysis?.metrics[index], arms: arms, settings: settings, mismatch: mismatch,
                problem: problem, comparisons: comparisons, lowest: lowest, correction: correction)
            report.cap = Self.capReport(pair.0, capping: totals.capping[pair.0.key], arms: arms)
            return report
        }
        let metrics = Self.withPercentiles(
            compared, query: query, totals: totals, settings: settings, arms: arms, mismatch: mismatch, correction: correction)
        self.metrics = metrics
        decision = Self.experimentDecision(
            metrics: metrics, sampleRatio: sampleRatio, problem: problem, alpha: settings.alpha, comparisons: comparisons,
            units: units, correction: correction)
    }

    // MARK: - Inputs

    /// The engine's input from per-arm units and metric statistics: every arm of every metric,
    /// an arm the store has no statistics for counting its units with nothing summed.
    static func data(
        query: ExperimentResultsQuery, arms: [String], units: [String: Int], metrics: [String: [String: ArmStatistics]],
        settings: Settings
    ) -> ExperimentData {
        let allocated = Set(settings.allocation.keys)
        let counted = arms + allocated.subtracting(arms).sorted()
        return ExperimentData(
            control: settings.control, allocation: settings.allocation.isEmpty ? nil : settings.allocation,
            units: Dictionary(uniqueKeysWithValues: counted.map { ($0, Double(units[$0] ?? 0)) }), alpha: settings.alpha,
            sampleRatioThreshold: settings.sampleRatioThreshold, correction: settings.correction == .bh ? nil : settings.correction,
            metrics: query.metrics.map { metric in
                let presentation = settings.metrics[metric.key]
                let stored = metrics[metric.key] ?? [:]
                let covariate = stored.values.contains { $0.covariateSum != nil }
                var statistics: [String: ArmStatistics] = [:]
                for arm in arms {
                    var entry =
                        stored[arm]
                        ?? ArmStatistics(units: Double(units[arm] ?? 0), sum: 0, sumOfSquares: metric.kind == .conversion ? nil : 0)
                    if metric.kind == .ratio, entry.denominatorSum == nil {
                        entry.denominatorSum = 0
                        entry.denominatorSumOfSquares = 0
                        entry.sumOfProducts = 0
                    }
                    if covariate, entry.covariateSum == nil {
                        entry.covariateSum = 0
                        entry.covariateSumOfSquares = 0
                        entry.sumOfProducts = 0
                    }
                    statistics[arm] = entry
                }
                return MetricData(
                    name: metric.key, kind: metric.kind, higherIsBetter: presentation?.higherIsBetter ?? true,
                    guardrail: presentation?.guardrail ?? false, arms: statistics)
            })
    }

    /// The sample ratio check without the engine's analysis (an arm with fewer than two units
    /// is the most telling mismatch of all): the engine's own test on the same inputs.
    static func sampleRatio(_ data: ExperimentData, threshold: Double) -> SampleRatioCheck? {
        guard let allocation = data.allocation, let units = data.units else { return nil }
        let names = allocation.keys.sorted()
        guard names.count >= 2, names.allSatisfy({ (allocation[$0] ?? 0) > 0 }) else { return nil }
        let observed = names.map { units[$0] ?? 0 }
        guard observed.reduce(0, +) > 0 else { return nil }
        let test = StatisticalTests.sampleRatio(observed: observed, weights: names.map { allocation[$0]! })
        return SampleRatioCheck(
            observed: Dictionary(uniqueKeysWithValues: zip(names, observed)),
            expected: Dictionary(uniqueKeysWithValues: zip(names, test.expected)), chiSquared: test.chiSquared,
            degreesOfFreedom: test.degreesOfFreedom, pValue: test.pValue, threshold: threshold, mismatch: test.pValue < threshold)
    }

    /// What the results show of `metric`'s cap.
    static func capReport(_ metric: ExperimentResultsQuery.Metric, capping: ExperimentTotals.Capping?, arms: [String]) -> CapReport? {
        let counts = Dictionary(uniqueKeysWithValues: arms.map { ($0, capping?.cappedUnits[$0] ?? 0) })
        switch metric.cap {
        case nil: return nil
        case .value(let value)?: return CapReport(value: value, percentile: nil, threshold: capping?.threshold ?? value, cappedUnits: counts)
        case .percentile(let percentile)?:
            return CapReport(value: nil, percentile: percentile, threshold: capping?.threshold, cappedUnits: counts)
        }
    }

    static func explain(_ error: StatisticsError) -> String {
        if error.path.hasSuffix(".units") {
            return "No analysis yet: \(error.path) — \(error.problem)."
        }
        return "The statistics engine cannot analyse these totals: \(error.description)."
    }

    // MARK: - Decisions

    static func lowestKey(_ metric: String, _ arm: String) -> String { metric + "\u{1}" + arm }

    static func metricReport(
        _ metric: ExperimentResultsQuery.Metric, input: MetricData, result: MetricAnalysis?, arms: [String], settings: Settings,
        mismatch: Bool, problem: String?, comparisons: Int, lowest: [String: Double] = [:],
        correction: MultipleComparisonCorrection = .bh
    ) -> MetricReport {
        let name = settings.metrics[metric.key]?.name ?? metric.key
        let higherIsBetter = input.higherIsBetter ?? true
        let guardrail = input.guardrail ?? false
        let results = arms.map { arm -> ArmResult in
            let comparison = result?.comparisons.first { $0.arm == arm }
            var decision: Decision?
            if arm != settings.control {
                decision = armDecision(
                    arm: arm, control: settings.control, metric: name, comparison: comparison, guardrail: guardrail,
                    higherIsBetter: higherIsBetter, alpha: settings.alpha, mismatch: mismatch, problem: problem,
                    comparisons: comparisons, lowestEarlier: lowest[lowestKey(metric.key, arm)], correction: correction)
            }
            return ArmResult(
                arm: arm, statistics: input.arms[arm]!, mean: result?.arms.first { $0.arm == arm }?.mean, comparison: comparison,
                decision: decision)
        }
        let decisions = results.compactMap(\.decision)
        let state = decisions.map(\.state).max { $0.severity < $1.severity } ?? .keepCollecting
        let chosen = decisions.filter { $0.state == state }
        let directions = Set(chosen.compactMap(\.direction))
        let text: String
        switch state {
        case .sampleRatioMismatch, .keepCollecting: text = chosen.first?.text ?? problem ?? ""
        case .significant, .guardrailHarmed: text = chosen.map(\.text).joined(separator: " ")
        }
        return MetricReport(
            key: metric.key, name: name, event: metric.event, kind: metric.kind, higherIsBetter: higherIsBetter,
            guardrail: guardrail, cuped: result?.cuped, arms: results,
            decision: Decision(state: state, direction: directions.count == 1 ? directions.first : nil, text: text))
    }

    static func armDecision(
        arm: String, control: String, metric: String, comparison: Comparison?, guardrail: Bool, higherIsBetter: Bool, alpha: Double,
        mismatch: Bool, problem: String?, comparisons: Int, lowestEarlier: Double? = nil,
        correction: MultipleComparisonCorrection = .bh
    ) -> Decision {
        if mismatch {
            return Decision(
                state: .sampleRatioMismatch, direction: nil,
                text: "No decision on \(metric): the units per arm are not the planned split.")
        }
        guard let comparison else {
            return Decision(state: .keepCollecting, direction: nil, text: problem ?? "No analysis of \(arm) yet.")
        }
        // The running minimum over the daily looks and this one (an always-valid p-value may be
        // read at any look; reporting its minimum keeps a verdict from reverting).
        let adjusted = min(comparison.sequential.adjustedPValue, lowestEarlier ?? 1)
        let p = ReportFormat.pValue(adjusted)
        let across = comparisons == 1 ? "" : " across \(comparisons) comparisons"
        guard adjusted <= alpha else {
            let excludesZero = comparison.sequential.lower > 0 || comparison.sequential.upper < 0
            let why =
                excludesZero
                ? "its always-valid interval excludes 0, but not after \(correction.name)\(across) (adjusted p = \(p) > \(ReportFormat.number(alpha)))"
                : "its always-valid interval includes 0 (adjusted p = \(p) > \(ReportFormat.number(alpha)))"
            return Decision(state: .keepCollecting, direction: nil, text: "Keep collecting on \(metric) for \(arm): \(why).")
        }
        let good = higherIsBetter ? comparison.absolute.estimate > 0 : comparison.absolute.estimate < 0
        let direction: Direction = good ? .better : .worse
        let evidence = "always-valid p = \(p) ≤ \(ReportFormat.number(alpha)) after \(correction.name)\(across)"
        if guardrail, direction == .worse {
            return Decision(
                state: .guardrailHarmed, direction: .worse,
                text: "Guardrail harmed: \(metric) is worse in \(arm) than in \(control) (\(evidence)).")
        }
        return Decision(
            state: .significant, direction: direction,
            text: "\(arm) is \(direction.rawValue) than \(control) on \(metric) (\(evidence)).")
    }

    static func experimentDecision(
        metrics: [MetricReport], sampleRatio: SampleRatioCheck?, problem: String?, alpha: Double, comparisons: Int, units: [ArmUnits],
        correction: MultipleComparisonCorrection = .bh
    ) -> Decision {
        if let sampleRatio, sampleRatio.mismatch {
            let split = units.map { "\($0.arm) \(ReportFormat.integer($0.units)) (planned \(ReportFormat.percent($0.plannedShare)))" }
                .joined(separator: ", ")
            return Decision(
                state: .sampleRatioMismatch, direction: nil,
                text: "Sample ratio mismatch — no decision: the units per arm (\(split)) are not the planned split "
                    + "(χ² = \(ReportFormat.number(sampleRatio.chiSquared)), p = \(ReportFormat.pValue(sampleRatio.pValue)) "
                    + "< \(ReportFormat.number(sampleRatio.threshold))). Find the cause (assignment, exposures lost in one arm, "
                    + "bots) before reading any metric.")
        }
        let state = metrics.map(\.decision.state).max { $0.severity < $1.severity } ?? .keepCollecting
        let chosen = metrics.filter { $0.decision.state == state }
        switch state {
        case .guardrailHarmed, .significant:
            let findings = chosen.flatMap { $0.arms.compactMap(\.decision).filter { $0.state == state } }
            let directions = Set(findings.compactMap(\.direction))
            return Decision(
                state: state, direction: directions.count == 1 ? directions.first : nil,
                text: findings.map(\.text).joined(separator: " "))
        case .keepCollecting, .sampleRatioMismatch:
            if let problem {
                return Decision(state: .keepCollecting, direction: nil, text: "Keep collecting. \(problem)")
            }
            let across = comparisons == 1 ? "" : " with \(correction.name) across \(comparisons) comparisons"
            return Decision(
                state: .keepCollecting, direction: nil,
                text: "Keep collecting: no difference is significant yet on its always-valid interval at α = \(ReportFormat.number(alpha))\(across).")
        }
    }
}
