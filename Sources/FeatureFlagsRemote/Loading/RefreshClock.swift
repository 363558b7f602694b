import Foundation

/// The loader's only source of time: wall time for ages, TTLs and `Retry-After` dates, and
/// sleeping until a moment for timers, backoff and request timeouts.
///
/// Tests supply a manual clock so that TTL expiry, backoff and timeouts happen when the test
/// says, without waiting.
public protocol RefreshClock: Sendable {
    /// The current wall time.
    var now: Date { get }
    /// Suspends until `deadline`; throws `CancellationError` when the task is cancelled first.
    func sleep(until deadline: Date) async throws
}

/// The system wall clock.
public struct SystemRefreshClock: RefreshClock {
    /// The system clock.
    public init() {}

    /// `Date()`.
    public var now: Date { Date() }

    /// Sleeps in steps of at most a day, so that any deadline, however far (even
    /// `Date.distantFuture`), is a wait and never an overflow.
    public func sleep(until deadline: Date) async throws {
        while true {
            let interval = deadline.timeIntervalSinceNow
            guard interval > 0 else {
                try Task.checkCancellation()
                return
            }
            let step = min(interval, Self.longestStep)
            try await Task.sleep(for: .milliseconds(Int64((step * 1000).rounded(.up))))
        }
    }

    /// The longest single `Task.sleep`, in seconds.
    static let longestStep: TimeInterval = 86_400
}
