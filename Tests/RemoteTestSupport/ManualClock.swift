import FeatureFlagsRemote
import Foundation
import Synchronization

/// A clock that moves only when the test says: sleepers wake when `advance` passes their
/// deadline, and tests can wait until someone sleeps until a given moment.
package final class ManualClock: RefreshClock {
    private struct Sleeper {
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Waiter {
        let predicate: @Sendable (Date) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now: Date
        var sleepers: [UInt64: Sleeper] = [:]
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>

    package init(now: Date = Date(timeIntervalSince1970: 1_900_000_000)) {
        state = Mutex(State(now: now))
    }

    package var now: Date { state.withLock { $0.now } }

    /// The deadlines of everyone sleeping now.
    package var sleepingUntil: [Date] { state.withLock { $0.sleepers.values.map(\.deadline).sorted() } }

    package func sleep(until deadline: Date) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Action { case resume, cancel, wait([CheckedContinuation<Void, Never>]) }
                let action = state.withLock { state -> Action in
                    if Task.isCancelled { return .cancel }
                    if deadline <= state.now { return .resume }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    var woken: [CheckedContinuation<Void, Never>] = []
                    state.waiters.removeAll { waiter in
                        guard waiter.predicate(deadline) else { return false }
                        woken.append(waiter.continuation)
                        return true
                    }
                    return .wait(woken)
                }
                switch action {
                case .resume: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                case .wait(let woken): for waiter in woken { waiter.resume() }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `seconds`, waking every sleeper whose deadline has come.
    package func advance(by seconds: TimeInterval) {
        advance(to: now.addingTimeInterval(seconds))
    }

    /// Moves time to `date` (never backwards), waking every sleeper whose deadline has come.
    package func advance(to date: Date) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now = max(state.now, date)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Returns once someone sleeps until a deadline matching `predicate`.
    package func waitForSleeper(where predicate: @escaping @Sendable (Date) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let found = state.withLock { state -> Bool in
                if state.sleepers.values.contains(where: { predicate($0.deadline) }) { return true }
                state.waiters.append(Waiter(predicate: predicate, continuation: continuation))
                return false
            }
            if found { continuation.resume() }
        }
    }

    /// Returns once someone sleeps until exactly `deadline`.
    package func waitForSleeper(until deadline: Date) async {
        await waitForSleeper { abs($0.timeIntervalSince(deadline)) < 0.001 }
    }
}
