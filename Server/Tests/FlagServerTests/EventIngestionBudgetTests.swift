import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// The ingestion byte budget under slow uploads: a body holds its bytes as they arrive (not the
/// `Content-Length` it declares), one token's requests hold at most their share, and a body that
/// does not arrive in time is answered 408 with its bytes given back.
struct EventIngestionBudgetTests {
    /// A valid batch body of exactly `bytes` bytes (padded with a member the format ignores).
    static func body(id: String, bytes: Int) -> String {
        let plain = EventIngestionTests.body(id: id) { $0["padding"] = "" }
        precondition(plain.utf8.count <= bytes, "a batch takes \(plain.utf8.count) bytes")
        return EventIngestionTests.body(id: id) { $0["padding"] = .string(String(repeating: "x", count: bytes - plain.utf8.count)) }
    }

    /// The head of an ingestion request declaring `length` body bytes.
    static func head(token: String, length: Int) -> String {
        "POST /ofrep/v1/ingestion HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(length)\r\n\r\n"
    }

    /// The body bytes the queue holds.
    static func heldBytes(_ server: TestServer) -> Int { server.server.ingestion?.queue.load.bytes ?? -1 }

    /// Waits until the queue holds at least `bytes` body bytes, and returns what it holds.
    static func waitForHeldBytes(atLeast bytes: Int, _ server: TestServer) async -> Int {
        while heldBytes(server) < bytes { await Task.yield() }
        return heldBytes(server)
    }

    /// Waits until the queue holds at most `bytes` body bytes, and returns what it holds.
    static func waitForHeldBytes(atMost bytes: Int, _ server: TestServer) async -> Int {
        while heldBytes(server) > bytes { await Task.yield() }
        return heldBytes(server)
    }

    @Test
    func theQueueHoldsBytesPerTokenAndGivesThemBack() throws {
        var options = EventIngestionOptions()
        options.maximumQueuedBytes = 100
        options.maximumQueuedBytesPerToken = 60
        options.healthReserve = 0
        let queue = EventIngestionQueue(store: RecordingEventStore(), options: options)
        var first = try queue.admit(token: "a").get()
        #expect(first.bytes == 0)
        #expect(queue.hold(50, in: &first) == nil)
        // Past a's share; nothing more held.
        var second = try queue.admit(token: "a").get()
        #expect(queue.hold(11, in: &second) == .tokenBytes)
        #expect(second.bytes == 0)
        #expect(queue.hold(10, in: &second) == nil)
        // a holds its whole share: its next request is not admitted, b's is.
        #expect(throws: EventIngestionQueue.Refusal.tokenBytes) { try queue.admit(token: "a").get() }
        var other = try queue.admit(token: "b").get()
        #expect(queue.hold(41, in: &other) == .bytes)
        #expect(queue.hold(40, in: &other) == nil)
        #expect(queue.load.bytes == 100)
        #expect(throws: EventIngestionQueue.Refusal.bytes) { try queue.admit(token: "c").get() }
        queue.release(first)
        queue.release(second)
        #expect(queue.bytes(of: "a") == 0)
        #expect(queue.bytes(of: "b") == 40)
        queue.release(other)
        #expect(queue.load.bytes == 0)
    }

