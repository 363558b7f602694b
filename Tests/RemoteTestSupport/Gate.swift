import Synchronization

/// A one-shot gate: `wait()` suspends until `open()` is called (at once if it already was), or
/// until the waiting task is cancelled.
package final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    package init() {}

    package var isOpen: Bool { state.withLock { $0.isOpen } }

    package func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    package func wait() async {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    if state.isOpen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }

    /// Waits until this gate or `other` opens.
    package func wait(orUntil other: Gate) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.wait() }
            group.addTask { await other.wait() }
            await group.next()
            group.cancelAll()
        }
    }
}
