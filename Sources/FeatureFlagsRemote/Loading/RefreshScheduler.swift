import FeatureFlags
import Foundation

/// The loader's one pending refresh timer on a ``RefreshClock``: scheduling replaces it,
/// stopping cancels it.
final class RefreshScheduler: Sendable {
    private let clock: any RefreshClock
    private let timer = Locked<Task<Void, Never>?>(nil)

    init(clock: any RefreshClock) {
        self.clock = clock
    }

    /// Replaces the pending timer with one that runs `action` at `date`.
    func schedule(at date: Date, _ action: @escaping @Sendable () async -> Void) {
        let clock = self.clock
        let task = Task {
            do {
                try await clock.sleep(until: date)
            } catch {
                return
            }
            guard !Task.isCancelled else { return }
            await action()
        }
        let previous = timer.withLock { timer in
            defer { timer = task }
            return timer
        }
        previous?.cancel()
    }

    /// Cancels the pending timer, if any.
    func cancel() {
        timer.withLock { timer in
            defer { timer = nil }
            return timer
        }?.cancel()
    }
}
