import FlagStatistics

extension ExperimentReport {
    /// A percentile metric's comparison: each arm's p-quantile of its units' values and, for each
    /// arm besides the control, the difference from the control's with its interval and p-value
    /// (``FlagStatistics/QuantileDifference``), adjusted with the experiment's other comparisons.
    public struct PercentileReport: Sendable, Hashable, Codable {
        /// p, in (0, 1): 0.9 for the 90th percentile.
        public var percentile: Double
        /// The most values read per arm (``PercentileSample/maximumValues``); an arm with more
        /// units is compared on a uniform sample of this many.
        public var maximumValuesPerArm: Int
        /// The control first.
        public var arms: [PercentileArm]
        /// What the reader must know before reading the figures (a sampled arm, a verdict held
        /// until the experiment ends); `nil` when nothing.
        public var note: String?

        /// - Parameters:
        ///   - percentile: p.
        ///   - maximumValuesPerArm: The most values read per arm.
        ///   - arms: Each arm's figures, the control first.
        ///   - note: What the reader must know before reading the figures.
        public init(percentile: Double, maximumValuesPerArm: Int, arms: [PercentileArm], note: String?) {
            self.percentile = percentile
            self.maximumValuesPerArm = maximumValuesPerArm
            self.arms = arms
            self.note = note
        }
    }

    /// One arm of a percentile metric: its inputs (units, values read), its quantile and, against
    /// the control, the difference with its interval and p-values.
    public struct PercentileArm: Sendable, Hashable, Codable {
        /// The arm's variant key.
        public var arm: String
        /// The arm's units.
        public var units: Int
        /// The values the quantile was taken from: `units`, or the sample's size when the arm has
        /// more units than are read.
        public var values: Int
        /// The sample p-quantile of the values (numpy's default, linear); `nil` without values.
        public var quantile: Double?
        /// The quantile's distribution-free standard error; `nil` when it cannot be computed.
        public var standardError: Double?
        /// This arm's quantile minus the control's; `nil` for the control and without a comparison.
        public var difference: Double?
        /// The difference's interval at the experiment's α (fixed-horizon).
        public var lower: Double?
        /// The interval's upper end.
        public var upper: Double?
        /// The difference's two-sided p-value.
        public var pValue: Double?
        /// `pValue` adjusted by the experiment's correction across every comparison of every metric.
        public var adjustedPValue: Double?
        /// Why this arm is not compared (too few units, ties at the quantile); `nil` when it is.
        public var problem: String?

        /// - Parameters:
        ///   - arm: The arm's variant key.
        ///   - units: The arm's units.
        ///   - values: The values read.
        public init(arm: String, units: Int, values: Int) {
            self.arm = arm
            self.units = units
            self.values = values
        }
    }

    /// `metrics` with each percentile metric's comparison and decisions from `totals.percentiles`;
    /// the others unchanged.
    ///
    /// The p-values adjusted are one per metric and arm besides the control, as the engine's: the
    /// percentile comparison's (fixed-horizon) p-value for a percentile metric, the always-valid
    /// p-value for every other. A percentile comparison decides only once the experiment has
    /// ended: its interval holds for one look, not for a look every day.
    static func withPercentiles(
        _ metrics: [MetricReport], query: ExperimentResultsQuery, totals: ExperimentTotals, settings: Settings, arms: [String],
        mismatch: Bool, correction: MultipleComparisonCorrection
    ) -> [MetricReport] {
        guard query.metrics.contains(where: { $0.percentile != nil }) else { return metrics }
        var metrics = metrics
        var reports: [Int: PercentileReport] = [:]
        var family: [Double] = []
        var positions: [Int: [Int]] = [:]
        for (index, (metric, report)) in zip(query.metrics, metrics).enumerated() {
            if let percentile = metric.percentile {
                let built = percentileReport(
                    percentile: percentile, samples: totals.percentiles[metric.key] ?? [:], arms: arms, alpha: settings.alpha,
                    ended: query.end != nil)
                reports[index] = built
                for arm in built.arms.dropFirst() {
                    positions[index, default: []].append(family.count)
                    family.append(arm.pValue ?? .nan)
                }
            } else {
                for arm in report.arms.dropFirst() { family.append(arm.comparison?.sequential.pValue ?? .nan) }
            }
        }
        let adjusted: [Double] =
            correction == .holm
            ? MultipleComparisons.holm(family).map { $0.isNaN ? 1 : $0 } : StatisticalTests.benjaminiHochberg(family)
        for (index, var report) in reports {
            for (offset, position) in (positions[index] ?? []).enumerated() where report.arms[offset + 1].pValue != nil {
                report.arms[offset + 1].adjustedPValue = adjusted[position]
            }
            metrics[index] = decided(
                metrics[index], percentile: report, settings: settings, mismatch: mismatch, ended: query.end != nil,
                comparisons: family.count, correction: correction)
        }
        return metrics
    }

