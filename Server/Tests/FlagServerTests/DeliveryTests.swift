import AsyncHTTPClient
import FlagEvaluation
import FlagServer
import Foundation
import NIOCore
import NIOHTTP1
import Testing

struct DeliveryTests {
    @Test
    func appConfigServesNonTargetedValuesWithETagAndTTL() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout", targeting: #"{"if": [true, "off", null]}"#)
            try await server.booleanFlag("search", enabled: false)
            let created = try await server.request(
                .PUT, "/admin/v1/flags/cues.page_size", token: server.adminToken,
                body: #"{"type": "integer", "variants": {"small": 20, "large": 50}, "defaultVariant": "large"}"#)
            #expect(created.status == 200)
            _ = try await server.request(
                .PUT, "/admin/v1/environments/production/flags/cues.page_size/settings", token: server.adminToken,
                body: #"{"enabled": true, "defaultVariant": "large"}"#)
            let token = try await server.token(.client, environment: "production")
            let reply = try await server.request(.GET, "/rpc/app_config", token: token)
            #expect(reply.status == 200)
            #expect(reply.header("Content-Type") == "application/json")
            #expect(reply.json == [
                "schemaVersion": 1, "flags": ["checkout": true], "config": ["cues.page_size": 50], "ttlSeconds": 60,
            ])
            let etag = try #require(reply.header("ETag"))
            let cached = try await server.request(.GET, "/rpc/app_config", token: token, headers: [("If-None-Match", etag)])
            #expect(cached.status == 304)
            #expect(cached.body.isEmpty)
            let staging = try await server.token(.client, environment: "staging")
            let other = try await server.request(.GET, "/rpc/app_config", token: staging)
            #expect(other.json?["flags"] == [:])
        }
    }

    @Test
    func theFlagdFileLoadsInFlagEvaluationAndNeedsAServerToken() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout", targeting: #"{"fractional": [["on", 50], ["off", 50]]}"#)
            let client = try await server.token(.client, environment: "production")
            #expect(try await server.request(.GET, "/flagd/v1/flags.json", token: client).status == 403)
            let token = try await server.token(.server, environment: "production")
            let reply = try await server.request(.GET, "/flagd/v1/flags.json", token: token)
            #expect(reply.status == 200)
            let definitions = try FlagDefinitions.loadStrictly([FlagSource(name: "served", json: reply.body)])
            #expect(definitions.keys == ["checkout"])
            #expect(definitions["checkout"]?.hasTargeting == true)
            let etag = try #require(reply.header("ETag"))
            #expect(try await server.request(.GET, "/flagd/v1/flags.json", token: token, headers: [("If-None-Match", etag)]).status == 304)
        }
    }

    @Test
    func theEventStreamSendsAnEventPerRevisionAndResumesWithLastEventID() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout")  // production at revision 3
            let token = try await server.token(.client, environment: "production")

            var live = EventStreamReader(try await server.openStream(token: token))
            #expect(try await live.next(containing: "revision 3") != nil)
            try await server.booleanFlag("checkout", enabled: false)  // a settings write: revision 4
            #expect(try await live.nextEvent()?.id == "4")

            // A client that saw revision 3 is told to refetch at once, at the current revision.
            var behind = EventStreamReader(try await server.openStream(token: token, lastEventID: "3"))
            let missed = try await behind.nextEvent()
            #expect(missed?.id == "4")
            let data = try JSONValue(parsing: try #require(missed?.data))
            #expect(data["type"] == "refetchEvaluation")
            #expect(data["etag"] == "4")
            // OFREP ADR 0008: the revision's commit time, Unix seconds.
            let lastModified = try #require(data["lastModified"]?.intValue)
            #expect(abs(Double(lastModified) - Date().timeIntervalSince1970) < 600)

            // An up-to-date client gets only what comes next.
            var current = EventStreamReader(try await server.openStream(token: token, lastEventID: "4"))
            _ = try await server.request(
                .PUT, "/admin/v1/environments/production/flags/checkout/settings", token: server.adminToken,
                body: #"{"enabled": true, "defaultVariant": "off"}"#)
            #expect(try await current.nextEvent()?.id == "5")
            #expect(try await live.nextEvent()?.id == "5")
        }
    }

    /// An idle stream sends `: keep-alive` comments (every 50 ms here, 15 s by default), and the
    /// events still arrive between them.
    @Test
    func anIdleEventStreamSendsKeepAliveComments() async throws {
        try await TestServer.with(eventStreamKeepAlive: .milliseconds(50)) { server in
            try await server.booleanFlag("checkout")  // production at revision 3
            let token = try await server.token(.client, environment: "production")
            var stream = EventStreamReader(try await server.openStream(token: token))
            #expect(try await stream.next(containing: "revision 3") != nil)
            for _ in 0..<3 { #expect(try await stream.nextBlock() == ": keep-alive") }
            try await server.booleanFlag("checkout", enabled: false)
            #expect(try await stream.nextEvent()?.id == "4")
            #expect(try await stream.next(containing: ": keep-alive") == ": keep-alive")
        }
    }
}

extension TestServer {
    func openStream(token: String, lastEventID: String? = nil, headers: [(String, String)] = []) async throws -> HTTPClientResponse {
        try await Self.openStream(baseURL: baseURL, token: token, lastEventID: lastEventID, headers: headers)
    }

    /// Opens the event stream of the server at `baseURL` (a server or a relay).
    static func openStream(
        baseURL: String, token: String, lastEventID: String? = nil, headers: [(String, String)] = []
    ) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest(url: baseURL + "/ofrep/v1/events")
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        if let lastEventID { request.headers.add(name: "Last-Event-ID", value: lastEventID) }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, deadline: .distantFuture)
        guard response.status == .ok, response.headers.first(name: "Content-Type") == "text/event-stream" else {
            throw TestFailure("the event stream answered \(response.status)")
        }
        return response
    }
}

/// Reads server-sent events from a streaming response.
struct EventStreamReader {
    struct Event: Equatable {
        var id: String?
        var data: String?
    }

    private var iterator: HTTPClientResponse.Body.AsyncIterator
    private var buffer = ""

    init(_ response: HTTPClientResponse) {
        iterator = response.body.makeAsyncIterator()
    }

    /// The next block (text up to a blank line), or `nil` at the end of the stream.
    mutating func nextBlock() async throws -> String? {
        while true {
            if let range = buffer.range(of: "\n\n") {
                let block = String(buffer[..<range.lowerBound])
                buffer.removeSubrange(..<range.upperBound)
                return block
            }
            guard let chunk = try await iterator.next() else { return nil }
            buffer += String(buffer: chunk)
        }
    }

    /// The next block containing `text` (comments included).
    mutating func next(containing text: String) async throws -> String? {
        while let block = try await nextBlock() {
            if block.contains(text) { return block }
        }
        return nil
    }

    /// The next event (a block with fields), skipping comments.
    mutating func nextEvent() async throws -> Event? {
        while let block = try await nextBlock() {
            var event = Event()
            for line in block.split(separator: "\n") {
                if line.hasPrefix("id: ") { event.id = String(line.dropFirst(4)) }
                if line.hasPrefix("data: ") { event.data = String(line.dropFirst(6)) }
            }
            if event.id != nil || event.data != nil { return event }
        }
        return nil
    }
}
