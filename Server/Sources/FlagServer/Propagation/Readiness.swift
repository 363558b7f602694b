import Synchronization

/// Whether this server can serve current values: its state is loaded and its database reachable.
///
/// `GET /health/ready` answers 200 only then; `GET /health/live` only says the process runs. A
/// ``ReplicaSynchronizer`` reports the database as unreachable when its notification connection
/// or a revision check fails, and reachable again after the next success.
public final class Readiness: Sendable {
    private struct State {
        var stateLoaded: Bool
        var databaseProblem: String?
        var waiters: [(ready: Bool, continuation: CheckedContinuation<Void, Never>)] = []

        var isReady: Bool { stateLoaded && databaseProblem == nil }

        /// Removes and returns the waiters whose condition now holds.
        mutating func satisfiedWaiters() -> [CheckedContinuation<Void, Never>] {
            let ready = isReady
            let satisfied = waiters.filter { $0.ready == ready }.map(\.continuation)
            waiters.removeAll { $0.ready == ready }
            return satisfied
        }
    }

    private let state: Mutex<State>

    public init(stateLoaded: Bool = false) {
        state = Mutex(State(stateLoaded: stateLoaded, databaseProblem: nil))
    }

    /// `nil` when ready, otherwise why not (one sentence, no credentials).
    public var problem: String? {
        state.withLock { state in
            if !state.stateLoaded { return "the state is not loaded yet" }
            return state.databaseProblem.map { "the database is unreachable: \($0)" }
        }
    }

    /// Whether ``problem`` is `nil`.
    public var isReady: Bool { state.withLock { $0.isReady } }

    /// Whether the database was reachable at the last attempt.
    public var isDatabaseReachable: Bool { state.withLock { $0.databaseProblem == nil } }

    /// Returns once ``isReady`` equals `ready` (at once if it does already). Not cancellable.
    public func wait(untilReady ready: Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if state.isReady == ready { return true }
                state.waiters.append((ready, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    func stateDidLoad() { update { $0.stateLoaded = true } }
    func databaseReached() { update { $0.databaseProblem = nil } }
    func databaseFailed(_ problem: String) { update { $0.databaseProblem = problem } }

    private func update(_ change: (inout State) -> Void) {
        let satisfied = state.withLock { state in
            change(&state)
            return state.satisfiedWaiters()
        }
        for continuation in satisfied { continuation.resume() }
    }
}
