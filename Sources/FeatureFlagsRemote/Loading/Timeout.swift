import FeatureFlags
import Foundation

/// Runs an operation against a deadline on a ``RefreshClock``: whichever finishes first wins and
/// the other is cancelled. The caller never waits for a transport that ignores cancellation.
/// `package`: FeatureFlagsEvents' delivery sends its batches through it too.
package enum Timeout {
    /// The result of `operation`, or ``RemoteLoadError`` with code `timedOut` when `seconds` (clamped to 0 to a day) pass first on `clock`.
    package static func run<T: Sendable>(
        seconds: TimeInterval, clock: any RefreshClock, operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let seconds = RemoteDurationLimits.clamp(seconds, to: 0...86_400)
        let deadline = clock.now.addingTimeInterval(seconds)
        let race = Race<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.start(continuation)
                race.add(
                    Task {
                        do {
                            race.finish(.success(try await operation()))
                        } catch {
                            race.finish(.failure(error))
                        }
                    })
                race.add(
                    Task {
                        do {
                            try await clock.sleep(until: deadline)
                        } catch {
                            return
                        }
                        race.finish(
                            .failure(
                                RemoteLoadError(
                                    .timedOut, message: "No complete response within \(Int(seconds)) seconds.")))
                    })
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }
}

/// The first result of several tasks, handed to one continuation exactly once.
private final class Race<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var result: Result<T, any Error>?
        var tasks: [Task<Void, Never>] = []
    }

    private let state = Locked(State())

    func start(_ continuation: CheckedContinuation<T, any Error>) {
        let result = state.withLock { state -> Result<T, any Error>? in
            if let result = state.result { return result }
            state.continuation = continuation
            return nil
        }
        if let result { continuation.resume(with: result) }
    }

    func add(_ task: Task<Void, Never>) {
        let finished = state.withLock { state -> Bool in
            if state.result != nil { return true }
            state.tasks.append(task)
            return false
        }
        if finished { task.cancel() }
    }

    func finish(_ result: Result<T, any Error>) {
        let (continuation, tasks) = state.withLock { state -> (CheckedContinuation<T, any Error>?, [Task<Void, Never>]) in
            guard state.result == nil else { return (nil, []) }
            state.result = result
            defer {
                state.continuation = nil
                state.tasks = []
            }
            return (state.continuation, state.tasks)
        }
        continuation?.resume(with: result)
        for task in tasks { task.cancel() }
    }
}
