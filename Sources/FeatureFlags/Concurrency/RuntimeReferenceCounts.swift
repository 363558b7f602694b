#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Android)
import Android
#endif

/// Adds or removes many strong references to a native Swift object at once.
///
/// The Swift runtime exports `swift_retain_n` and `swift_release_n` (C functions: an object and
/// a count) on every platform, but `Unmanaged` offers one reference at a time and Swift code may
/// not name runtime symbols directly. They are looked up once with `dlsym`; where that finds
/// nothing (a statically linked runtime whose symbols are not exported), the same counts are
/// added or removed one `Unmanaged` call at a time, with the same effect.
///
/// Callers pass only native Swift class instances they hold a reference to (for `release`, at
/// least `count` references they own).
package enum RuntimeReferenceCounts {
    private typealias RetainN = @convention(c) (UnsafeMutableRawPointer, UInt32) -> UnsafeMutableRawPointer
    private typealias ReleaseN = @convention(c) (UnsafeMutableRawPointer, UInt32) -> Void

    private static let functions: (retain: RetainN, release: ReleaseN)? = {
        #if canImport(Darwin)
        let handle = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT: every loaded image
        #elseif canImport(Glibc) || canImport(Musl) || canImport(Android)
        let handle = dlopen(nil, RTLD_NOW)  // the program and the libraries loaded with it
        #else
        let handle: UnsafeMutableRawPointer? = nil
        #endif
        #if canImport(Darwin) || canImport(Glibc) || canImport(Musl) || canImport(Android)
        guard let handle, let retain = dlsym(handle, "swift_retain_n"), let release = dlsym(handle, "swift_release_n")
        else { return nil }
        return (unsafeBitCast(retain, to: RetainN.self), unsafeBitCast(release, to: ReleaseN.self))
        #else
        return nil
        #endif
    }()

    /// Whether `retain` and `release` are single runtime calls.
    package static var isBatched: Bool { functions != nil }

    /// Adds `count` strong references to `object`.
    package static func retain(_ object: UnsafeMutableRawPointer, count: UInt32) {
        guard count > 0 else { return }
        if let functions {
            _ = functions.retain(object, count)
        } else {
            let unmanaged = Unmanaged<AnyObject>.fromOpaque(object)
            for _ in 0..<count { _ = unmanaged.retain() }
        }
    }

    /// Removes `count` strong references from `object`, freeing it when they were the last.
    package static func release(_ object: UnsafeMutableRawPointer, count: UInt32) {
        guard count > 0 else { return }
        if let functions {
            functions.release(object, count)
        } else {
            let unmanaged = Unmanaged<AnyObject>.fromOpaque(object)
            for _ in 0..<count { unmanaged.release() }
        }
    }
}
