@testable import FlagServer
import Foundation
import Synchronization
import Testing

/// A client that comes back before the `Retry-After` it was told is held until then, its body
/// unread, and refused again; one that waits is answered at once.
struct RefusalHoldTests {
    /// A clock the test moves.
    final class TestClock: Sendable {
        let start = ContinuousClock.now
        private let offset = Mutex(Duration.zero)
        var now: ContinuousClock.Instant { start + offset.withLock { $0 } }
        func advance(by duration: Duration) { offset.withLock { $0 += duration } }
    }

    @Test
    func aClientIsHeldOnlyBeforeTheDeadlineItWasTold() {
        let clock = TestClock()
        let hold = RefusalHold(maximumHold: .seconds(60), clock: { clock.now })
        #expect(hold.hold("a") == nil)  // never told: answered at once
        hold.told("a", retryAfter: .seconds(5))
        clock.advance(by: .seconds(1))
        #expect(hold.hold("a") == clock.start + .seconds(5))
        #expect(hold.hold("b") == nil)  // another client is not held for a's deadline
        #expect(hold.held == 1)
        hold.release()
        #expect(hold.held == 0)
        clock.advance(by: .seconds(4))
        #expect(hold.hold("a") == nil)  // it waited: answered at once
        // Told again later: the later deadline counts.
        hold.told("a", retryAfter: .seconds(5))
        #expect(hold.hold("a") == clock.start + .seconds(10))
        // Never longer than the longest hold.
        let short = RefusalHold(maximumHold: .seconds(1), clock: { clock.now })
        short.told("a", retryAfter: .seconds(5))
        #expect(short.hold("a") == clock.now + .seconds(1))
    }

    @Test
    func heldRequestsAndKeptDeadlinesAreBounded() {
        let clock = TestClock()
        let hold = RefusalHold(maximumHeld: 2, maximumClients: 2, maximumHold: .seconds(60), clock: { clock.now })
        hold.told("a", retryAfter: .seconds(5))
        #expect(hold.hold("a") != nil)
        #expect(hold.hold("a") != nil)
        #expect(hold.hold("a") == nil)  // two held already: answered at once
        hold.release()
        #expect(hold.hold("a") != nil)
        hold.release()
        hold.release()
        hold.told("b", retryAfter: .seconds(5))
        hold.told("c", retryAfter: .seconds(5))  // no room: c's deadline is not kept
        #expect(hold.hold("c") == nil)
        clock.advance(by: .seconds(6))
        hold.told("c", retryAfter: .seconds(5))  // a's and b's expired and made room
        #expect(hold.hold("c") == clock.start + .seconds(11))
    }

    /// Over HTTP: a token whose uploads hold its whole budget is refused 429 before its body is
    /// read; its next request, sent at once, is answered no sooner than the `Retry-After` it was
    /// told (the old server answered it at once, and read and dropped its body).
    @Test
    func aRequestBeforeTheRetryAfterIsAnsweredWhenItEnds() async throws {
        var options = EventIngestionOptions()
        options.maximumBatchBytes = 16_000
        options.maximumQueuedBytes = 64_000
        // Room for two declared 16,000-byte uploads while the first holds 15,000 (admission
        // counts what a token holds plus what the new request declares), none for a third.
        options.maximumQueuedBytesPerToken = 32_000
        // These uploads are exposures; the token's health reserve is another test's.
        options.healthReserve = 0
        options.retryAfterSeconds = 1
        try await TestServer.with(eventStore: RecordingEventStore(), eventIngestion: options) { server in
            let token = try await server.token(.client, environment: "production")
            var connections: [RawConnection] = []
            defer { for connection in connections { connection.disconnect() } }
            // Two uploads that stall holding 15,000 bytes each: too much for a third's 16,000.
            for index in 0..<2 {
                let connection = try RawConnection(port: server.port)
                connections.append(connection)
                let body = EventIngestionBudgetTests.body(id: "slow-\(index)", bytes: 16_000)
                try connection.send(EventIngestionBudgetTests.head(token: token, length: 16_000) + String(body.prefix(15_000)))
                _ = await EventIngestionBudgetTests.waitForHeldBytes(atLeast: 15_000 * (index + 1), server)
            }
            // Heads alone: each is answered without its body.
            let sent = ContinuousClock.now
            var replies: [String] = []
            for _ in 0..<2 {
                let connection = try RawConnection(port: server.port)
                connections.append(connection)
                try connection.send(EventIngestionBudgetTests.head(token: token, length: 16_000))
                let reply = try await RawConnection.offPool { connection.read(until: "\r\n\r\n") }
                replies.append(reply ?? "closed")
            }
            let answered = ContinuousClock.now - sent
            for reply in replies {
                #expect(reply.hasPrefix("HTTP/1.1 429"), "\(reply)")
                #expect(reply.lowercased().contains("retry-after: 1"), "\(reply)")
            }
            // The second came before the first's Retry-After (told after `sent`): it was held
            // at least until then.
            #expect(answered >= .seconds(1), "answered after \(answered)")
            #expect(server.server.ingestion?.queue.refusals.held == 0)
        }
    }

