#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import NIOPosix
import Synchronization

/// The addresses a host name resolves to, for judging a webhook's target before it is called.
enum HostAddresses {
    /// Every address `host` resolves to (numeric, as `127.0.0.1` or `::1`), or none if it does not
    /// resolve. The blocking lookup runs on a pool of its own: a slow DNS server then delays only
    /// webhook deliveries, never the SQLite stores, whose statements run on NIO's shared pool.
    /// A cancelled caller (an attempt past its deadline) gets no addresses at once; the lookup
    /// itself finishes on the pool and is dropped.
    @Sendable
    static func resolve(_ host: String) async -> [String] {
        let future = pool.runIfActive(eventLoop: MultiThreadedEventLoopGroup.singleton.any()) { lookUp(host) }
        let waiting = Waiting()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiting.set(continuation)
                future.whenComplete { result in waiting.resume(returning: (try? result.get()) ?? []) }
                if Task.isCancelled { waiting.resume(returning: []) }
            }
        } onCancel: {
            waiting.resume(returning: [])
        }
    }

    /// The caller of ``resolve(_:)``, resumed once: by the lookup or by its cancellation.
    private final class Waiting: Sendable {
        private let continuation = Mutex<CheckedContinuation<[String], Never>?>(nil)

        func set(_ continuation: CheckedContinuation<[String], Never>) { self.continuation.withLock { $0 = continuation } }

        func resume(returning addresses: [String]) { continuation.withLock { $0.take() }?.resume(returning: addresses) }
    }

    /// Four threads: a lookup that hangs (a DNS server that does not answer) holds one until the
    /// resolver gives up, and the others go on serving other endpoints' names.
    private static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 4)
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
