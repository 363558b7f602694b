import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Threads of their own for the work of ingesting events (decoding bodies; the SQLite event
/// store's calls), at a lower scheduling priority than the threads that serve delivery.
///
/// Swift's concurrent executor and NIO's event loops run on as many threads as there are cores;
/// work done there (or on NIO's shared thread pool) takes its turn with delivery's requests. On
/// threads of their own with a higher nice value (Linux keeps one per thread), the kernel gives
/// delivery's threads the cores first whenever both want them, and ingestion the rest.
enum IngestThreads {
    /// A started pool of one thread that runs at nice value `niceness` (0: the process's
    /// priority). Shut it down when done.
    static func singleThread(niceness: Int32) async -> NIOThreadPool {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        if niceness != 0 {
            // One thread: whatever runs on the pool from now on runs on the thread set here.
            _ = try? await pool.runIfActive { setCurrentThreadNiceness(niceness) }
        }
        return pool
    }

    /// Sets the calling thread's nice value (Linux: `setpriority` with `who` 0 changes the calling
    /// thread only). Raising it needs no privilege; lowering it below the current value does.
    static func setCurrentThreadNiceness(_ niceness: Int32) {
        #if canImport(Glibc)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
        #endif
    }
}
