import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The running session's marker file, open for appending: one `write` per line, which the
/// kernel has once the call returns, so a process killed right after a read has its line on disk.
/// No `fsync`: a killed process loses nothing the kernel holds; a power loss may lose the
/// newest lines, as it may the snapshot's rename.
///
/// A value held under ``SessionHealthMonitor``'s file lock, which serialises every use.
struct SessionMarkerAppender {
    /// The session whose marker is open.
    private(set) var session: String?
    private var descriptor: Int32 = -1
    /// The file's size as written: the snapshot and the lines since.
    private(set) var bytes = 0

    /// Opens `url`, a marker just written whole (`bytes` long), closing the one open before.
    mutating func open(_ url: URL, session: String, bytes: Int) {
        close()
        #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
        let opened = url.withUnsafeFileSystemRepresentation { path in
            path.map { posixOpen($0, O_WRONLY | O_APPEND | O_CLOEXEC) } ?? -1
        }
        guard opened >= 0 else { return }
        descriptor = opened
        self.session = session
        self.bytes = bytes
        #endif
    }

    /// Appends `line` to the marker of `session` (one `write`); `false` when that marker is not
    /// open, the line would take the file past `limit` bytes, or the write failed (the marker is
    /// then closed: a line cut short must be the file's last, and the next snapshot reopens it).
    mutating func append(_ line: [UInt8], to session: String, limit: Int) -> Bool {
        guard descriptor >= 0, self.session == session, bytes + line.count <= limit else { return false }
        #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
        var written = -1
        repeat {
            written = line.withUnsafeBytes { posixWrite(descriptor, $0.baseAddress, $0.count) }
        } while written < 0 && errno == EINTR
        guard written == line.count else {
            close()
            return false
        }
        bytes += line.count
        return true
        #else
        return false
        #endif
    }

    /// Closes the marker of `session` (of any session when `nil`).
    mutating func close(_ session: String? = nil) {
        guard descriptor >= 0, session == nil || session == self.session else { return }
        #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
        _ = posixClose(descriptor)
        #endif
        descriptor = -1
        self.session = nil
        bytes = 0
    }
}

#if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
// The C functions under names of their own: inside the appender, `open` and `close` are its methods.
private func posixOpen(_ path: UnsafePointer<CChar>, _ flags: Int32) -> Int32 { open(path, flags) }
private func posixWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(descriptor, buffer, count) }
private func posixClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
#endif
