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
