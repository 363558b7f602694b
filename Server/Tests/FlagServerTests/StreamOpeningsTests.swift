@testable import FlagServer
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Synchronization
import Testing

/// At most `limit` event streams are set up at once; the openings past it wait in order, holding
/// their request head, and go on as set-ups end.
struct StreamOpeningsTests {
    @Test
    func openingsPastTheLimitWaitInOrder() {
        let openings = StreamOpenings(limit: 2)
        let resumed = Mutex<[String]>([])
        #expect(openings.enter { resumed.withLock { $0.append("a") } } == .admitted)
        #expect(openings.enter { resumed.withLock { $0.append("b") } } == .admitted)
        let c = openings.enter { resumed.withLock { $0.append("c") } }
        let d = openings.enter { resumed.withLock { $0.append("d") } }
        let e = openings.enter { resumed.withLock { $0.append("e") } }
        #expect(c == .waiting(0))
        #expect(d == .waiting(1))
        #expect(e == .waiting(2))
        #expect(openings.counts == (2, 3))
        openings.leave()
        #expect(resumed.withLock { $0 } == ["c"])
        #expect(openings.withdraw(1))  // d gave up
        #expect(!openings.withdraw(0))  // c was resumed already
        openings.leave()
        #expect(resumed.withLock { $0 } == ["c", "e"])
        openings.leave()
        openings.leave()
        #expect(openings.counts == (0, 0))
        // A newcomer does not pass those waiting.
        #expect(openings.enter {} == .admitted)
        #expect(openings.enter {} == .admitted)
        #expect(openings.enter {} == .waiting(3))
        #expect(openings.enter {} == .waiting(4))
    }

    /// Records what reaches Hummingbird's connection loop. Like `NIOAsyncChannel`'s reader, it
    /// takes what a read brought at the read's end (`channelReadComplete`).
    final class LoopEnd: ChannelInboundHandler {
        typealias InboundIn = HTTPRequestPart
        var heads: [HTTPRequest] = []
        private var reading: [HTTPRequest] = []
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if case .head(let head) = unwrapInboundIn(data) { reading.append(head) }
        }
        func channelReadComplete(context: ChannelHandlerContext) {
            heads += reading
            reading = []
        }
        func errorCaught(context: ChannelHandlerContext, error: any Error) {}
    }

    struct Connection {
        let channel = EmbeddedChannel()
        let loopEnd = LoopEnd()

        init(hub: EventHub, openings: StreamOpenings, freedMemory: FreedMemory.Trigger? = nil) throws {
            try channel.pipeline.syncOperations.addHandlers([
                EventStreamFront(events: hub, openings: openings, freedMemory: freedMemory), loopEnd,
            ])
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        }

        func open() throws {
            try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "x", path: "/ofrep/v1/events")))
            try channel.writeInbound(HTTPRequestPart.end(nil))
        }

        /// What the route does: takes the offer, subscribes it, answers the head, lines and end.
        func answer(_ hub: EventHub) throws {
            let offer = try #require(loopEnd.heads.last?.headerFields[.flagServerStreamFront].flatMap { Int($0) })
            let handoff = try #require(hub.take(offer: offer) as? StreamHandoff)
            let subscription = try hub.subscribe(environment: "production", owner: "a", sink: handoff)
            handoff.open(subscription, at: 1) { ByteBuffer(string: "event \($0)\n\n") }
            try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok, headerFields: [.flagServerStreamHandoff: "1"])))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
        }

        /// What the route does when it refuses the stream (a cap): an answer without the handoff.
        func refuse() throws {
            try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .tooManyRequests)))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
        }
    }

    @Test
    func aSecondOpeningWaitsUntilTheFirstIsSetUp() throws {
        let hub = EventHub()
        let openings = StreamOpenings(limit: 1)
        let first = try Connection(hub: hub, openings: openings)
        let second = try Connection(hub: hub, openings: openings)
        let third = try Connection(hub: hub, openings: openings)
        try first.open()
        try second.open()
        try third.open()
        #expect(first.loopEnd.heads.count == 1)
        #expect(second.loopEnd.heads.isEmpty)  // held by its front: Hummingbird has not seen it
        #expect(third.loopEnd.heads.isEmpty)
        #expect(openings.counts == (1, 2))
        // A plain request on a waiting connection's neighbour is not held.
        let plain = try Connection(hub: hub, openings: openings)
        try plain.channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "x", path: "/health")))
        #expect(plain.loopEnd.heads.count == 1)
        // The first stream is set up: the second goes on, on its own event loop.
        try first.answer(hub)
        second.channel.embeddedEventLoop.run()
        #expect(second.loopEnd.heads.count == 1)
        #expect(second.loopEnd.heads.first?.headerFields[.flagServerStreamFront] != nil)
        #expect(third.loopEnd.heads.isEmpty)
        // The second is refused by its route: the third goes on.
        try second.refuse()
        third.channel.embeddedEventLoop.run()
        #expect(third.loopEnd.heads.count == 1)
        // The third's client hangs up during its set-up: the place is given back.
        _ = try third.channel.finish()
        #expect(openings.counts == (0, 0))
    }

    @Test
    func anOpeningThatHangsUpWhileWaitingLeavesTheLine() throws {
        let hub = EventHub()
        let openings = StreamOpenings(limit: 1)
        let first = try Connection(hub: hub, openings: openings)
        let second = try Connection(hub: hub, openings: openings)
        let third = try Connection(hub: hub, openings: openings)
        try first.open()
        try second.open()
        try third.open()
        _ = try second.channel.finish()
        #expect(openings.counts == (1, 1))
        try first.answer(hub)
        third.channel.embeddedEventLoop.run()
        #expect(third.loopEnd.heads.count == 1)
    }

    /// The front tells the memory trigger of each stream set up and each stream closed.
    @Test
    func setUpAndClosedStreamsAreNotedForTheRelease() throws {
        let hub = EventHub()
        let scheduled = Mutex<[Duration]>([])
        let trigger = FreedMemory.Trigger(
            threshold: 2, schedule: { delay, _ in scheduled.withLock { $0.append(delay) } }, release: {})
        let connection = try Connection(hub: hub, openings: StreamOpenings(limit: 4), freedMemory: trigger)
        try connection.open()
        try connection.answer(hub)
        #expect(scheduled.withLock { $0 }.isEmpty)  // one change so far
        connection.channel.pipeline.fireChannelInactive()  // the client went away
        #expect(scheduled.withLock { $0 } == [.seconds(2)])
    }
}
