import Foundation

/// The ranges every duration that comes from outside the app is held to, where it enters: a
/// payload's `ttlSeconds`, a `Retry-After` header (delay seconds or HTTP date), the computed
/// backoff, and the durations read back from the cache file.
///
/// A server that sends `"ttlSeconds": 1e16` or `Retry-After: 9223372036854775807` gets the
/// upper bound, not a timer that can't be represented. A cache file holding a value outside
/// these ranges is unusable: it is moved aside and reported like any other unreadable cache.
///
/// | Duration | Range |
/// | --- | --- |
/// | time to live (`ttlSeconds`, `defaultTTL`) | 0 s … 7 days |
/// | `Retry-After` | 0 s … 24 hours after now |
/// | backoff after a failure | 0 s … 1 hour |
/// | event stream inactivity delay (`inactivityDelaySec`) | 1 s … 24 hours |
public enum RemoteDurationLimits {
    /// A payload's time to live, in seconds: 0 to 7 days.
    public static let timeToLive: ClosedRange<TimeInterval> = 0...(7 * 86_400)
    /// How long a `Retry-After` may hold requests back, in seconds: 0 to 24 hours.
    public static let retryAfter: ClosedRange<TimeInterval> = 0...86_400
    /// The longest wait between retries after failures, in seconds: 1 hour, whatever
    /// ``RefreshRetryPolicy/maximumDelay`` says.
    public static let backoff: ClosedRange<TimeInterval> = 0...3_600
    /// How long an event stream stays open while the app is inactive, in seconds: 1 second to
    /// 24 hours.
    public static let inactivityDelay: ClosedRange<TimeInterval> = 1...86_400

    /// `seconds` held to `range`; not-a-number counts as the lower bound.
    static func clamp(_ seconds: TimeInterval, to range: ClosedRange<TimeInterval>) -> TimeInterval {
        guard !seconds.isNaN else { return range.lowerBound }
        return min(max(seconds, range.lowerBound), range.upperBound)
    }
}
