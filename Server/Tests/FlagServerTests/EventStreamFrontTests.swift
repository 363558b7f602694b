@testable import FlagServer
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing

/// The front takes a stream over from the route, ends the connection's Hummingbird loop, and then
/// writes the hub's events itself.
struct EventStreamFrontTests {
    /// Records what reaches the end of the pipeline, where Hummingbird's connection loop reads.
    final class LoopEnd: ChannelInboundHandler {
        typealias InboundIn = HTTPRequestPart
        var heads: [HTTPRequest] = []
        var errors: [any Error] = []

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if case .head(let head) = unwrapInboundIn(data) { heads.append(head) }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) { errors.append(error) }
    }

    struct Stream {
        let channel: EmbeddedChannel
        let loopEnd: LoopEnd
        let hub: EventHub

        init(hub: EventHub = EventHub()) throws {
            self.hub = hub
            loopEnd = LoopEnd()
            channel = EmbeddedChannel()
            try channel.pipeline.syncOperations.addHandlers([EventStreamFront(events: hub), loopEnd])
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        }

        /// A request opening a stream, through the front: the handoff it offers.
        func request() throws -> StreamHandoff {
            try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "x", path: "/ofrep/v1/events")))
            let offer = try #require(loopEnd.heads.last?.headerFields[.flagServerStreamFront].flatMap { Int($0) })
            return try #require(hub.take(offer: offer) as? StreamHandoff)
        }

        /// What the route does with the offered handoff: subscribes it, opens it at `revision`,
        /// and answers with the handoff field, the stream's first lines and the response's end.
        func answer(opened revision: Int, end: Bool = true) throws {
            let handoff = try request()
            let subscription = try hub.subscribe(environment: "production", owner: "a", sink: handoff)
            handoff.open(subscription, at: revision) { ByteBuffer(string: "event \($0)\n\n") }
            try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok, headerFields: [
                .contentType: "text/event-stream", .flagServerStreamHandoff: "1",
            ])))
            try channel.writeOutbound(HTTPResponsePart.body(ByteBuffer(string: ": opened\n\n")))
            if end { try channel.writeOutbound(HTTPResponsePart.end(nil)) }
        }

        /// The parts written to the connection, as text.
        func written() throws -> [String] {
            var parts: [String] = []
            while let part = try channel.readOutbound(as: HTTPResponsePart.self) {
                switch part {
                case .head(let head): parts.append("head \(head.status.code) \(head.headerFields[.flagServerStreamHandoff] ?? "-")")
                case .body(let buffer): parts.append(String(buffer: buffer))
                case .end: parts.append("end")
                }
            }
            return parts
        }
    }

    @Test
    func onlyARequestOpeningAStreamCarriesTheMarkAndAClientsOwnIsRemoved() throws {
        let stream = try Stream()
        let forgedOffer = 999_999  // an offer a client would like to name
        for (method, path) in [(HTTPRequest.Method.get, "/health"), (.post, "/ofrep/v1/events"), (.get, "/ofrep/v1/events")] {
            var head = HTTPRequest(method: method, scheme: nil, authority: "x", path: path)
            head.headerFields[.flagServerStreamFront] = String(forgedOffer)
            try stream.channel.writeInbound(HTTPRequestPart.head(head))
        }
        let marks = stream.loopEnd.heads.map { $0.headerFields[.flagServerStreamFront] }
        #expect(marks.prefix(2) == [nil, nil])
        let offer = try #require(marks.last?.flatMap { Int($0) })
        #expect(offer != forgedOffer)
        #expect(stream.hub.take(offer: offer) is StreamHandoff)
    }

    @Test
    func theFrontTakesTheStreamAtTheResponsesEndAndEndsTheLoop() throws {
        let stream = try Stream()
        try stream.answer(opened: 4)
        // The head loses the handoff field; the end is kept from the connection (a stream has none).
        #expect(try stream.written() == ["head 200 -", ": opened\n\n"])
        // Hummingbird's loop reads an error and ends; the close it sends then is ignored, once.
        #expect(stream.loopEnd.errors.count == 1)
        #expect(stream.loopEnd.errors.first is EventStreamFront.HandedOff)
        stream.channel.close(mode: .output, promise: nil)
        try stream.channel.close().wait()
        #expect(stream.channel.isActive)

        // Later revisions are written from the event loop; the one the client has and older ones are not.
        stream.hub.publish(environment: "production", revision: 4)
        stream.hub.publish(environment: "production", revision: 5)
        stream.hub.publish(environment: "staging", revision: 9)
        stream.hub.sendKeepAlive()
        stream.channel.embeddedEventLoop.run()
        #expect(try stream.written() == ["event 5\n\n", ": keep-alive\n\n"])

        // What the client sends is dropped.
        try stream.channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "x", path: "/health")))
        #expect(stream.loopEnd.heads.count == 1)
    }

    @Test
    func revisionsSentBeforeTheFrontHasTheStreamAreWrittenWhenItDoes() throws {
        let stream = try Stream()
        try stream.answer(opened: 2, end: false)
        stream.hub.publish(environment: "production", revision: 3)
        stream.hub.publish(environment: "production", revision: 4)
        stream.hub.sendKeepAlive()
        stream.channel.embeddedEventLoop.run()
        #expect(try stream.written() == ["head 200 -", ": opened\n\n"])
        try stream.channel.writeOutbound(HTTPResponsePart.end(nil))
        #expect(try stream.written() == ["event 4\n\n"])
    }

    @Test
    func aConnectionThatIsNotWritableGetsOnlyTheNewestRevisionWhenItIs() throws {
        let stream = try Stream()
        try stream.answer(opened: 1)
        _ = try stream.written()
        stream.channel.isWritable = false
        stream.hub.publish(environment: "production", revision: 2)
        stream.hub.sendKeepAlive()
        stream.hub.publish(environment: "production", revision: 3)
        stream.channel.embeddedEventLoop.run()
        #expect(try stream.written() == [])
        stream.channel.isWritable = true
        stream.channel.pipeline.fireChannelWritabilityChanged()
        #expect(try stream.written() == ["event 3\n\n"])
    }

    @Test
    func theHubFinishingOrAGracefulShutdownEndsTheStreamWithItsLastChunk() throws {
        for ending in ["hub", "shutdown"] {
            let stream = try Stream()
            try stream.answer(opened: 1)
            _ = try stream.written()
            if ending == "hub" {
                stream.hub.finishAll()
                stream.channel.embeddedEventLoop.run()
            } else {
                stream.channel.pipeline.fireUserInboundEventTriggered(EndEventStream())
            }
            #expect(try stream.written() == ["end"], "\(ending)")
            #expect(!stream.channel.isActive, "\(ending)")
            #expect(stream.hub.subscriberCount == 0, "\(ending)")
        }
    }

    @Test
    func aStreamLeavesTheHubWhenItsConnectionCloses() throws {
        let stream = try Stream()
        try stream.answer(opened: 1)
        #expect(stream.hub.subscriberCount == 1)
        stream.channel.pipeline.fireChannelInactive()
        #expect(stream.hub.subscriberCount == 0)
    }

    /// A stream request the route refused (here: it never took the offer) leaves nothing behind,
    /// and the connection serves its next request.
    @Test
    func aRefusedStreamRequestLeavesNoOfferAndTheConnectionServesOn() throws {
        let stream = try Stream()
        try stream.channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "x", path: "/ofrep/v1/events")))
        let offer = try #require(stream.loopEnd.heads.last?.headerFields[.flagServerStreamFront].flatMap { Int($0) })
        try stream.channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .unauthorized)))
        try stream.channel.writeOutbound(HTTPResponsePart.end(nil))
        #expect(try stream.written() == ["head 401 -", "end"])
        #expect(stream.hub.take(offer: offer) == nil)
        try stream.answer(opened: 1)
        #expect(try stream.written() == ["head 200 -", ": opened\n\n"])
    }

    /// A stream request waiting for a place among the set-ups (``StreamOpenings``) is not closed
    /// by Hummingbird's connection-state handler for idleness, however long it waits: the handler
    /// read its head and end, so it counts a response in progress. Once it goes on and its stream
    /// is open, it is not closed either, and gets its events.
    @Test
    func aStreamWaitingForItsOpeningOrOpenIsNotClosedForIdleness() throws {
        let openings = StreamOpenings(limit: 1)
        #expect(openings.enter {} == .admitted)  // another stream's set-up holds the one place
        let hub = EventHub()
        let loopEnd = LoopEnd()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([
            HTTPConnectionStateHandler(idleTimeout: .milliseconds(200), logger: Logger(label: "test")),
            EventStreamFront(events: hub, openings: openings), loopEnd,
        ])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "x", path: "/ofrep/v1/events")))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(loopEnd.heads.isEmpty)
        #expect(openings.counts.waiting == 1)
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))  // 25 idle timeouts
        #expect(channel.isActive)
        openings.leave()
        channel.embeddedEventLoop.run()
        let offer = try #require(loopEnd.heads.first?.headerFields[.flagServerStreamFront].flatMap { Int($0) })
        let handoff = try #require(hub.take(offer: offer) as? StreamHandoff)
        handoff.open(try hub.subscribe(environment: "production", owner: "a", sink: handoff), at: 1) { ByteBuffer(string: "event \($0)\n\n") }
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok, headerFields: [.flagServerStreamHandoff: "1"])))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        #expect(openings.counts.active == 0)  // its set-up is over: its place is free
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        #expect(channel.isActive)
        hub.publish(environment: "production", revision: 2)
        channel.embeddedEventLoop.run()
        var bodies: [String] = []
        while let part = try channel.readOutbound(as: HTTPResponsePart.self) {
            if case .body(let buffer) = part { bodies.append(String(buffer: buffer)) }
        }
        #expect(bodies == ["event 2\n\n"])
    }

    /// A response without the handoff field (any other route's) passes untouched, its end too.
    @Test
    func otherResponsesPass() throws {
        let stream = try Stream()
        try stream.channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        try stream.channel.writeOutbound(HTTPResponsePart.end(nil))
        #expect(try stream.written() == ["head 200 -", "end"])
        #expect(stream.loopEnd.errors.isEmpty)
    }
}

