import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Hands memory the process freed back to the operating system.
///
/// Loading and compiling a revision allocates far more than the result keeps (the state as
/// read, audit drafts, validation's compiled documents); glibc's allocator keeps such freed
/// memory mapped, so a server that once loaded 10,000 flags would stay that much larger.
/// Called after each publish (writes are rare), it costs a walk of the free lists. Elsewhere
/// (another C library, Apple platforms) it does nothing.
///
/// Connections are the other source: a burst of event streams frees, once it is set up, the
/// request tasks that opened them, and when it closes, the streams themselves.
/// ``FreedMemory/Trigger`` releases after such a burst settles.
enum FreedMemory {
    #if canImport(Glibc)
    /// glibc's `malloc_trim`, looked up once (its header is not part of the Glibc module).
    private static let trim: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()
    #endif

    static func release() {
        #if canImport(Glibc)
        _ = trim?(0)
        #endif
    }
}

extension FreedMemory {
    /// Releases freed memory once a burst of connection changes has settled.
    ///
    /// Each stream set up (its request task ended) or closed is ``note()``d. Once at least
    /// ``threshold`` are pending, the release runs when none came for ``quiet`` (the burst is
    /// over), or at the latest ``longest`` after the first pending one (a steady churn is released
    /// too). One release at a time, never on an event loop: it walks every arena's free lists
    /// (milliseconds for a few hundred megabytes).
    final class Trigger: Sendable {
        /// Changes that make a burst worth a release.
        let threshold: Int
        /// How long no change must come before the release.
        let quiet: Duration
        /// The longest a pending change waits for its release.
        let longest: Duration

        private struct State {
            var pending = 0
            var first: ContinuousClock.Instant?
            var last: ContinuousClock.Instant?
            var scheduled = false
            var releases = 0
        }

        private let state = Mutex(State())
        private let clock: @Sendable () -> ContinuousClock.Instant
        private let schedule: @Sendable (Duration, @escaping @Sendable () -> Void) -> Void
        private let release: @Sendable () -> Void

        /// - Parameters:
        ///   - clock: the time changes are noted in (tests pass one they move).
        ///   - schedule: runs its work after the duration (tests pass one that keeps it for them to run).
        ///   - release: what a release does (``FreedMemory/release()``).
        init(
            threshold: Int = 256, quiet: Duration = .seconds(2), longest: Duration = .seconds(30),
            clock: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now },
            schedule: @escaping @Sendable (Duration, @escaping @Sendable () -> Void) -> Void = Trigger.afterSleeping,
            release: @escaping @Sendable () -> Void = FreedMemory.release
        ) {
            self.threshold = max(1, threshold)
            self.quiet = quiet
            self.longest = longest
            self.clock = clock
            self.schedule = schedule
            self.release = release
        }

        /// The releases so far.
        var releases: Int { state.withLock { $0.releases } }

        /// One connection change: a stream set up or closed.
        func note() {
            let now = clock()
            let due = state.withLock { state -> Duration? in
                state.pending += 1
                if state.first == nil { state.first = now }
                state.last = now
                guard state.pending >= threshold, !state.scheduled else { return nil }
                state.scheduled = true
                return quiet
            }
            if let due { schedule(due) { [self] in check() } }
        }

        /// Releases if the burst settled (or waited its longest), else looks again when it may have.
        private func check() {
            let now = clock()
            let wait = state.withLock { state -> Duration? in
                guard let first = state.first, let last = state.last, state.pending > 0 else {
                    state.scheduled = false
                    return nil
                }
                let settled = last + quiet, latest = first + longest
                if now >= settled || now >= latest {
                    state.pending = 0
                    state.first = nil
                    state.last = nil
                    state.scheduled = false
                    state.releases += 1
                    return .zero
                }
                return min(settled, latest) - now
            }
            guard let wait else { return }
            if wait == .zero {
                release()
            } else {
                schedule(wait) { [self] in check() }
            }
        }

        /// Runs `work` in a task of its own after `delay`.
        @Sendable static func afterSleeping(_ delay: Duration, _ work: @escaping @Sendable () -> Void) {
            Task.detached(priority: .background) {
                try? await Task.sleep(for: delay)
                work()
            }
        }
    }
}
