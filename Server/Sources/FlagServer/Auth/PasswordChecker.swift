import HummingbirdBcrypt
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs bcrypt checks on a few threads of their own, never on the NIO event loops or Swift's
/// cooperative pool, so that password guessing cannot take CPU time from delivery: at most
/// `threads` checks run at once and at most `queue` wait; one more is refused at once
/// (``Busy``), to be answered 503 with `Retry-After`. On Linux the threads run at the lowest
/// scheduling priority (nice 19), so that on a busy machine the threads serving requests come first.
///
/// A lane of its own (one thread, a short queue) checks the sign-ins of browsers that signed in
/// to the account before (``SignInDevices``): however many strangers' checks fill the main lane,
/// a known browser's waits behind few.
final class PasswordChecker: Sendable {
    /// All threads and queue places are taken: try again later.
    struct Busy: Error, Sendable {}

    let threads: Int
    let queue: Int
    private let pool: NIOThreadPool
    /// Checks running or waiting.
    private let admitted = Atomic<Int>(0)
    /// The known browsers' lane: one thread, ``priorityQueue`` waiting.
    private let priorityPool: NIOThreadPool
    private let priorityAdmitted = Atomic<Int>(0)
    static let priorityQueue = 4
    /// Checks run so far, on either lane (for tests).
    private let checks = Atomic<Int>(0)

    init(threads: Int = 2, queue: Int = 8) {
        self.threads = max(1, threads)
        self.queue = max(0, queue)
        pool = NIOThreadPool(numberOfThreads: self.threads)
        pool.start()
        priorityPool = NIOThreadPool(numberOfThreads: 1)
        priorityPool.start()
    }

    deinit {
        pool.shutdownGracefully { _ in }
        priorityPool.shutdownGracefully { _ in }
    }

    /// Whether `password` matches the bcrypt `hash`, checked on the pool (`priority`: on the
    /// known browsers' lane).
    ///
    /// - Throws: ``Busy`` when the lane's threads run checks and its queue is full already.
    func verify(_ password: String, hash: String, priority: Bool = false) async throws(Busy) -> Bool {
        checks.add(1, ordering: .relaxed)
        guard priority else { return try await run { Bcrypt.verify(password, hash: hash) } }
        let (_, now) = priorityAdmitted.add(1, ordering: .relaxed)
        defer { priorityAdmitted.subtract(1, ordering: .relaxed) }
        guard now <= 1 + Self.priorityQueue else { throw Busy() }
        do {
            return try await priorityPool.runIfActive {
                Self.lowerCurrentThreadPriority()
                return Bcrypt.verify(password, hash: hash)
            }
        } catch {
            throw Busy()
        }
    }

    /// Password checks begun so far (for tests).
    var checksBegun: Int { checks.load(ordering: .relaxed) }

    /// Whether a check would be admitted now (a hint: ``verify(_:hash:)`` decides).
    var hasRoom: Bool { admitted.load(ordering: .relaxed) < threads + queue }

    /// `work` (a new hash, for an authenticated caller) on the pool, waiting for a thread however
    /// long the queue: it is not refused like a sign-in.
    func hash(_ work: @escaping @Sendable () -> String) async -> String {
        do {
            return try await onPool(work)
        } catch {
            // The pool shut down (the checker is going away): hash here rather than fail.
            return work()
        }
    }

    /// `work` on the pool, if there is room for it.
    func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws(Busy) -> T {
        let (_, now) = admitted.add(1, ordering: .relaxed)
        defer { admitted.subtract(1, ordering: .relaxed) }
        guard now <= threads + queue else { throw Busy() }
        do {
            return try await onPool(work)
        } catch {
            // The pool shut down (the checker is going away): refuse like a full queue.
            throw Busy()
        }
    }

    /// `work` on one of the pool's threads, at the lowest priority; throws if the pool shut down.
    private func onPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws -> T {
        try await pool.runIfActive {
            Self.lowerCurrentThreadPriority()
            return work()
        }
    }

    /// Gives the calling thread the lowest priority (Linux: threads have a nice value each).
    static func lowerCurrentThreadPriority() {
        #if canImport(Glibc)
        // "/proc/thread-self" links to "<pid>/task/<tid>"; Glibc's gettid is not visible to Swift.
        var buffer = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/thread-self", &buffer, 63)
        guard count > 0 else { return }
        let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let thread = path.split(separator: "/").last.flatMap({ id_t($0) }) else { return }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), thread, 19)
        #endif
    }
}
