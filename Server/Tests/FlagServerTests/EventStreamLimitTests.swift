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
