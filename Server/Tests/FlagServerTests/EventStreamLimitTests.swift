import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// Event streams are capped per token and per process, with a clear refusal.
struct EventStreamLimitTests {
    @Test
    func theHubRefusesStreamsPastEachCapAndFreesThemWhenTheyEnd() throws {
        let hub = EventHub(maximumStreams: 3, maximumStreamsPerOwner: 2)
        let streams = [try hub.subscribe(environment: "production", owner: "a"), try hub.subscribe(environment: "production", owner: "a")]
        #expect(throws: EventHub.Refusal(perOwner: true, limit: 2)) { try hub.subscribe(environment: "production", owner: "a") }
        let other = try hub.subscribe(environment: "production", owner: "b")
        #expect(throws: EventHub.Refusal(perOwner: false, limit: 3)) { try hub.subscribe(environment: "staging", owner: "c") }
        hub.finishAll()
        #expect(hub.subscriberCount == 0)
        _ = try hub.subscribe(environment: "production", owner: "a")
        _ = (streams, other)
    }

    @Test
    func theHubSendsRevisionsToTheirEnvironmentAndKeepAlivesToEveryStream() async throws {
        let hub = EventHub()
        let production = try hub.subscribe(environment: "production", owner: "a")
        let staging = try hub.subscribe(environment: "staging", owner: "a")
        hub.publish(environment: "production", revision: 2)
        hub.sendKeepAlive()
        hub.publish(environment: "production", revision: 3)
        hub.finishAll()
        #expect(await production.reduce(into: []) { $0.append($1) } == [.revision(2), .keepAlive, .revision(3)])
        #expect(await staging.reduce(into: []) { $0.append($1) } == [.keepAlive])
    }

    @Test
    func aStreamItsConsumerDropsFreesItsPlaceAtOnce() throws {
        let hub = EventHub(maximumStreams: 1, maximumStreamsPerOwner: 1)
        _ = try hub.subscribe(environment: "production", owner: "a")
        #expect(hub.subscriberCount == 0)
        let kept = try hub.subscribe(environment: "production", owner: "a")
        #expect(throws: EventHub.Refusal(perOwner: false, limit: 1)) { try hub.subscribe(environment: "staging", owner: "b") }
        _ = kept
    }

    /// Hummingbird shuts its server down before the application's services and waits for open
    /// requests: each stream must end itself when the graceful shutdown begins (with only the
    /// service ending them, this shutdown never finished).
    @Test
    func aGracefulShutdownEndsTheOpenStreams() async throws {
        let stream = try await TestServer.with { server in
            let (token, _) = try await server.server.admin.createToken(name: "streams", environment: "production", role: .client)
            let port = server.port
            return try await RawConnection.offPool {
                let connection = try RawConnection(port: port)
                try connection.send("GET /ofrep/v1/events HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer \(token)\r\n\r\n")
                _ = connection.read(until: "retry: 2000\n\n")
                return connection
            }
        }
        // The shutdown finished; the stream ended with the last chunk.
        let rest = try await RawConnection.offPool { stream.read(until: "0\r\n\r\n") }
        #expect(rest?.hasSuffix("0\r\n\r\n") == true, "\(rest ?? "nothing")")
    }

    @Test
    func aStreamPastTheTokensCapIs429AndPastTheProcesssCapIs503WithRetryAfter() async throws {
        var perToken = ServerLimits()
        perToken.maximumEventStreamsPerToken = 0
        try await TestServer.with(limits: perToken) { server in
            let token = try await server.token(.client, environment: "production")
            let reply = try await server.request(.GET, "/ofrep/v1/events", token: token)
            #expect(reply.status == 429)
            #expect(reply.header("Retry-After") == "30")
            #expect(reply.json?["error"]?["code"]?.stringValue == "too_many_streams")
        }
        var total = ServerLimits()
        total.maximumEventStreams = 0
        try await TestServer.with(limits: total) { server in
            let token = try await server.token(.client, environment: "production")
            let reply = try await server.request(.GET, "/ofrep/v1/events", token: token)
            #expect(reply.status == 503)
            #expect(reply.header("Retry-After") == "30")
        }
    }
}
