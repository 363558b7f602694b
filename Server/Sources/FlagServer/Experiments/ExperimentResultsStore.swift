public import FlagServerModel
public import FlagStatistics

/// What an event store needs to know of an experiment to compute its results: which exposures put
/// a unit in an arm, and which tracked events make each metric.
///
/// A unit (an exposure's targeting key) counts from its first exposure to ``flag`` at or after
/// ``start`` (and before ``end``, when set) whose variant is one of ``arms``, in that arm for good;
/// a later exposure to another arm is counted as a reassignment, never mixed in.
public struct ExperimentResultsQuery: Sendable, Hashable {
    /// The experiment's id: the key under which the store keeps its incremental state.
    public var experiment: String
    /// The environment the experiment runs in.
    public var environment: String
    /// The key of the flag whose variants are the arms.
    public var flag: String
    /// The variant keys that are arms, the control included.
    public var arms: [String]
    /// Milliseconds since 1970.
    public var start: Int64
    /// Milliseconds since 1970; `nil` while the experiment runs.
    public var end: Int64?
    /// The metrics to count, in the order the report shows them.
    public var metrics: [Metric]

    /// A query of `metrics` over the arms' exposures from `start` to `end` (milliseconds since 1970).
    public init(
        experiment: String, environment: String, flag: String, arms: [String], start: Int64, end: Int64?, metrics: [Metric]
    ) {
        self.experiment = experiment
        self.environment = environment
        self.flag = flag
        self.arms = arms
        self.start = start
        self.end = end
        self.metrics = metrics
    }

    /// One metric over tracked events.
    public struct Metric: Sendable, Hashable {
        /// The metric's key (unique in the experiment).
        public var key: String
        /// The tracked event's name.
        public var event: String
        /// Conversion: the unit sent the event at least once in the window (values 0 or 1).
        /// Mean: the sum of the events' values per unit. Count: the number of events per unit.
        /// Ratio: ``ratio`` says how its numerator and denominator are taken.
        public var kind: MetricData.Kind
        /// Only events within this long after the unit's first exposure count (milliseconds).
        public var window: Int64
        /// Whether to collect the CUPED covariate: the same metric over the `window` before the
        /// unit's first exposure.
        public var covariate: Bool
        /// Each unit's value (and covariate) capped from above before the arm statistics are
        /// taken; `nil`: not capped. Never on a conversion metric.
        public var cap: Cap?
        /// A percentile metric's p: the arms are compared by the p-quantile of their units'
        /// values (a bounded sample per arm, ``ExperimentTotals/percentiles``); `nil`: by the mean.
        public var percentile: Double?
        /// A ratio metric's parts: `event` is the numerator's event; never with a covariate, cap
        /// or percentile.
        public var ratio: MetricRatio?

        /// A metric over events named `event`, counted within `window` milliseconds after each unit's first
        /// exposure; not capped and compared by the mean unless `cap` or `percentile` is given.
        public init(
            key: String, event: String, kind: MetricData.Kind, window: Int64, covariate: Bool, cap: Cap? = nil, percentile: Double? = nil,
            ratio: MetricRatio? = nil
        ) {
            self.key = key
            self.event = event
            self.kind = kind
            self.window = window
            self.covariate = covariate
            self.cap = cap
            self.percentile = percentile
            self.ratio = ratio
        }
    }

    /// How a metric's per-unit values are capped.
    public enum Cap: Sendable, Hashable {
        /// At a fixed value, the same for every unit.
        case value(Double)
        /// At the pooled p-quantile (``Winsorization``) of the values of every unit of every arm,
        /// computed afresh at each count from the stored units.
        case percentile(Double)
    }
}

/// The sufficient statistics of an experiment so far, per arm: what the statistics engine and
/// an export need. Every unit of an arm counts in every metric (a unit without events adds 0).
public struct ExperimentTotals: Sendable, Hashable {
    /// Units per arm, by first exposure.
    public var units: [String: Int]
    /// Units per arm (the first one) that were later served another arm.
    public var reassignedUnits: [String: Int]
    /// Metric key → arm → sufficient statistics.
    public var metrics: [String: [String: ArmStatistics]]
    /// The same, as they stood at the end of each UTC day since the start (oldest first), for the
    /// sequential bound over time.
    public var daily: [Day]
    /// Events received up to this time (milliseconds since 1970) are counted.
    public var countedThrough: Int64
    /// Metric key → how its values were capped, for the metrics with a cap.
    public var capping: [String: Capping]
    /// Metric key → arm → the units' values a percentile metric is compared by, for the metrics
    /// with a percentile (`ExperimentTotals+Percentiles.swift`).
    public var percentiles: [String: [String: PercentileSample]] = [:]

    /// Totals as a store counted them; ``percentiles`` starts empty (a store sets it for percentile metrics).
    public init(
        units: [String: Int], reassignedUnits: [String: Int], metrics: [String: [String: ArmStatistics]], daily: [Day],
        countedThrough: Int64, capping: [String: Capping] = [:]
    ) {
        self.units = units
        self.reassignedUnits = reassignedUnits
        self.metrics = metrics
        self.daily = daily
        self.countedThrough = countedThrough
        self.capping = capping
    }

    /// The cap a metric's values were capped at, and how many units' values were above it.
    public struct Capping: Sendable, Hashable, Codable {
        /// The value every unit's value (and covariate) was capped at: the fixed cap, or the
        /// percentile computed from the units counted; `nil` for a percentile cap without units.
        public var threshold: Double?
        /// Arm → units whose value was above ``threshold`` (and was replaced by it).
        public var cappedUnits: [String: Int]

        /// The threshold used (`nil`: a percentile cap without units) and, per arm, the units above it.
        public init(threshold: Double?, cappedUnits: [String: Int]) {
            self.threshold = threshold
            self.cappedUnits = cappedUnits
        }
    }

    /// The totals at the end of one day.
    public struct Day: Sendable, Hashable {
        /// The day's start (milliseconds since 1970, UTC).
        public var day: Int64
        /// Units per arm by the day's end.
        public var units: [String: Int]
        /// Metric key → arm → sufficient statistics by the day's end.
        public var metrics: [String: [String: ArmStatistics]]

        /// One day's totals as they stood at its end.
        public init(day: Int64, units: [String: Int], metrics: [String: [String: ArmStatistics]]) {
            self.day = day
            self.units = units
            self.metrics = metrics
        }
    }
}

/// An event store that computes experiment results incrementally: each call counts only the
/// events received since the previous one, so a results page of an experiment with a million
/// units reads a few rows per arm and metric.
public protocol ExperimentResultsStore: Sendable {
    /// Counts what arrived since the last call for `query.experiment` and returns the totals.
    /// The same query must be passed every time; a query whose arms, start or metrics differ
    /// from the stored state's recounts from the raw events still kept.
    func updateResults(_ query: ExperimentResultsQuery, now: Int64) async throws(StoreError) -> ExperimentTotals

    /// Forgets an experiment's incremental state (a deleted or restarted experiment).
    func deleteResults(experiment: String) async throws(StoreError)
}