    /// A held request is answered within the connection's body pause, whatever the client sent of
    /// its body: the hold is at most an eighth of `bodyTimeout` (27e05b9 held it 1 s whatever the
    /// pause, so a connection allowing 900 ms between two pieces was closed before the answer) and
    /// it holds none of the budget.
    @Test
    func aHeldRequestIsAnsweredWithinTheConnectionsBodyPause() async throws {
        var limits = ServerLimits.forTests
        limits.bodyTimeout = .milliseconds(900)
        var options = EventIngestionOptions()
        options.maximumBatchBytes = 16_000
        options.maximumQueuedBytesPerToken = 10_000  // a declared 16,000 never fits
        options.retryAfterSeconds = 60
        try await TestServer.with(limits: limits, eventStore: RecordingEventStore(), eventIngestion: options) { server in
            let token = try await server.token(.client, environment: "production")
            let body = EventIngestionBudgetTests.body(id: "early", bytes: 16_000)
            var replies: [String] = []
            // The first is told to come back in 60 s; the second comes at once, with part of its
            // body and then nothing, as a client waiting for its answer would.
            for _ in 0..<2 {
                let connection = try RawConnection(port: server.port)
                defer { connection.disconnect() }
                try connection.send(EventIngestionBudgetTests.head(token: token, length: 16_000) + String(body.prefix(1_000)))
                let reply = try await RawConnection.offPool { connection.read(until: "\r\n\r\n") }
                replies.append(reply ?? "closed")
            }
            for reply in replies {
                #expect(reply.hasPrefix("HTTP/1.1 429"), "\(reply)")
                #expect(reply.lowercased().contains("retry-after: 60"), "\(reply)")
            }
            #expect(EventIngestionBudgetTests.heldBytes(server) == 0)
            #expect(server.server.ingestion?.queue.refusals.held == 0)
        }
    }

    @Test
    func theHoldIsBoundedByWhatItsCallerAllows() {
        let clock = TestClock()
        let hold = RefusalHold(maximumHold: .seconds(1), clock: { clock.now })
        hold.told("a", retryAfter: .seconds(5))
        #expect(hold.hold("a", atMost: .milliseconds(200)) == clock.now + .milliseconds(200))
        #expect(hold.hold("a", atMost: .seconds(3)) == clock.now + .seconds(1))
        #expect(hold.hold("a", atMost: .zero) == nil)  // no room for a hold: answered at once
        #expect(hold.held == 2)
    }

    /// A request whose declared `Content-Length` would take its token past its budget is refused
    /// 429 at once, before any of its body is sent (the old server admitted it, waited for the
    /// body, and read it up to the budget first).
    @Test
    func aDeclaredLengthPastTheTokensBudgetIsRefusedBeforeTheBody() async throws {
        var options = EventIngestionOptions()
        options.maximumBatchBytes = 16_000
        options.maximumQueuedBytes = 64_000
        options.maximumQueuedBytesPerToken = 30_000
        options.bodyReadTimeout = .seconds(2)
        try await TestServer.with(eventStore: RecordingEventStore(), eventIngestion: options) { server in
            let token = try await server.token(.client, environment: "production")
            let slow = try RawConnection(port: server.port)
            defer { slow.disconnect() }
            let body = EventIngestionBudgetTests.body(id: "slow", bytes: 16_000)
            try slow.send(EventIngestionBudgetTests.head(token: token, length: 16_000) + String(body.prefix(15_000)))
            _ = await EventIngestionBudgetTests.waitForHeldBytes(atLeast: 15_000, server)
            // 15,000 held and 16,000 declared: more than the token's 30,000.
            let connection = try RawConnection(port: server.port)
            defer { connection.disconnect() }
            try connection.send(EventIngestionBudgetTests.head(token: token, length: 16_000))
            let reply = try await RawConnection.offPool { connection.read(until: "\r\n\r\n") }
            #expect(reply?.hasPrefix("HTTP/1.1 429") == true, "\(reply ?? "closed")")
            #expect(EventIngestionBudgetTests.heldBytes(server) == 15_000)
        }
    }
}
