import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Loopback TCP ports for tests that start servers of their own.
enum LoopbackPort {
    /// Binds a socket to `127.0.0.1:port` (0: the kernel picks one), closes it, and returns the port
    /// it was bound to, or nil when the port is taken.
    static func bindAndRelease(_ port: Int) -> Int? {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }

    /// A port nothing uses now, the kernel's pick.
    static func unused() throws -> Int {
        guard let port = bindAndRelease(0) else { throw TestFailure("bind() failed: errno \(errno)") }
        return port
    }

    /// A port nothing uses now, below Linux's ephemeral range (32768–60999 by default), for a server
    /// that must get the same port back when it restarts. A port inside that range can meanwhile
    /// become the local end of an outgoing connection, and then the server cannot bind it again:
    /// PostgreSQL restarted on a random port in 56000–56999 failed that way in CI.
    static func unusedBelowEphemeralRange() throws -> Int {
        for _ in 0..<500 {
            if let port = bindAndRelease(Int.random(in: 20_000...32_000)) { return port }
        }
        throw TestFailure("no free loopback port in 20000–32000")
    }
}
