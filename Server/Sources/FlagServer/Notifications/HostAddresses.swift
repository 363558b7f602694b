#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOPosix

/// The addresses a host name resolves to, for judging a webhook's target before it is called.
enum HostAddresses {
    /// Every address `host` resolves to (numeric, as `127.0.0.1` or `::1`), or none if it does not
    /// resolve. The blocking lookup runs on a pool of its own: a slow DNS server then delays only
    /// webhook deliveries, never the SQLite stores, whose statements run on NIO's shared pool.
    @Sendable
    static func resolve(_ host: String) async -> [String] {
        (try? await pool.runIfActive { lookUp(host) }) ?? []
    }

    private static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 2)
        pool.start()
        return pool
    }()

    /// `getaddrinfo`: blocking.
    static func lookUp(_ host: String) -> [String] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [String] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let address = entry.pointee.ai_addr {
                var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
                if getnameinfo(address, entry.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 {
                    let numeric = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    if !addresses.contains(numeric) { addresses.append(numeric) }
                }
            }
            cursor = entry.pointee.ai_next
        }
        return addresses
    }
}
