import AsyncHTTPClient
import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// A browser's `EventSource` follows the stream with a single-use, short-lived ticket from an
/// authenticated `POST`, never with the token in the URL.
struct StreamTicketTests {
    static let record = TokenRecord(id: "abc", name: "web", environment: "production", role: .client, digest: "", createdAt: Date())

    @Test
    func aTicketIsStoredHashedRedeemsOnceAndExpires() throws {
        let clock = ManualSeconds()
        let tickets = StreamTickets(lifetime: 60, now: { clock.value })
        let ticket = try #require(tickets.issue(for: Self.record))
        #expect(ticket.hasPrefix("fst_") && ticket.count == 68)
        #expect(tickets.storedKeys == [StreamTickets.digest(of: ticket)])
        #expect(!tickets.storedKeys.contains(ticket))
        #expect(tickets.redeem(ticket)! == ("abc", "production"))
        #expect(tickets.redeem(ticket) == nil)  // once

        let late = try #require(tickets.issue(for: Self.record))
        clock.advance(by: 60)
        #expect(tickets.redeem(late) == nil)
        #expect(tickets.redeem("fst_" + String(repeating: "0", count: 64)) == nil)
    }

    @Test
    func outstandingTicketsAreBoundedAndExpiredOnesMakeRoom() throws {
        let clock = ManualSeconds()
        let tickets = StreamTickets(lifetime: 60, capacity: 2, now: { clock.value })
        #expect(tickets.issue(for: Self.record) != nil)
        #expect(tickets.issue(for: Self.record) != nil)
        #expect(tickets.issue(for: Self.record) == nil)
        clock.advance(by: 61)
        #expect(tickets.issue(for: Self.record) != nil)
    }

    @Test
    func aTicketOpensOneStreamOfItsTokensEnvironment() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout")  // production at revision 3
            let token = try await server.token(.client, environment: "production")
            let issued = try await server.request(
                .POST, "/ofrep/v1/events/tickets", token: token, headers: [("Origin", "https://app.example")])
            #expect(issued.status == 201)
            #expect(issued.header("Cache-Control") == "no-store")
            let ticket = try #require(issued.json?["ticket"]?.stringValue)
            let path = try #require(issued.json?["eventStream"]?.stringValue)
            #expect(path == "/ofrep/v1/events?ticket=\(ticket)")
            #expect(!path.contains(token))

            // What an EventSource sends: no Authorization, an Origin.
            var request = HTTPClientRequest(url: server.baseURL + path)
            request.headers.add(name: "Origin", value: "https://app.example")
            let response = try await HTTPClient.shared.execute(request, deadline: .distantFuture)
            #expect(response.status == .ok)
            #expect(response.headers.first(name: "Access-Control-Allow-Origin") == "*")
            var stream = EventStreamReader(response)
            #expect(try await stream.next(containing: "environment production at revision 3") != nil)
            try await server.booleanFlag("checkout", enabled: false)
            #expect(try await stream.nextEvent()?.id == "4")

            let again = try await server.request(.GET, path)
            #expect(again.status == 401)
            #expect(again.json?["error"]?["message"]?.stringValue?.contains("POST /ofrep/v1/events/tickets") == true)
        }
    }

    @Test
    func ticketsNeedADeliveryTokenAndDieWithIt() async throws {
        try await TestServer.with { server in
            #expect(try await server.request(.POST, "/ofrep/v1/events/tickets").status == 401)
            // The first admin token is for every environment: no stream of its own.
            #expect(try await server.request(.POST, "/ofrep/v1/events/tickets", token: server.adminToken).status == 403)
            let token = try await server.token(.client, environment: "staging")
            let ticket = try #require(try await server.request(.POST, "/ofrep/v1/events/tickets", token: token).json?["ticket"]?.stringValue)
            let id = String(token.split(separator: "_")[1])
            #expect(try await server.request(.DELETE, "/admin/v1/tokens/\(id)", token: server.adminToken).status == 204)
            #expect(try await server.request(.GET, "/ofrep/v1/events?ticket=\(ticket)").status == 401)
        }
    }
}
