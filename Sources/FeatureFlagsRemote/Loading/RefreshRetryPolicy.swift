import Foundation

/// How long the loader waits before retrying after a server error, a timeout or a connection
/// failure: capped exponential backoff with jitter.
///
/// The n-th consecutive failure waits `min(maximumDelay, initialDelay × multiplierⁿ⁻¹)`, less
/// a random share of up to `jitter` of it, so many clients that failed together don't retry
/// together. Whatever the settings, the wait stays within ``RemoteDurationLimits/backoff``
/// (at most an hour).
public struct RefreshRetryPolicy: Sendable {
    /// The wait after the first failure, in seconds.
    public var initialDelay: TimeInterval
    /// The growth per further failure.
    public var multiplier: Double
    /// The longest wait, in seconds.
    public var maximumDelay: TimeInterval
    /// The largest share of a wait taken off at random, from 0 to 1.
    public var jitter: Double
    /// A random number in `0..<1`; inject a fixed one in tests.
    public var random: @Sendable () -> Double

    /// A policy with the defaults documented on each member.
    public init(
        initialDelay: TimeInterval = 2,
        multiplier: Double = 2,
        maximumDelay: TimeInterval = 300,
        jitter: Double = 0.2,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.jitter = min(max(jitter, 0), 1)
        self.random = random
    }

    /// The wait, in seconds, after `failures` consecutive failures (1 for the first).
    public func delay(afterFailures failures: Int) -> TimeInterval {
        let exponent = Double(max(failures, 1) - 1)
        let capped = min(maximumDelay, initialDelay * pow(multiplier, min(exponent, 64)))
        let share = random()
        let jittered = capped * (1 - jitter * (share.isNaN ? 0 : min(max(share, 0), 1)))
        return RemoteDurationLimits.clamp(jittered, to: RemoteDurationLimits.backoff)
    }
}
