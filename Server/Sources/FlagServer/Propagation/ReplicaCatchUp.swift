import Foundation
import Synchronization

/// Brings a replica up to what a client has already been told about (OFREP ADR 0008): a bulk
/// refetch triggered by an event names the event's revision (`flagConfigEtag`) and commit time
/// (`flagConfigLastModified`). A load balancer may send that refetch to a replica whose
/// notification has not arrived yet; that replica checks the database first, so the client never
/// reads values older than the event it reacts to.
///
/// The work is bounded: concurrent requests share one check (a revision read, and a reload only
/// when the database is ahead), a request runs at most two checks (one it joined, begun before
/// it arrived, and one begun after), and it waits at most ``limit``.
public final class ReplicaCatchUp: Sendable {
    /// How a catch-up ended.
    public enum Outcome: Sendable, Hashable {
        /// The replica serves what the client named, or a check begun after the request arrived
        /// found nothing newer in the database (the client's value names no stored revision).
        case current
        /// The database could not be reached, or the check took longer than ``limit``.
        case unavailable
    }

    /// The longest a request waits for the check.
    public let limit: Duration
    private let check: @Sendable () async -> Bool
    private let rounds = Mutex<(running: Task<Bool, Never>?, started: UInt64)>((nil, 0))

    /// - Parameters:
    ///   - limit: The longest a request waits (2 s by default).
    ///   - check: Compares the stored revisions with the served ones and reloads if the database
    ///     is ahead; answers whether the database was reached.
    public init(limit: Duration = .seconds(2), check: @escaping @Sendable () async -> Bool) {
        self.limit = limit
        self.check = check
    }

    /// Waits until `isServed()` holds, checking the database at most twice and waiting at most
    /// ``limit``.
    public func catchUp(until isServed: @escaping @Sendable () -> Bool) async -> Outcome {
        if isServed() { return .current }
        let arrival = rounds.withLock { $0.started }
        let work: @Sendable () async -> Outcome = { [self] in
            while true {
                let (task, startedAfterArrival) = join()
                let reached = await task.value
                if isServed() { return .current }
                if !reached { return .unavailable }
                if startedAfterArrival(arrival) { return .current }
            }
        }
        return await FirstOf.run(work, orAfter: limit, fallback: .unavailable)
    }

    /// The running check, or a new one; and whether it began after a given arrival.
    private func join() -> (Task<Bool, Never>, (UInt64) -> Bool) {
        rounds.withLock { state in
            if let running = state.running {
                let number = state.started
                return (running, { number > $0 })
            }
            state.started += 1
            let number = state.started
            let task = Task { [check] in
                let reached = await check()
                self.finished()
                return reached
            }
            state.running = task
            return (task, { number > $0 })
        }
    }

    private func finished() {
        rounds.withLock { $0.running = nil }
    }
}

/// Runs work with a time limit without waiting for the work to end after the limit.
private enum FirstOf {
    final class Once<Value: Sendable>: Sendable {
        private let continuation: Mutex<CheckedContinuation<Value, Never>?>
        init(_ continuation: CheckedContinuation<Value, Never>) { self.continuation = Mutex(continuation) }
        func resume(_ value: Value) {
            continuation.withLock { $0.take() }?.resume(returning: value)
        }
    }

    static func run<Value: Sendable>(
        _ work: @escaping @Sendable () async -> Value, orAfter limit: Duration, fallback: Value
    ) async -> Value {
        await withCheckedContinuation { continuation in
            let once = Once(continuation)
            let timer = Task {
                try? await Task.sleep(for: limit)
                if !Task.isCancelled { once.resume(fallback) }
            }
            Task {
                let value = await work()
                timer.cancel()
                once.resume(value)
            }
        }
    }
}
