public import FlagStatistics
public import Foundation

/// A reusable metric of experiments: which tracked event makes it, how it is summed per unit, how
/// long after a unit's exposure it counts, which way is good, and whether it guards against harm
/// (`Server/Docs/Experiments.md`). Experiments name metrics by ``key``.
public struct ExperimentMetric: Sendable, Hashable, Codable {
    /// Letters, digits, `.`, `_` and `-`, at most 128 characters (as flag keys).
    public var key: String
    /// The name shown on the results page; 1–200 characters.
    public var name: String
    /// The tracked event's name; 1–200 characters.
    public var event: String
    /// Conversion, mean or count (the statistics engine's kinds).
    public var kind: MetricData.Kind
    /// Only events within this many hours after a unit's first exposure count; 1–8760.
    public var windowHours: Int
    public var higherIsBetter: Bool
    /// A guardrail: an arm significantly worse on it is "guardrail harmed".
    public var guardrail: Bool
    /// Whether results use CUPED with the same metric over the window before exposure.
    public var cuped: Bool
    /// Raised by one on every update (compare-and-set in the store).
    public var version: Int
    public var updatedAt: Date
    public var updatedBy: String

    public init(
        key: String, name: String, event: String, kind: MetricData.Kind, windowHours: Int = 24 * 7, higherIsBetter: Bool = true,
        guardrail: Bool = false, cuped: Bool = false, version: Int = 1, updatedAt: Date = Date(timeIntervalSince1970: 0),
        updatedBy: String = ""
    ) {
        self.key = key
        self.name = name
        self.event = event
        self.kind = kind
        self.windowHours = windowHours
        self.higherIsBetter = higherIsBetter
        self.guardrail = guardrail
        self.cuped = cuped
        self.version = version
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
    }

    /// The longest window: a year.
    public static let maximumWindowHours = 24 * 365
    /// The longest name or event name.
    public static let maximumNameLength = 200

    /// What is wrong with the metric, each naming its field; empty when it is valid.
    public var problems: [ValidationError] {
        var problems: [ValidationError] = []
        if !Experiment.isKey(key) {
            problems.append(ValidationError(key: key, field: "key", problem: "letters, digits, \".\", \"_\" and \"-\", 1–128 characters"))
        }
        for (field, text) in [("name", name), ("event", event)] where text.isEmpty || text.count > Self.maximumNameLength {
            problems.append(ValidationError(key: key, field: field, problem: "1–\(Self.maximumNameLength) characters"))
        }
        if kind == .ratio {
            problems.append(ValidationError(
                key: key, field: "kind",
                problem: "a stored metric is conversion, mean or count; ratio metrics are analysed from their sums with POST /admin/v1/statistics/analyze"))
        }
        if !(1...Self.maximumWindowHours).contains(windowHours) {
            problems.append(ValidationError(key: key, field: "windowHours", problem: "must be 1–\(Self.maximumWindowHours), got \(windowHours)"))
        }
        return problems
    }

    /// The metric as an event store counts it.
    public var queryMetric: ExperimentResultsQuery.Metric {
        ExperimentResultsQuery.Metric(key: key, event: event, kind: kind, window: Int64(windowHours) * 3_600_000, covariate: cuped)
    }

    /// How the results page names and judges it.
    public var reportSettings: ExperimentReport.MetricSettings {
        ExperimentReport.MetricSettings(name: name, higherIsBetter: higherIsBetter, guardrail: guardrail)
    }
}
