import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// What an event carries so that a change does not become every client refetching at once:
/// the new entries of flags that answer the same to everyone, and the spread of refetches.
struct RefetchEventTests {
    /// The event of the next revision on `stream`, parsed.
    private func nextEventData(_ stream: inout EventStreamReader) async throws -> JSONValue {
        let event = try #require(try await stream.nextEvent())
        return try JSONValue(parsing: try #require(event.data))
    }

    /// The bulk answer's entry for `key`.
    private func bulkEntry(_ server: TestServer, token: String, key: String) async throws -> JSONValue? {
        let reply = try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: token, body: #"{"context": {"targetingKey": "u1"}}"#)
        guard case .array(let flags)? = reply.json?["flags"] else { return nil }
        return flags.first { $0["key"]?.stringValue == key }
    }

    @Test
    func aChangeToAnUntargetedFlagCarriesItsNewEntry() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout")  // production at revision 3
            try await server.booleanFlag("beta", targeting: #"{"if": [{"==": [{"var": "plan"}, "free"]}, "off", null]}"#)
            let token = try await server.token(.client, environment: "production")
            var stream = EventStreamReader(try await server.openStream(token: token))
            #expect(try await stream.next(containing: "revision 5") != nil)

            try await server.booleanFlag("checkout", enabled: false)
            let data = try await nextEventData(&stream)
            #expect(data["type"] == "refetchEvaluation")
            #expect(data["etag"] == "6")
            let changes = try #require(data["changes"])
            #expect(changes["since"] == "5")
            #expect(changes["removed"] == .array([]))
            // Exactly what the bulk answer now says for it, and nothing for the unchanged flags.
            let entry = try #require(try await bulkEntry(server, token: token, key: "checkout"))
            #expect(changes["flags"] == .array([entry]))
            #expect(entry["reason"] == "DISABLED")

            // Removed flags are named.
            _ = try await server.request(.DELETE, "/admin/v1/flags/checkout", token: server.adminToken)
            let removal = try await nextEventData(&stream)
            #expect(removal["changes"]?["since"] == "6")
            #expect(removal["changes"]?["removed"] == .array(["checkout"]))
            #expect(removal["changes"]?["flags"] == .array([]))
        }
    }

    @Test
    func aChangeToATargetedFlagAsksForARefetch() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("beta", targeting: #"{"if": [{"==": [{"var": "plan"}, "free"]}, "off", null]}"#)
            let token = try await server.token(.client, environment: "production")
            var stream = EventStreamReader(try await server.openStream(token: token))
            #expect(try await stream.next(containing: "revision 3") != nil)

            // Its answer depends on the context: no value fits every client.
            try await server.booleanFlag("beta", targeting: #"{"if": [{"==": [{"var": "plan"}, "pro"]}, "off", null]}"#)
            let data = try await nextEventData(&stream)
            #expect(data["etag"] == "4")
            #expect(data["changes"] == nil)

            // A new untargeted flag is sent inline (created, then turned on: two revisions); then
            // it takes a targeting rule.
            try await server.booleanFlag("checkout")
            #expect(try await nextEventData(&stream)["changes"] != nil)
            #expect(try await nextEventData(&stream)["changes"] != nil)
            try await server.booleanFlag("checkout", targeting: #"{"if": [true, "off", null]}"#)
            #expect(try await nextEventData(&stream)["changes"] == nil)
        }
    }

    @Test
    func theEventAdvertisesASpreadScaledWithTheOpenStreams() async throws {
        try await TestServer.with(delivery: DeliveryOptions(refetchesPerSecond: 4)) { server in
            try await server.booleanFlag("checkout")
            let token = try await server.token(.client, environment: "production")
            var first = EventStreamReader(try await server.openStream(token: token))
            var second = EventStreamReader(try await server.openStream(token: token))
            #expect(try await first.next(containing: "revision 3") != nil)
            #expect(try await second.next(containing: "revision 3") != nil)
            try await server.booleanFlag("checkout", enabled: false)
            // Two streams, four refetches a second: spread over half a second. Both streams get
            // the same event.
            let data = try await nextEventData(&first)
            #expect(data["refetchSpreadMs"] == 500)
            #expect(try await nextEventData(&second) == data)
        }
        try await TestServer.with(delivery: DeliveryOptions(refetchesPerSecond: 0)) { server in
            try await server.booleanFlag("checkout")
            let token = try await server.token(.client, environment: "production")
            var stream = EventStreamReader(try await server.openStream(token: token))
            #expect(try await stream.next(containing: "revision 3") != nil)
            try await server.booleanFlag("checkout", enabled: false)
            #expect(try await nextEventData(&stream)["refetchSpreadMs"] == nil)
        }
    }

    @Test
    func theSpreadIsCappedAtAMinute() {
        let spread = RevisionEvents.Spread(refetchesPerSecond: 5_000)
        #expect(spread.milliseconds(streams: 0) == 0)
        #expect(spread.milliseconds(streams: 1) == 1)
        #expect(spread.milliseconds(streams: 10_000) == 2_000)
        #expect(spread.milliseconds(streams: 200_000) == 40_000)
        #expect(spread.milliseconds(streams: 1_000_000) == 60_000)
        #expect(RevisionEvents.Spread(refetchesPerSecond: 0).milliseconds(streams: 10_000) == 0)
    }
}
