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
    public init() {}

    public var now: Date { Date() }

    public func sleep(until deadline: Date) async throws {
        let interval = deadline.timeIntervalSinceNow
        if interval > 0 {
            try await Task.sleep(for: .milliseconds(Int64((interval * 1000).rounded(.up))))
        } else {
            try Task.checkCancellation()
        }
    }
}