/// The front on a running server.
struct EventStreamFrontServerTests {
    /// The stream's response never ends for Hummingbird's connection-state handler, so its idle
    /// timeout does not close a stream that has nothing to say.
    ///
    /// Every request goes on a connection of its own, its head sent as the connection opens: with
    /// a 200 ms idle timeout, a pooled client (AsyncHTTPClient) that reuses a keep-alive
    /// connection, or sends its request late on a loaded machine, races the server's close of an
    /// idle connection and fails with "I/O on closed channel", which is no fault of the stream.
    @Test
    func aStreamOutlivesTheIdleTimeoutAndStillGetsEvents() async throws {
        var limits = ServerLimits.forTests
        limits.idleTimeout = .milliseconds(200)
        try await TestServer.with(limits: limits, eventStreamKeepAlive: .seconds(3600)) { server in
            let flag = #"{"type": "boolean", "variants": {"on": true, "off": false}, "defaultVariant": "off"}"#
            #expect(try await Self.send(server, "PUT", "/admin/v1/flags/checkout", body: flag).hasPrefix("HTTP/1.1 200"))
            let settings = "/admin/v1/environments/production/flags/checkout/settings"
            #expect(try await Self.send(server, "PUT", settings, body: #"{"enabled": true, "defaultVariant": "on"}"#).hasPrefix("HTTP/1.1 200"))
            let created = try await Self.send(
                server, "POST", "/admin/v1/tokens", body: #"{"name": "test", "environment": "production", "role": "client"}"#)
            let token = try #require(created.firstMatch(of: /"token":"([^"]+)"/)?.1).description
            let stream = try RawConnection(port: server.port)
            defer { stream.disconnect() }
            try stream.send("GET /ofrep/v1/events HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer \(token)\r\n\r\n")
            let opened = try await RawConnection.offPool { stream.read(until: "retry: 2000\n\n") }
            #expect(opened?.contains("at revision 3") == true, "\(opened ?? "closed")")
            try await Task.sleep(for: .milliseconds(800))  // four idle timeouts
            #expect(try await Self.send(server, "PUT", settings, body: #"{"enabled": false, "defaultVariant": "on"}"#).hasPrefix("HTTP/1.1 200"))
            let event = try await RawConnection.offPool { stream.read(until: "id: 4\n") }
            #expect(event?.hasSuffix("id: 4\n") == true, "\(event ?? "closed")")
        }
    }

    /// Sends one admin request on a connection of its own and returns the whole answer.
    static func send(_ server: TestServer, _ method: String, _ path: String, body: String) async throws -> String {
        let port = server.port, token = server.adminToken
        return try await RawConnection.offPool {
            let connection = try RawConnection(port: port)
            defer { connection.disconnect() }
            try connection.send(
                "\(method) \(path) HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            return connection.read(until: "\u{0}") ?? "closed"  // all of it: the server closes after the answer
        }
    }

    /// A client that goes away frees its place in the hub (and under the caps) at once.
    @Test
    func aClosedStreamLeavesTheHub() async throws {
        try await TestServer.with { server in
            let token = try await server.token(.client, environment: "production")
            let port = server.port
            let connection = try await RawConnection.offPool {
                let connection = try RawConnection(port: port)
                try connection.send("GET /ofrep/v1/events HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer \(token)\r\n\r\n")
                _ = connection.read(until: "retry: 2000\n\n")
                return connection
            }
            #expect(server.server.events.subscriberCount == 1)
            connection.disconnect()
            var waited = 0
            while server.server.events.subscriberCount > 0, waited < 1200 {  // up to 60 s on a loaded machine
                try await Task.sleep(for: .milliseconds(50))
                waited += 1
            }
            #expect(server.server.events.subscriberCount == 0)
        }
    }
}
