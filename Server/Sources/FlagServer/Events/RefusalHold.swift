import Synchronization

/// Makes a client that ignores `Retry-After` wait it out on its own connection.
///
/// An ingestion request refused before its body is read (the token's byte budget, a full queue,
/// the ingest's share) is answered with `Retry-After`. A client that honours it costs the server
/// one refusal per wait. One that does not (a flood of connections posting back to back) would
/// have the server answer thousands of refusals a second and read and drop every body it sends.
/// So the deadline each client was told is kept here, and a request that comes before it is held,
/// its body unread, until then (at most ``maximumHold``), and refused again: such a client makes
/// at most one request per connection and hold, whatever it sends.
///
/// A hold never costs a request its answer: it is at most ``maximumHold`` (1 s), and a caller
/// passes a shorter bound (``hold(_:atMost:)``) where a body deadline that keeps running while the
/// request waits (the connection's pause between two body pieces) is short. A held request holds
/// none of the byte budgets: it was refused before its body was read, or gave back what its body
/// held before it was held.
///
/// Bounded: at most ``maximumHeld`` requests are held at once (past it one is answered at once,
/// as before), and at most ``maximumClients`` deadlines are kept (the expired ones make room; past
/// it a client's deadline is not kept, and it is not held).
final class RefusalHold: Sendable {
    let maximumHeld: Int
    let maximumClients: Int
    /// The longest one request is held.
    let maximumHold: Duration

    private struct State {
        /// When each client was told to come back.
        var deadlines: [String: ContinuousClock.Instant] = [:]
        var held = 0
    }

    private let state = Mutex(State())
    private let clock: @Sendable () -> ContinuousClock.Instant

    init(
        maximumHeld: Int = 1024, maximumClients: Int = 10_000, maximumHold: Duration = .seconds(1),
        clock: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.maximumHeld = maximumHeld
        self.maximumHold = maximumHold
        self.maximumClients = max(1, maximumClients)
        self.clock = clock
    }

    /// The requests held now.
    var held: Int { state.withLock { $0.held } }

    /// Until when a refused request of `client` is held before its answer: `nil` when the client
    /// is not early (or the hold is full, or `bound` is not positive), else the deadline it was
    /// told, at most ``maximumHold`` and at most `bound` from now; the request counts as held
    /// until ``release()``.
    func hold(_ client: String, atMost bound: Duration? = nil) -> ContinuousClock.Instant? {
        let longest = min(maximumHold, bound ?? maximumHold)
        guard longest > .zero else { return nil }
        let now = clock()
        return state.withLock { state in
            guard let deadline = state.deadlines[client], now < deadline, state.held < maximumHeld else { return nil }
            state.held += 1
            return min(deadline, now + longest)
        }
    }

    /// A held request was answered.
    func release() {
        state.withLock { $0.held = max(0, $0.held - 1) }
    }

    /// `client` is told to come back after `retryAfter`, from now.
    func told(_ client: String, retryAfter: Duration) {
        let now = clock()
        let deadline = now + retryAfter
        state.withLock { state in
            if let known = state.deadlines[client] {
                state.deadlines[client] = max(known, deadline)
                return
            }
            if state.deadlines.count >= maximumClients {
                state.deadlines = state.deadlines.filter { $0.value > now }
                guard state.deadlines.count < maximumClients else { return }
            }
            state.deadlines[client] = deadline
        }
    }
}
