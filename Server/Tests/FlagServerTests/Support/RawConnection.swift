import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain blocking TCP connection to a loopback port, for tests that hold many connections at
/// once (an HTTP client pools them). Its blocking calls run on a thread of their own
/// (``RawConnection/offPool(_:)``), never on the concurrency pool the server in the same process
/// needs.
final class RawConnection {
    private var descriptor: Int32
    /// What was received and not yet returned by ``read(until:)``.
    private var received = ""

    init(port: Int) throws {
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw TestFailure("socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            disconnect()
            throw TestFailure("connect() failed: errno \(errno)")
        }
    }

    deinit { disconnect() }

    func disconnect() {
        if descriptor >= 0 {
            #if canImport(Glibc)
            _ = Glibc.close(descriptor)
            #else
            _ = Darwin.close(descriptor)
            #endif
            descriptor = -1
        }
    }

    func send(_ text: String) throws {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            // Never SIGPIPE (the test process would die) when the server closed first.
            #if canImport(Glibc)
            let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            #else
            var on: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
            let sent = bytes.withUnsafeBytes { Darwin.send(descriptor, $0.baseAddress, $0.count, 0) }
            #endif
            guard sent > 0 else { throw TestFailure("write() failed: errno \(errno)") }
            bytes = bytes.dropFirst(sent)
        }
    }

    /// Reads until what was received contains `marker`; returns everything up to and including
    /// it, or everything received when the server closed first (`nil` if that was nothing).
    func read(until marker: String) -> String? {
        while true {
            if let range = received.range(of: marker) {
                let text = String(received[..<range.upperBound])
                received = String(received[range.upperBound...])
                return text
            }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else {
                let rest = received
                received = ""
                return rest.isEmpty ? nil : rest
            }
            received += String(decoding: buffer[..<count], as: UTF8.self)
        }
    }

    /// Runs `work` (blocking socket calls) on a thread of its own.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }
}

/// Sending a ``RawConnection`` to the thread of ``RawConnection/offPool(_:)`` and back.
/// `@unchecked` because it holds a descriptor and a buffer: the tests use one connection from
/// one thread at a time (each `offPool` call is awaited before the next).
extension RawConnection: @unchecked Sendable {}
