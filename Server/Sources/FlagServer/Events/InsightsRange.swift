import Foundation

/// The time range of an insights report: whole buckets of one granularity, bounded in number.
///
/// A range asked for is widened to whole buckets (`from` down to the start of its bucket, `to`
/// up to the end of its own); without a granularity, a range of at most 3 days is read per hour
/// and a longer one per day. A range of at most 7 days is read per hour, at most 90 days per day:
/// the limit is on the range asked for, so the default 7 days up to now read per hour (169
/// buckets once widened, as its ends fall inside hours) is accepted.
public struct InsightsRange: Sendable, Hashable {
    /// The start of the first bucket (milliseconds since 1970, UTC).
    public var from: Int64
    /// The end of the last bucket (exclusive).
    public var to: Int64
    /// The bucket size, an hour or a day.
    public var granularity: RollupGranularity

    /// The longest range read per hour without asking for a granularity.
    public static let hourlyUpTo: Int64 = 3 * 86_400_000
    /// The most whole buckets a range asked for may span, by granularity (7 days of hours, 90
    /// days); widened to whole buckets it has at most one more.
    public static func maximumBuckets(_ granularity: RollupGranularity) -> Int {
        granularity == .hour ? 7 * 24 : 90
    }
    /// The range when none is asked for: the 7 days up to now.
    public static let defaultLength: Int64 = 7 * 86_400_000

    /// Why a range was refused.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// `from` is not before `to`.
        case empty(from: Int64, to: Int64)
        /// Longer than ``InsightsRange/maximumBuckets(_:)`` buckets; `buckets` is how many it
        /// touches.
        case tooLong(granularity: RollupGranularity, buckets: Int, maximum: Int)

        /// A sentence saying what is wrong with the range.
        public var description: String {
            switch self {
            case .empty(let from, let to):
                "from (\(InsightsRange.text(from))) must be before to (\(InsightsRange.text(to)))"
            case .tooLong(let granularity, let buckets, let maximum):
                "the range has \(buckets) \(granularity.rawValue)s; at most \(maximum) per \(granularity.rawValue)"
                    + (granularity == .hour ? " (7 days): ask for granularity=day or a shorter range" : " (90 days): ask for a shorter range")
            }
        }
    }

    /// The range of whole buckets covering `from ..< to`.
    ///
    /// - Throws: ``Problem``: `from` not before `to`, or longer than
    ///   ``maximumBuckets(_:)`` buckets of the granularity.
    public init(from: Int64, to: Int64, granularity: RollupGranularity? = nil) throws(Problem) {
        guard from < to else { throw .empty(from: from, to: to) }
        let granularity = granularity ?? (to - from <= Self.hourlyUpTo ? .hour : .day)
        let start = granularity.bucket(of: from)
        let last = granularity.bucket(of: to - 1)
        // Counted before the end is computed, so that no far-off `to` overflows.
        let buckets = (last - start) / granularity.milliseconds + 1
        let maximum = Self.maximumBuckets(granularity)
        // The length asked for, not the widened one: a range of exactly the maximum whose ends
        // fall inside buckets touches one bucket more, and is still allowed.
        let length = to.subtractingReportingOverflow(from)
        guard !length.overflow, length.partialValue <= Int64(maximum) * granularity.milliseconds else {
            throw .tooLong(granularity: granularity, buckets: Int(clamping: buckets), maximum: maximum)
        }
        self.from = start
        self.to = last + granularity.milliseconds
        self.granularity = granularity
    }

    /// A range of whole buckets, unchecked: `from` and `to` are bucket starts of `granularity`.
    init(buckets from: Int64, to: Int64, granularity: RollupGranularity) {
        self.from = from
        self.to = to
        self.granularity = granularity
    }

    /// The range a request asks for: `to` defaults to `now`, `from` to 7 days before `to`.
    public init(from: Int64?, to: Int64?, granularity: RollupGranularity?, now: Int64) throws(Problem) {
        let end = to ?? now
        try self.init(from: from ?? end - Self.defaultLength, to: end, granularity: granularity)
    }

    /// The start of every bucket, oldest first.
    public var buckets: [Int64] {
        Array(stride(from: from, to: to, by: Int(granularity.milliseconds)).map { Int64($0) })
    }

    /// The start of every UTC day the range touches, oldest first (units are counted per day).
    public var days: [Int64] {
        let day = RollupGranularity.day
        return Array(stride(from: day.bucket(of: from), through: day.bucket(of: to - 1), by: Int(day.milliseconds)).map { Int64($0) })
    }

    /// Reads an ISO 8601 date and time with a zone (`2026-11-20T08:00:00Z`, fractions of a
    /// second and offsets allowed) as milliseconds since 1970.
    public static func time(parsing text: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return milliseconds(date) }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text).map(milliseconds)
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }

    static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    static func text(_ milliseconds: Int64) -> String {
        ISO8601DateFormatter.string(from: date(milliseconds), timeZone: .gmt, formatOptions: [.withInternetDateTime])
    }
}
