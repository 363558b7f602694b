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
    /// Conversion, mean, count or ratio (the statistics engine's kinds); a ratio metric's parts
    /// are in ``ratio``.
    public var kind: MetricData.Kind
    /// Only events within this many hours after a unit's first exposure count; 1–8760.
    public var windowHours: Int
    /// Whether a larger value is the good direction.
    public var higherIsBetter: Bool
    /// A guardrail: an arm significantly worse on it is "guardrail harmed".
    public var guardrail: Bool
    /// Whether results use CUPED with the same metric over the window before exposure.
    public var cuped: Bool
    /// Each unit's value capped from above before the arm statistics (mean and count metrics
    /// only); `nil`: not capped.
    public var cap: MetricCap?
    /// A percentile metric: p in (0, 1), the arms compared by the p-quantile of their units'
    /// values (mean and count metrics, without CUPED or a cap); `nil`: compared by the mean.
    public var percentile: Double?
    /// A ratio metric's numerator and denominator (``kind`` `ratio` only); `nil` for other kinds.
    public var ratio: MetricRatio?
    /// Archived: kept, with the results of every experiment that used it, but offered to no new
    /// experiment or guardrail (naming it is refused) and listed apart. `false` when a stored
    /// document has no such field (metrics written before it existed).
    public var archived: Bool
    /// Raised by one on every update (compare-and-set in the store).
    public var version: Int
    /// When the metric was created or last changed.
    public var updatedAt: Date
    /// Who created or last changed it (a token's or console user's name).
    public var updatedBy: String

    /// A metric at version 1 (by default a 7-day window, higher is better, no guardrail, CUPED, cap or
    /// percentile, not archived); not validated here (see ``problems``).
    public init(
        key: String, name: String, event: String, kind: MetricData.Kind, windowHours: Int = 24 * 7, higherIsBetter: Bool = true,
        guardrail: Bool = false, cuped: Bool = false, cap: MetricCap? = nil, percentile: Double? = nil, ratio: MetricRatio? = nil,
        archived: Bool = false,
        version: Int = 1, updatedAt: Date = Date(timeIntervalSince1970: 0), updatedBy: String = ""
    ) {
        self.key = key
        self.name = name
        self.event = event
        self.kind = kind
        self.windowHours = windowHours
        self.higherIsBetter = higherIsBetter
        self.guardrail = guardrail
        self.cuped = cuped
        self.cap = cap
        self.percentile = percentile
        self.ratio = ratio
        self.archived = archived
        self.version = version
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
    }

    /// Decodes a metric; a document without `archived` is a metric that is not archived.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try container.decode(String.self, forKey: .key)
        name = try container.decode(String.self, forKey: .name)
        event = try container.decode(String.self, forKey: .event)
        kind = try container.decode(MetricData.Kind.self, forKey: .kind)
        windowHours = try container.decode(Int.self, forKey: .windowHours)
        higherIsBetter = try container.decode(Bool.self, forKey: .higherIsBetter)
        guardrail = try container.decode(Bool.self, forKey: .guardrail)
        cuped = try container.decode(Bool.self, forKey: .cuped)
        cap = try container.decodeIfPresent(MetricCap.self, forKey: .cap)
        percentile = try container.decodeIfPresent(Double.self, forKey: .percentile)
        ratio = try container.decodeIfPresent(MetricRatio.self, forKey: .ratio)
        archived = try container.decodeIfPresent(Bool.self, forKey: .archived) ?? false
        version = try container.decode(Int.self, forKey: .version)
        updatedAt = try container.decode(Date.self, forKey: .updatedAt)
        updatedBy = try container.decode(String.self, forKey: .updatedBy)
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
        if !(1...Self.maximumWindowHours).contains(windowHours) {
            problems.append(ValidationError(key: key, field: "windowHours", problem: "must be 1–\(Self.maximumWindowHours), got \(windowHours)"))
        }
        if let cap, kind != .ratio { problems += cap.problems(key: key, kind: kind) }
        problems += percentileProblems
        problems += ratioProblems
        return problems
    }
}

/// A metric's cap: each unit's value replaced by `min(value, threshold)` before the arm statistics
/// are taken (its CUPED covariate too, at the same threshold). Exactly one of ``value`` (a fixed
/// threshold) and ``percentile`` (winsorization: the threshold is that percentile of every unit's
/// value, all arms pooled, computed from the data at each count).
public struct MetricCap: Sendable, Hashable, Codable {
    /// A fixed threshold, above 0.
    public var value: Double?
    /// p in (0.5, 1): the threshold is the pooled p-quantile (numpy's default linear definition).
    public var percentile: Double?

    /// A cap; give exactly one of `value` and `percentile`.
    public init(value: Double? = nil, percentile: Double? = nil) {
        self.value = value
        self.percentile = percentile
    }

    /// What is wrong with the cap of metric `key` of kind `kind`, naming `cap.value`,
    /// `cap.percentile` or `cap`.
    func problems(key: String, kind: MetricData.Kind) -> [ValidationError] {
        var problems: [ValidationError] = []
        if kind == .conversion {
            problems.append(ValidationError(
                key: key, field: "cap", problem: "a conversion metric's values are 0 or 1 and are not capped; cap a mean or count metric"))
        }
        switch (value, percentile) {
        case (let value?, nil):
            if !(value > 0 && value.isFinite) {
                problems.append(ValidationError(key: key, field: "cap.value", problem: "must be a finite number above 0, got \(value)"))
            }
        case (nil, let percentile?):
            if !(percentile > 0.5 && percentile < 1) {
                problems.append(ValidationError(
                    key: key, field: "cap.percentile", problem: "must be between 0.5 and 1 (exclusive), e.g. 0.99; got \(percentile)"))
            }
        case (nil, nil):
            problems.append(ValidationError(key: key, field: "cap", problem: "give one of value (a fixed cap) and percentile (0.5–1)"))
        case (.some, .some):
            problems.append(ValidationError(key: key, field: "cap", problem: "give one of value and percentile, not both"))
        }
        return problems
    }
}
