import FlagStatistics

/// What makes a ratio metric (``ExperimentMetric/kind`` `ratio`): per unit, the metric's
/// ``ExperimentMetric/event`` summed as ``numerator`` over ``denominator`` of ``denominatorEvent``,
/// both within the metric's window after the unit's first exposure; per arm, Σ numerators / Σ
/// denominators (errors per session, revenue per order). The unit stays the independent draw:
/// the variance is the delta method's (`Server/Docs/Experiments.md`, "Ratio metrics").
public struct MetricRatio: Sendable, Hashable, Codable {
    /// How one side of the ratio is taken from its event per unit.
    public enum Aggregate: String, Sendable, Hashable, Codable, CaseIterable {
        /// The sum of the events' values (a missing value counts 0).
        case sum
        /// The number of events.
        case count
    }

    /// How the metric's ``ExperimentMetric/event`` makes the numerator.
    public var numerator: Aggregate
    /// The tracked event whose ``denominator`` divides it; 1–200 characters (it may be the metric's own event).
    public var denominatorEvent: String
    /// How ``denominatorEvent`` makes the denominator.
    public var denominator: Aggregate

    /// A ratio of the metric's event taken as `numerator` over `denominatorEvent` taken as `denominator`.
    public init(numerator: Aggregate, denominatorEvent: String, denominator: Aggregate) {
        self.numerator = numerator
        self.denominatorEvent = denominatorEvent
        self.denominator = denominator
    }
}

extension ExperimentMetric {
    /// What is wrong with a ratio metric's parts, or with a ``ratio`` on a metric of another
    /// kind, naming `ratio`, `ratio.denominatorEvent`, `cuped`, `cap` or `percentile`.
    ///
    /// A ratio metric is analysed by the delta method over each arm's sums of numerators,
    /// denominators, their squares and products; it has no CUPED covariate, cap or percentile
    /// there (the engine has no such form of the ratio).
    var ratioProblems: [ValidationError] {
        guard kind == .ratio else {
            guard ratio != nil else { return [] }
            return [ValidationError(key: key, field: "ratio", problem: "only a ratio metric has a ratio; set kind to ratio or remove ratio")]
        }
        guard let ratio else {
            return [ValidationError(
                key: key, field: "ratio",
                problem: "a ratio metric needs {\"numerator\": \"sum\" or \"count\", \"denominatorEvent\": …, \"denominator\": \"sum\" or \"count\"}")]
        }
        var problems: [ValidationError] = []
        if ratio.denominatorEvent.isEmpty || ratio.denominatorEvent.count > Self.maximumNameLength {
            problems.append(ValidationError(key: key, field: "ratio.denominatorEvent", problem: "1–\(Self.maximumNameLength) characters"))
        }
        for (field, set) in [("cuped", cuped), ("cap", cap != nil), ("percentile", percentile != nil)] where set {
            problems.append(ValidationError(
                key: key, field: field, problem: "a ratio metric is analysed without CUPED, a cap or a percentile; remove \(field)"))
        }
        return problems
    }
}
