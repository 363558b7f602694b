// Darwin, Apple's C library, for the Apple check. The POSIX calls the project uses (pthread
// mutexes, rename, open, fsync, dlsym, sched_yield, ...) have the same C signatures in Darwin and
// glibc, so this stub re-exports Glibc rather than transcribing them: a glibc-only call would pass
// here (an accepted gap, see ../README.md). Darwin-only declarations the project uses go below.
// https://developer.apple.com/documentation/kernel (Darwin's BSD and POSIX layer)
@_exported import Glibc

import Foundation

// Foundation's Apple-only members the project calls, which Linux's Foundation lacks. On Apple
// platforms they come with Foundation; here a file that calls one also imports Darwin.
extension FileManager {
    // foundation/filemanager/containerurl(forsecurityapplicationgroupidentifier:) — iOS 7, macOS
    // 10.8, tvOS 9, watchOS 2, visionOS 1: `func containerURL(forSecurityApplicationGroupIdentifier
    // groupIdentifier: String) -> URL?`
    @available(iOS 7.0, macOS 10.8, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? { nil }
}
