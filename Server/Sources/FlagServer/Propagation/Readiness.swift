public import Foundation
import Synchronization

/// Whether this server can serve current values: its state is loaded and its database reachable.
///
/// `GET /health/ready` answers 200 only then; `GET /health/live` only says the process runs. A
/// ``ReplicaSynchronizer`` reports the database as unreachable when its notification connection
/// or a revision check fails, and reachable again after the next success; and its notification
/// connection as silent when its own heartbeat did not come back through it in time, until it
/// listens again on a new connection and has caught up.
public final class Readiness: Sendable {
    private struct State {
        var stateLoaded: Bool
        var databaseProblem: String?
        var listenerProblem: String?
        /// A relay's: since when its upstream is lost (it still serves, and stays ready).
        var upstreamLostSince: Date?
        var waiters: [(id: UUID, condition: @Sendable (State) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []

        var isReady: Bool { stateLoaded && databaseProblem == nil && listenerProblem == nil }

        /// Removes and returns the waiters whose condition now holds.
        mutating func satisfiedWaiters() -> [CheckedContinuation<Void, Never>] {
            let state = self
            let satisfied = waiters.filter { $0.condition(state) }.map(\.continuation)
            waiters.removeAll { $0.condition(state) }
            return satisfied
        }
    }

    private let state: Mutex<State>

    /// Readiness with no problem reported; ready only when `stateLoaded`.
    public init(stateLoaded: Bool = false) {
        state = Mutex(State(stateLoaded: stateLoaded, databaseProblem: nil))
    }

    /// `nil` when ready, otherwise why not (one sentence, no credentials).
    public var problem: String? {
        state.withLock { state in
            if !state.stateLoaded { return "the state is not loaded yet" }
            if let problem = state.databaseProblem { return "the database is unreachable: \(problem)" }
            return state.listenerProblem.map { "revision notifications are not arriving: \($0)" }
        }
    }

    /// Whether ``problem`` is `nil`.
    public var isReady: Bool { state.withLock { $0.isReady } }

    /// A relay's: since when it has lost its upstream and serves its last state, or `nil`. A
    /// stale relay stays ready (see `Docs/Deployment.md`); `GET /health/ready` says it is stale.
    public var staleSince: Date? { state.withLock { $0.upstreamLostSince } }

    /// Whether the database was reachable at the last attempt.
    public var isDatabaseReachable: Bool { state.withLock { $0.databaseProblem == nil } }

    /// Returns once ``isReady`` equals `ready` (at once if it does already), or
    /// once the task is cancelled.
    public func wait(untilReady ready: Bool) async {
        await wait { $0.isReady == ready }
    }

    /// Returns once a relay is stale (``staleSince`` not `nil`) or not, as `stale` says (at once if
    /// it is already), or once the task is cancelled.
    public func wait(untilStale stale: Bool) async {
        await wait { ($0.upstreamLostSince != nil) == stale }
    }

    private func wait(for condition: @escaping @Sendable (State) -> Bool) async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    // Cancelled before the waiter was registered: the handler found nothing to end.
                    if condition(state) || Task.isCancelled { return true }
                    state.waiters.append((id, condition, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0).continuation }
            }
            waiter?.resume()
        }
    }

    func stateDidLoad() { update { $0.stateLoaded = true } }
    func databaseReached() { update { $0.databaseProblem = nil } }
    func databaseFailed(_ problem: String) { update { $0.databaseProblem = problem } }
    func listenerFailed(_ problem: String) { update { $0.listenerProblem = problem } }
    func listenerRestored() { update { $0.listenerProblem = nil } }
    func upstreamLost(at time: Date) { update { $0.upstreamLostSince = $0.upstreamLostSince ?? time } }
    func upstreamReached() { update { $0.upstreamLostSince = nil } }

    private func update(_ change: (inout State) -> Void) {
        let satisfied = state.withLock { state in
            change(&state)
            return state.satisfiedWaiters()
        }
        for continuation in satisfied { continuation.resume() }
    }
}
