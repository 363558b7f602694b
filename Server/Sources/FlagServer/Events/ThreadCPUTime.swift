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
        return time(of: CLOCK_THREAD_CPUTIME_ID) ?? .zero
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
        return time(of: clock.id)
        #else
        return nil
        #endif
    }

    #if canImport(Glibc) || canImport(Darwin)
    /// The time of `clock` (`clock_gettime`). The `timespec` is filled as its two machine words
    /// (seconds, then nanoseconds: its layout on 64-bit Linux and Darwin) rather than made and read
    /// by member: which module declares `timespec` (the C library's, or Dispatch's copy of it)
    /// depends on the whole target's imports, and its members and initializer are visible only
    /// with that module imported.
    private static func time(of clock: clockid_t) -> Duration? {
        var words: (seconds: Int, nanoseconds: Int) = (0, 0)
        let status = withUnsafeMutableBytes(of: &words) { bytes in
            clock_gettime(clock, bytes.baseAddress!.bindMemory(to: timespec.self, capacity: 1))
        }
        guard status == 0 else { return nil }
        return .seconds(words.seconds) + .nanoseconds(words.nanoseconds)
    }
    #endif
}
