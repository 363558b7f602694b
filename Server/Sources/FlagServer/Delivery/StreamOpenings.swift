import Synchronization

/// Bounds the event streams being set up at once, so that a burst of clients opening streams
/// (every app of a fleet starting after an outage, a relay reconnecting its clients) cannot crowd
/// out evaluation.
///
/// Setting up a stream runs the request's route in a task on the server's shared executor:
/// authentication, the caps, the hub's subscription, the first lines. Thousands arriving at once
/// would queue thousands of such tasks ahead of every OFREP request. With this bound an opening
/// past ``limit`` waits in order before its request reaches Hummingbird, holding only its request
/// head (``EventStreamFront`` keeps it), and evaluation requests queue behind at most ``limit``
/// set-ups.
///
/// An opening ``enter(_:)``s and, once its stream is set up or refused, ``leave()``s; one that
/// gives up while waiting ``withdraw(_:)``s.
final class StreamOpenings: Sendable {
    /// The most streams being set up at once.
    let limit: Int

    /// What ``enter(_:)`` decided.
    enum Entry: Equatable, Sendable {
        /// Set it up now; ``leave()`` when done.
        case admitted
        /// Waiting with this ticket: `resume` is called once it may go on (then ``leave()`` when
        /// done), unless ``withdraw(_:)`` takes it out first.
        case waiting(Int)
    }

    private struct State {
        var active = 0
        var nextTicket = 0
        /// Tickets in the order they came; those no longer in ``resumes`` were withdrawn.
        var order: [Int] = []
        var head = 0
        var resumes: [Int: @Sendable () -> Void] = [:]
    }

    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// The streams being set up now, and the openings waiting.
    var counts: (active: Int, waiting: Int) { state.withLock { ($0.active, $0.resumes.count) } }

    /// Asks to set up a stream: at once while fewer than ``limit`` are, else in order.
    func enter(_ resume: @escaping @Sendable () -> Void) -> Entry {
        state.withLock { state in
            if state.active < limit, state.resumes.isEmpty {
                state.active += 1
                return .admitted
            }
            let ticket = state.nextTicket
            state.nextTicket += 1
            state.order.append(ticket)
            state.resumes[ticket] = resume
            return .waiting(ticket)
        }
    }

    /// Takes a waiting opening out of the line; `false` when it was resumed already (it must
    /// ``leave()`` once its resume comes).
    func withdraw(_ ticket: Int) -> Bool {
        state.withLock { $0.resumes.removeValue(forKey: ticket) != nil }
    }

    /// A set-up ended: the next waiting opening, if any, goes on.
    func leave() {
        let next = state.withLock { state -> (@Sendable () -> Void)? in
            while state.head < state.order.count {
                let ticket = state.order[state.head]
                state.head += 1
                if let resume = state.resumes.removeValue(forKey: ticket) {
                    compact(&state)
                    return resume  // its place passes on: `active` stays
                }
            }
            compact(&state)
            state.active = max(0, state.active - 1)
            return nil
        }
        next?()
    }

    private func compact(_ state: inout State) {
        if state.head == state.order.count {
            state.order.removeAll(keepingCapacity: state.order.count < 1024)
            state.head = 0
        } else if state.head > 1024, state.head * 2 > state.order.count {
            state.order.removeFirst(state.head)
            state.head = 0
        }
    }
}