    /// The figures of one percentile metric from each arm's values.
    static func percentileReport(
        percentile: Double, samples: [String: PercentileSample], arms: [String], alpha: Double, ended: Bool
    ) -> PercentileReport {
        let minimum = Int(StatisticsEngine.defaultMinimumUnitsPerArm)
        let control = samples[arms[0]] ?? PercentileSample(units: 0, values: [])
        var rows: [PercentileArm] = []
        for arm in arms {
            let sample = samples[arm] ?? PercentileSample(units: 0, values: [])
            var row = PercentileArm(arm: arm, units: sample.units, values: sample.values.count)
            row.quantile = linearQuantile(sample.values, percentile)
            row.standardError = try? QuantileEstimate(values: sample.values, probability: percentile).standardError
            if arm != arms[0] {
                if min(sample.units, control.units) < minimum {
                    row.problem = "not enough data: each arm needs \(minimum) units (\(arm) has \(sample.units), \(arms[0]) \(control.units))"
                } else {
                    do throws(StatisticsError) {
                        let difference = try QuantileDifference(
                            treatment: sample.values, control: control.values, probability: percentile, alpha: alpha)
                        row.difference = difference.estimate
                        row.lower = difference.lower
                        row.upper = difference.upper
                        row.pValue = difference.pValue
                    } catch {
                        row.problem = "no interval: \(error.description)"
                    }
                }
            }
            rows.append(row)
        }
        var notes: [String] = []
        let sampled = arms.filter { (samples[$0]?.isSampled) ?? false }
        if !sampled.isEmpty {
            notes.append(
                "\(sampled.joined(separator: ", ")) \(sampled.count == 1 ? "has" : "have") more than "
                    + "\(ReportFormat.integer(PercentileSample.maximumValues)) units: the quantile is of a uniform sample of that many "
                    + "(the interval is the sample's, wider than all units would give).")
        }
        if !ended {
            notes.append("A percentile's interval holds for one look: it decides when the experiment ends.")
        }
        return PercentileReport(
            percentile: percentile, maximumValuesPerArm: PercentileSample.maximumValues, arms: rows,
            note: notes.isEmpty ? nil : notes.joined(separator: " "))
    }

    /// The sample p-quantile by linear interpolation (numpy's default); `nil` without values.
    static func linearQuantile(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let position = Double(sorted.count - 1) * p
        let low = Int(position.rounded(.down))
        let high = min(low + 1, sorted.count - 1)
        return sorted[low] + (position - Double(low)) * (sorted[high] - sorted[low])
    }

    /// `metric` with its percentile comparison and the decisions it gives.
    static func decided(
        _ metric: MetricReport, percentile: PercentileReport, settings: Settings, mismatch: Bool, ended: Bool, comparisons: Int,
        correction: MultipleComparisonCorrection
    ) -> MetricReport {
        var metric = metric
        metric.percentile = percentile
        let label = "p\(ReportFormat.number(percentile.percentile * 100)) of \(metric.name)"
        let across = comparisons == 1 ? "" : " across \(comparisons) comparisons"
        let alpha = ReportFormat.number(settings.alpha)
        for (offset, row) in percentile.arms.enumerated() where offset > 0 {
            let decision: Decision
            if mismatch {
                decision = Decision(
                    state: .sampleRatioMismatch, direction: nil, text: "No decision on \(label): the units per arm are not the planned split.")
            } else if let problem = row.problem {
                decision = Decision(state: .keepCollecting, direction: nil, text: "Keep collecting on \(label) for \(row.arm): \(problem).")
            } else if let difference = row.difference, let adjusted = row.adjustedPValue {
                let p = ReportFormat.pValue(adjusted)
                if !ended {
                    decision = Decision(
                        state: .keepCollecting, direction: nil,
                        text: "Keep collecting on \(label) for \(row.arm): a percentile decides when the experiment ends (adjusted p = \(p) now).")
                } else if adjusted > settings.alpha {
                    decision = Decision(
                        state: .keepCollecting, direction: nil,
                        text: "No difference on \(label) for \(row.arm): adjusted p = \(p) > \(alpha) after \(correction.name)\(across).")
                } else {
                    let good = metric.higherIsBetter ? difference > 0 : difference < 0
                    let direction: Direction = good ? .better : .worse
                    let evidence = "p = \(p) ≤ \(alpha) after \(correction.name)\(across)"
                    decision =
                        metric.guardrail && direction == .worse
                        ? Decision(
                            state: .guardrailHarmed, direction: .worse,
                            text: "Guardrail harmed: \(label) is worse in \(row.arm) than in \(settings.control) (\(evidence)).")
                        : Decision(
                            state: .significant, direction: direction,
                            text: "\(row.arm) is \(direction.rawValue) than \(settings.control) on \(label) (\(evidence)).")
                }
            } else {
                decision = Decision(state: .keepCollecting, direction: nil, text: "No analysis of \(label) for \(row.arm) yet.")
            }
            if let index = metric.arms.firstIndex(where: { $0.arm == row.arm }) { metric.arms[index].decision = decision }
        }
        let decisions = metric.arms.compactMap(\.decision)
        let state = decisions.map(\.state).max { $0.severity < $1.severity } ?? .keepCollecting
        let chosen = decisions.filter { $0.state == state }
        let directions = Set(chosen.compactMap(\.direction))
        let text =
            state == .significant || state == .guardrailHarmed
            ? chosen.map(\.text).joined(separator: " ") : chosen.first?.text ?? ""
        metric.decision = Decision(state: state, direction: directions.count == 1 ? directions.first : nil, text: text)
        return metric
    }
}
