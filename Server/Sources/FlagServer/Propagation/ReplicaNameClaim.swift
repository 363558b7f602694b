import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A replica's name kept across its restarts, so that a process restarted after a crash (a
/// `kill -9`) knows the rollout leases its predecessor held as its own and acts on their plans at
/// its first tick, instead of waiting them out (``RolloutExecutor/leaseDuration``, 120 s).
///
/// Names live in slot files beside the SQLite database (`flags.sqlite.replica-0`,
/// `flags.sqlite.replica-1`, …), one line each. A process claims the first slot no other process
/// holds by taking an exclusive `flock` on its file, and keeps the lock (and the name) until it
/// releases the claim or ends. The kernel releases the lock of a process that dies however it
/// dies, so a restart finds its predecessor's slot free and takes its name; while two processes
/// share one database, each holds a slot of its own, so two live processes never share a name and
/// the leases keep them from acting on one plan at once. SQLite's log needs every process that
/// writes the database on one machine, where `flock` is authoritative.
final class ReplicaNameClaim: Sendable {
    /// The name this replica gives itself in leases.
    let name: String
    /// The slot file (for logs and tests).
    let file: String
    /// The open slot file holding the lock; `nil` once released.
    private let descriptor: Mutex<Int32?>

    private init(name: String, file: String, descriptor: Int32) {
        self.name = name
        self.file = file
        self.descriptor = Mutex(descriptor)
    }

    deinit { release() }

    /// How many slot files a database may have: more processes on one database than this get a
    /// name of their own for their life (as without a claim).
    static let slots = 16

    /// Claims the first free slot beside `databaseFile`.
    ///
    /// - Throws: ``Failure`` when no slot could be claimed (every slot held by a live process, or
    ///   the directory cannot be written); the caller then names itself for this process only.
    static func claim(besideDatabase databaseFile: String) throws(Failure) -> ReplicaNameClaim {
        var lastProblem = "every one of the \(slots) slots is held by a live process"
        for slot in 0..<slots {
            let file = databaseFile + ".replica-\(slot)"
            let descriptor = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                lastProblem = "cannot open \(file): \(String(cString: strerror(errno)))"
                break
            }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                let reason = errno
                close(descriptor)
                if reason == EWOULDBLOCK { continue }
                lastProblem = "cannot lock \(file): \(String(cString: strerror(reason)))"
                break
            }
            do throws(Failure) {
                let name: String
                if let stored = try storedName(descriptor) { name = stored } else { name = try writeNewName(descriptor) }
                return ReplicaNameClaim(name: name, file: file, descriptor: descriptor)
            } catch {
                close(descriptor)
                lastProblem = "cannot keep a name in \(file): \(error.reason)"
                break
            }
        }
        throw Failure(reason: lastProblem)
    }

    /// Gives the slot back (a later claim takes it and its name); the end of the process does the same.
    func release() {
        guard let descriptor = descriptor.withLock({ descriptor in defer { descriptor = nil }; return descriptor }) else { return }
        close(descriptor)
    }

    /// Why a name could not be claimed.
    struct Failure: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    /// The name the slot file holds, or `nil` when it holds none (new, or not one line of a name).
    private static func storedName(_ descriptor: Int32) throws(Failure) -> String? {
        var bytes = [UInt8](repeating: 0, count: 256)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        let text = String(decoding: bytes.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let valid = !text.isEmpty && text.count <= 100
            && text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || "-_.".unicodeScalars.contains($0)) }
        return valid ? text : nil
    }

    /// Writes a new name into the slot file (durably: a crash right after must find it).
    private static func writeNewName(_ descriptor: Int32) throws(Failure) -> String {
        let name = "replica-" + UUID().uuidString.lowercased()
        let line = Array((name + "\n").utf8)
        guard ftruncate(descriptor, 0) == 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        let written = line.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        guard written == line.count, fsync(descriptor) == 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        return name
    }
}
