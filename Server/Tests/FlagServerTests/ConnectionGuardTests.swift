@testable import FlagServer
import Foundation
import NIOCore
import NIOPosix
import Testing

/// Requests are bounded where they are read: declared sizes, header sizes, pauses and idleness.
struct ConnectionGuardTests {
    /// Sends `bytes` on a new connection to `port` and reads until the server closes it.
    static func exchange(port: Int, sending bytes: String) async throws -> String {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            // The server may have closed the connection already (a timeout): then nothing is sent.
            if !bytes.isEmpty { try? await outbound.write(ByteBuffer(string: bytes)) }
            var received = ""
            // Ends when the server closes the connection: a connection left open hangs the test. A
            // server closing with bytes of ours unread resets the connection: the end as well.
            do {
                for try await buffer in inbound { received += String(buffer: buffer) }
            } catch let error as IOError where error.errnoCode == ECONNRESET {}
            return received
        }
    }

    @Test
    func aDeclaredBodyOverTheLimitIsRefused413BeforeItIsRead() async throws {
        try await TestServer.with { server in
            let reply = try await Self.exchange(
                port: server.port,
                sending: "POST /ofrep/v1/evaluate/flags HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\nab")
            #expect(reply.hasPrefix("HTTP/1.1 413"))
            #expect(reply.contains("larger than this server accepts"))
        }
    }

    @Test
    func aHeadOverTheLimitIsAnswered431AndClosed() async throws {
        var limits = ServerLimits()
        limits.maximumHeaderBytes = 1024
        try await TestServer.with(limits: limits) { server in
            let big = String(repeating: "a", count: 2 * 1024)
            let reply = try await Self.exchange(port: server.port, sending: "GET /health HTTP/1.1\r\nHost: x\r\nX-Big: \(big)\r\n\r\n")
            #expect(reply.hasPrefix("HTTP/1.1 431"))
        }
    }

    @Test
    func anIdleConnectionAndAStalledBodyAreClosed() async throws {
        var limits = ServerLimits()
        limits.idleTimeout = .milliseconds(200)
        limits.bodyTimeout = .milliseconds(200)
        try await TestServer.with(limits: limits) { server in
            // Nothing sent at all (an idle keep-alive, or headers that never end).
            #expect(try await Self.exchange(port: server.port, sending: "") == "")
            #expect(try await Self.exchange(port: server.port, sending: "GET /health HTTP/1.1\r\nHost: x\r\n") == "")
            // A body that stops after 2 of 10 bytes.
            let stalled = try await Self.exchange(
                port: server.port,
                sending: "POST /ofrep/v1/evaluate/flags HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab")
            #expect(!stalled.hasPrefix("HTTP/1.1 200"))
        }
    }
}
