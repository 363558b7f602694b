import FlagServerModel
public import FlagStatistics

/// The attribute of a unit's first exposure that splits an experiment's results into segments.
public enum ExperimentSegmentDimension: String, Sendable, Hashable, Codable, CaseIterable {
    /// The app version of the batch that carried the unit's first exposure.
    case appVersion
    /// The platform of that batch.
    case platform

    /// The dimension in words, as a page heading says it ("app version").
    public var words: String {
        switch self {
        case .appVersion: "app version"
        case .platform: "platform"
        }
    }
}

/// What results by segment are asked for: which dimension, and how many of its values get a
/// segment of their own.
public struct ExperimentSegmentRequest: Sendable, Hashable {
    /// Values with a segment of their own when the request does not say (`segments`).
    public static let defaultLimit = 10
    /// The most values with a segment of their own: with "unknown" and "other", a report holds at
    /// most this plus two segments, so its analyses (one per segment) stay few.
    public static let maximumLimit = 20

    /// The attribute that splits the units.
    public var dimension: ExperimentSegmentDimension
    /// The values with the most units get a segment each, at most this many (1 to ``maximumLimit``);
    /// the units of every other value are pooled in one segment, "other".
    public var limit: Int

    /// A request for `dimension`'s `limit` largest values.
    public init(dimension: ExperimentSegmentDimension, limit: Int = ExperimentSegmentRequest.defaultLimit) {
        self.dimension = dimension
        self.limit = limit
    }

    /// The request the query parameters `segment` and `segments` ask for: `nil` without `segment`.
    ///
    /// - Throws: the parameter's name and what it takes, when a value is not one the server takes.
    public static func parse(segment: String?, segments: String?) throws(ParameterProblem) -> ExperimentSegmentRequest? {
        guard let segment else {
            if segments != nil { throw ParameterProblem(parameter: "segments", problem: "needs segment (appVersion or platform)") }
            return nil
        }
        guard let dimension = ExperimentSegmentDimension(rawValue: segment) else {
            throw ParameterProblem(parameter: "segment", problem: "\"appVersion\" or \"platform\", got \"\(segment.prefix(64))\"")
        }
        guard let segments else { return ExperimentSegmentRequest(dimension: dimension) }
        guard segments.utf8.count <= 4, let limit = Int(segments), (1...maximumLimit).contains(limit) else {
            throw ParameterProblem(parameter: "segments", problem: "a whole number from 1 to \(maximumLimit), got \"\(segments.prefix(64))\"")
        }
        return ExperimentSegmentRequest(dimension: dimension, limit: limit)
    }

    /// A query parameter the server cannot take: its name and what it takes.
    public struct ParameterProblem: Error, Sendable, Hashable, CustomStringConvertible {
        /// The parameter's name.
        public var parameter: String
        /// What it takes, and what it got.
        public var problem: String

        /// `parameter: problem`.
        public var description: String { "\(parameter): \(problem)" }
    }
}

/// The sufficient statistics of an experiment per segment and arm: the same sums as
/// ``ExperimentTotals/metrics``, of the units whose first exposure came from each segment.
public struct ExperimentSegmentTotals: Sendable, Hashable {
    /// The attribute that split the units.
    public var dimension: ExperimentSegmentDimension
    /// The values with a segment of their own (largest first, ties by value), then "unknown" and
    /// "other" when they hold units.
    public var segments: [Segment]
    /// How many values were pooled in "other".
    public var otherValues: Int

    /// Segments as listed, the values pooled in "other".
    public init(dimension: ExperimentSegmentDimension, segments: [Segment], otherValues: Int) {
        self.dimension = dimension
        self.segments = segments
        self.otherValues = otherValues
    }

    /// What a segment stands for.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// One value of the dimension (``Segment/key`` is it).
        case value
        /// Units whose first exposure's value is not known: counted before segments were kept, or
        /// sent without it.
        case unknown
        /// The values beyond the request's limit, pooled.
        case other
    }

    /// The units of one segment, per arm, and their sums per metric.
    public struct Segment: Sendable, Hashable {
        /// The value ("5.1.0", "iOS"), or "unknown" or "other".
        public var key: String
        /// Whether the segment is one value, the units of unknown value, or the other values pooled.
        public var kind: Kind
        /// Units per arm (every arm of the query, 0 when none).
        public var units: [String: Int]
        /// Metric key → arm → sufficient statistics.
        public var metrics: [String: [String: ArmStatistics]]

        /// A segment's figures as counted.
        public init(key: String, kind: Kind, units: [String: Int], metrics: [String: [String: ArmStatistics]]) {
            self.key = key
            self.kind = kind
            self.units = units
            self.metrics = metrics
        }
    }
}

/// An event store that splits an experiment's counted units by segment: the units its
/// ``ExperimentResultsStore`` keeps carry the app version and platform of their first exposure.
public protocol ExperimentSegmentStore: Sendable {
    /// The statistics per segment of the units stored for `query.experiment` by the last
    /// ``ExperimentResultsStore/updateResults(_:now:)``. Each metric's values are capped as the
    /// totals were: a fixed cap at its value, a percentile cap at `thresholds[metric.key]` (the
    /// pooled threshold of the totals; uncapped when absent).
    ///
    /// Reads every stored unit of the experiment once (work and memory linear in its units).
    func segmentTotals(
        _ query: ExperimentResultsQuery, request: ExperimentSegmentRequest, thresholds: [String: Double]
    ) async throws(StoreError) -> ExperimentSegmentTotals
}