    @Test
    func serveReadsTheBodyTimeoutAndTheTokenBudget() throws {
        let server = try ServerConfiguration(dataDirectory: "/var/lib/flags", environment: [:])
        let defaults = try EventStorageConfiguration(server: server, environment: [:]).ingestion
        #expect(defaults.bodyReadTimeout == .seconds(30))
        #expect(defaults.maximumQueuedBytesPerToken == 8 * 1024 * 1024)
        let given = try EventStorageConfiguration(
            bodyTimeoutSeconds: 5, server: server,
            environment: ["FLAG_SERVER_EVENTS_BODY_TIMEOUT": "60", "FLAG_SERVER_EVENTS_TOKEN_BUDGET_MIB": "4"]).ingestion
        #expect(given.bodyReadTimeout == .seconds(5))
        #expect(given.maximumQueuedBytesPerToken == 4 * 1024 * 1024)
        let whole = try #require(throws: ConfigurationError.self) {
            try EventStorageConfiguration(tokenBudgetMiB: 32, server: server, environment: [:])
        }
        #expect(whole.description.contains("--events-token-budget-mib must be in 1…31, got 32"))
        #expect(throws: ConfigurationError.self) {
            try EventStorageConfiguration(server: server, environment: ["FLAG_SERVER_EVENTS_BODY_TIMEOUT": "0"])
        }
    }

    /// Eight uploads of one token that stall partway (as many slow clients would) cannot take the
    /// budget from another token: past its share the token is refused 429, and the other
    /// environment's batch, and another token's of the same environment, are stored.
    @Test
    func slowUploadsOfOneTokenDoNotFailAnotherTokensUpload() async throws {
        let store = RecordingEventStore()
        var options = EventIngestionOptions()
        options.maximumBatchBytes = 16_000
        options.maximumQueuedBytes = 64_000
        options.maximumQueuedBytesPerToken = 30_000
        // These uploads are exposures; the token's health reserve is another test's.
        options.healthReserve = 0
        // The stalled uploads wait for the steps below; on a busy machine those took longer than
        // the default 10 s pause allowed in a body (the body timeout has tests of its own).
        var limits = ServerLimits.forTests
        limits.bodyTimeout = .seconds(600)
        try await TestServer.with(limits: limits, eventStore: store, eventIngestion: options) { server in
            let slow = try await server.token(.client, environment: "production", name: "shipped-in-the-app")
            var connections: [RawConnection] = []
            defer { for connection in connections { connection.disconnect() } }
            var bodies: [String] = []
            for index in 0..<8 {
                let body = Self.body(id: "slow-\(index)", bytes: 16_000)
                bodies.append(body)
                let connection = try RawConnection(port: server.port)
                connections.append(connection)
                // 12,000 of the 16,000 bytes, then nothing more for now.
                try connection.send(Self.head(token: slow, length: 16_000) + String(body.prefix(12_000)))
                if index < 2 {
                    // Held as it arrived: 12,000 bytes, not the 16,000 declared.
                    #expect(await Self.waitForHeldBytes(atLeast: 12_000 * (index + 1), server) == 12_000 * (index + 1))
                }
            }
            // The six past the share are sent together and answered together: coming back before
            // the Retry-After of the first refused, the others may be held (RefusalHold), side by
            // side. Read one by one, each hold would add its second to the pause of the two
            // stalled uploads, and under load that passed the connection's 10 s body pause.
            for connection in connections[2...] {
                let reply = try await RawConnection.offPool { connection.read(until: "\r\n\r\n") }
                #expect(reply?.hasPrefix("HTTP/1.1 429") == true, "\(reply ?? "closed")")
                #expect(reply?.lowercased().contains("retry-after: 5") == true, "\(reply ?? "closed")")
            }
            #expect(server.server.ingestion?.queue.load.bytes == 24_000)
            let staging = try await server.token(.client, environment: "staging")
            let other = try await EventIngestionTests.ingest(server, EventIngestionTests.body(id: "other-environment"), token: staging)
            #expect(other.status == 202, "\(other.body)")
            let sibling = try await server.token(.client, environment: "production", name: "server-side")
            let same = try await EventIngestionTests.ingest(server, EventIngestionTests.body(id: "same-environment"), token: sibling)
            #expect(same.status == 202, "\(same.body)")
            // A slow upload still completes, and then holds nothing.
            let first = connections[0]
            try first.send(String(bodies[0].dropFirst(12_000)))
            let finished = try await RawConnection.offPool { first.read(until: "\r\n\r\n") }
            #expect(finished?.hasPrefix("HTTP/1.1 202") == true, "\(finished ?? "closed")")
            #expect(await Self.waitForHeldBytes(atMost: 12_000, server) == 12_000)
            // One that hangs up gives its bytes back.
            connections[1].disconnect()
            #expect(await Self.waitForHeldBytes(atMost: 0, server) == 0)
            #expect(Set(await store.stored.map(\.id)) == ["other-environment", "same-environment", "slow-0"])
        }
    }

    /// A body that stops arriving is answered 408 once the deadline passes; what it held is given
    /// back before the answer, and the connection is closed (what the client sends next is not
    /// read as a request).
    @Test
    func aStalledBodyIsAnswered408AndGivesItsBytesBack() async throws {
        let store = RecordingEventStore()
        var options = EventIngestionOptions()
        options.bodyReadTimeout = .milliseconds(200)
        try await TestServer.with(eventStore: store, eventIngestion: options) { server in
            let token = try await server.token(.client, environment: "production")
            let body = Self.body(id: "stalled", bytes: 2_000)
            let connection = try RawConnection(port: server.port)
            defer { connection.disconnect() }
            try connection.send(Self.head(token: token, length: 2_000) + String(body.prefix(500)))
            let reply = try await RawConnection.offPool { connection.read(until: "}}") }
            #expect(reply?.hasPrefix("HTTP/1.1 408") == true, "\(reply ?? "closed")")
            #expect(reply?.contains(#""code":"timeout""#) == true, "\(reply ?? "closed")")
            #expect(reply?.contains("within 200 ms") == true, "\(reply ?? "closed")")
            #expect(server.server.ingestion?.queue.load.bytes == 0)
            // The rest of the body and a second request: the server closed the connection, so
            // neither is read (a server still reading would answer the second).
            try? connection.send(String(body.dropFirst(500)) + "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let after = try await RawConnection.offPool { connection.read(until: "HTTP/1.1 200") }
            #expect(after?.contains("HTTP/1.1 200") != true, "\(after ?? "closed")")
            #expect(await store.calls.isEmpty)
            let metrics = try await server.request(.GET, "/metrics").body
            #expect(metrics.contains(#"flag_server_event_batches_refused_total{reason="timed_out"} 1"#))
        }
    }
}
