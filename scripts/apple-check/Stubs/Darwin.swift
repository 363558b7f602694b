// Darwin, Apple's C library, for the Apple check. The POSIX calls the project uses (pthread
// mutexes, rename, open, fsync, dlsym, sched_yield, ...) have the same C signatures in Darwin and
// glibc, so this stub re-exports Glibc rather than transcribing them: a glibc-only call would pass
// here (an accepted gap, see ../README.md). Darwin-only declarations the project uses go below.
// https://developer.apple.com/documentation/kernel (Darwin's BSD and POSIX layer)
@_exported import Glibc
