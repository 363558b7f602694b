#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The processor time threads have used, read from the kernel's per-thread CPU clocks: time a
/// thread spent running, not waiting (for a lock, a disk's flush, another thread).
enum ThreadCPUTime {
    /// The processor time the calling thread has used since it started.
    static func current() -> Duration {
        #if canImport(Glibc) || canImport(Darwin)
        var time = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return .zero }
        return duration(time)
        #else
        return .zero
        #endif
    }

    /// A clock of the calling thread's processor time that other threads can read with
    /// ``read(_:)`` while the thread lives; `nil` where the platform has none.
    static func clockOfCurrentThread() -> Clock? {
        #if canImport(Glibc)
        var clock = clockid_t()
        guard pthread_getcpuclockid(pthread_self(), &clock) == 0 else { return nil }
        return Clock(id: clock)
        #else
        return nil
        #endif
    }

    /// A thread's processor-time clock (``clockOfCurrentThread()``).
    struct Clock: Sendable, Hashable {
        #if canImport(Glibc)
        fileprivate let id: clockid_t
        #endif
    }

    /// The processor time of the thread whose clock `clock` is, so far; `nil` once it cannot be
    /// read. Read a clock only while its thread runs: a thread's clock names it by its id, which
    /// the kernel gives to another thread once it ended.
    static func read(_ clock: Clock) -> Duration? {
        #if canImport(Glibc)
        var time = timespec()
        guard clock_gettime(clock.id, &time) == 0 else { return nil }
        return duration(time)
        #else
        return nil
        #endif
    }

    #if canImport(Glibc) || canImport(Darwin)
    /// `time` as a duration. Read as its two machine words (seconds, then nanoseconds: the layout
    /// on 64-bit Linux and Darwin) rather than by member: which module declares `timespec` (the C
    /// library's, or Dispatch's copy) depends on the whole target's imports, and its members are
    /// visible only with that module imported.
    private static func duration(_ time: timespec) -> Duration {
        let (seconds, nanoseconds) = unsafeBitCast(time, to: (Int, Int).self)
        return .seconds(seconds) + .nanoseconds(nanoseconds)
    }
    #endif
}
