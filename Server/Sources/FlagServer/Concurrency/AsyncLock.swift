import Synchronization

/// A first-come-first-served lock for async code: holders may suspend while holding it.
///
/// Actors are reentrant, so an actor method that awaits (a database call) can interleave with
/// another call of the same actor. Work that must not interleave (a transaction on one
/// connection, a validate-then-commit write) takes this lock. Waiting is not cancellable.
final class AsyncLock: Sendable {
    private struct State: ~Copyable {
        var locked = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Waits until the lock is free and takes it. Pair with ``unlock()`` (`defer`).
    func lock() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let acquired = state.withLock { state in
                if state.locked {
                    state.waiters.append(continuation)
                    return false
                }
                state.locked = true
                return true
            }
            if acquired { continuation.resume() }
        }
    }

    /// Releases the lock, handing it to the longest waiter.
    func unlock() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.locked = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
