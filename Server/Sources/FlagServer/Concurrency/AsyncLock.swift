import Synchronization

/// A first-come-first-served lock for async code: holders may suspend while holding it.
///
/// Actors are reentrant, so an actor method that awaits (a database call) can interleave with
/// another call of the same actor. Work that must not interleave (a transaction on one
/// connection, a validate-then-commit write) takes this lock. Waiting is not cancellable, but may
/// be bounded by a deadline.
final class AsyncLock: Sendable {
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State: ~Copyable {
        var locked = false
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Waits until the lock is free and takes it. Pair with ``unlock()`` (`defer`).
    func lock() async {
        _ = await lock(before: nil)
    }

    /// Waits until the lock is free and takes it, or gives up at `deadline`.
    ///
    /// - Returns: `true` if the lock is taken (pair with ``unlock()``), `false` if `deadline` came first.
    func lock(before deadline: ContinuousClock.Instant?) async -> Bool {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskGroup(of: Void.self) { group in
            if let deadline {
                group.addTask {
                    // Wakes the waiter at its deadline; cancelled as soon as the lock is taken.
                    try? await Task.sleep(until: deadline, clock: .continuous)
                    guard !Task.isCancelled else { return }
                    let expired = self.state.withLock { state -> CheckedContinuation<Bool, Never>? in
                        guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                        return state.waiters.remove(at: index).continuation
                    }
                    expired?.resume(returning: false)
                }
            }
            let acquired = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let outcome = state.withLock { state -> Bool? in
                    if !state.locked {
                        state.locked = true
                        return true
                    }
                    // Past the deadline already (the timer may have fired before this waiter queued).
                    if let deadline, ContinuousClock.now >= deadline { return false }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let outcome { continuation.resume(returning: outcome) }
            }
            group.cancelAll()
            return acquired
        }
    }

    /// Releases the lock, handing it to the longest waiter.
    func unlock() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            if state.waiters.isEmpty {
                state.locked = false
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume(returning: true)
    }
}
