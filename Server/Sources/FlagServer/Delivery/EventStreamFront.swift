import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Synchronization

/// Serves open event streams from the connection's event loop, with no task per stream.
///
/// Hummingbird serves each connection in a task, and that task, with its async frames and the
/// `NIOAsyncChannel` it reads, costs about 12 KiB while the connection is open. An event stream is
/// open for hours and, once its first lines are written, only ever writes: so after the route has
/// answered (authenticated the client, counted it under the caps, written the head and the
/// stream's first lines), this handler takes the stream over and the task ends.
///
/// How a stream changes hands:
/// 1. For a request that opens a stream, this handler offers the hub a ``StreamHandoff`` bound to
///    itself and names the offer in the request's ``HTTPField/Name/flagServerStreamFront`` (a
///    value the client sent is removed from every request).
/// 2. The route takes the offer, subscribes it to the hub, and answers with
///    ``HTTPField/Name/flagServerStreamHandoff``, which this handler removes.
/// 3. At the response's end, which it does not pass on (a stream has no end), this handler owns
///    the stream: it fails the connection's inbound side with ``HandedOff``, so Hummingbird's
///    connection loop ends, and ignores the closes that loop sends as it ends.
/// 4. From then on it writes the hub's events and keep-alives itself, and drops what the client
///    sends. It ends the stream (last chunk, then close) when the hub finishes or the server
///    shuts down gracefully (``EndEventStream``); when the connection closes, the subscription
///    leaves the hub.
///
/// A connection that is not writable (its client does not read) is not written to: the client
/// gets the newest revision's event when it reads again and misses keep-alives meanwhile, so a
/// slow client never makes the server buffer.
///
/// Before step 1, a request that opens a stream takes a place among the set-ups
/// (``StreamOpenings``): past its bound, the request head waits here, not passed on, until a
/// set-up ends. The place is given back once the stream is this handler's, or the route answered
/// something else (a refusal), or the connection closed. Both ends of a stream's set-up are noted
/// to ``FreedMemory/Trigger``: the request task's memory is freed then, and the stream's when it
/// closes.
///
/// It sits after Hummingbird's `HTTPConnectionStateHandler`, which therefore sees the stream's
/// response as unfinished and never closes the connection for idleness.
final class EventStreamFront: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Ends the connection's Hummingbird loop once this handler owns the stream.
    struct HandedOff: Error {}

    private enum State {
        /// Requests and responses pass.
        case serving
        /// The route's stream response is being written: its body passes, its end makes the
        /// stream this handler's.
        case handingOff(StreamHandoff)
        /// This handler writes the stream.
        case streaming(StreamHandoff)
        case closed
    }

    let events: EventHub
    /// The bound on set-ups in progress; `nil`: none.
    let openings: StreamOpenings?
    /// Told of every stream set up and closed; `nil`: no one.
    let freedMemory: FreedMemory.Trigger?
    private var state = State.serving
    /// Where this connection's stream opening stands among ``openings``.
    private enum Opening {
        /// Not opening a stream, or done with its set-up.
        case none
        /// Waiting for a place, with its ticket and the request parts held meanwhile.
        case waiting(ticket: Int, parts: [NIOAny])
        /// Holds a place: set up now.
        case admitted
    }
    private var opening = Opening.none
    private var context: ChannelHandlerContext?
    /// The handoff offered for the request being answered, and its offer's id.
    private var offered: (id: Int, handoff: StreamHandoff)?
    /// The newest revision the client was told about.
    private var sent = 0
    /// A newer revision, not written yet (the connection was not writable, or not ours yet).
    private var pending: Int?
    /// Whether the stream must end as soon as it is ours.
    private var endWhenOwned = false
    /// Whether the full close of Hummingbird's ending loop was ignored.
    private var ignoredLoopClose = false

    init(events: EventHub, openings: StreamOpenings? = nil, freedMemory: FreedMemory.Trigger? = nil) {
        self.events = events
        self.openings = openings
        self.freedMemory = freedMemory
    }

    /// The request parts an opening holds at most while it waits (a GET has a head and an end).
    static let maximumWaitingParts = 4

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        release()
        self.context = nil
    }

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .waiting(let ticket, var parts) = opening {
            guard parts.count < Self.maximumWaitingParts else {
                context.close(promise: nil)
                return
            }
            parts.append(data)
            opening = .waiting(ticket: ticket, parts: parts)
            return
        }
        switch state {
        case .serving, .handingOff:
            guard case .head(var head) = unwrapInboundIn(data) else {
                context.fireChannelRead(data)
                return
            }
            head.headerFields[.flagServerStreamFront] = nil
            if case .serving = state, offered == nil, case .none = opening, let openings,
                EventStreamRoutes.opensStream(method: head.method, path: head.path)
            {
                let front = NIOLoopBound(self, eventLoop: context.eventLoop)
                let eventLoop = context.eventLoop
                switch openings.enter({ eventLoop.execute { front.value.admitted() } }) {
                case .admitted:
                    opening = .admitted
                case .waiting(let ticket):
                    opening = .waiting(ticket: ticket, parts: [data])
                    return
                }
            }
            if case .serving = state, offered == nil, EventStreamRoutes.opensStream(method: head.method, path: head.path) {
                let handoff = StreamHandoff(front: NIOLoopBound(self, eventLoop: context.eventLoop), eventLoop: context.eventLoop)
                let id = events.offer(handoff)
                offered = (id, handoff)
                head.headerFields[.flagServerStreamFront] = String(id)
            }
            context.fireChannelRead(wrapInboundOut(.head(head)))
        case .streaming, .closed:
            break  // a stream's client has nothing more to say
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if case .streaming = state, context.channel.isWritable, let pending {
            self.pending = nil
            deliver(.revision(pending))
        }
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is EndEventStream {
            end()
            return
        }
        if case .streaming = state { return }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if case .streaming = state {
            context.close(promise: nil)
            return
        }
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    // MARK: Outbound

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch (state, unwrapOutboundIn(data)) {
        case (.serving, .head(var head)):
            if let (id, handoff) = offered {
                offered = nil
                events.withdraw(offer: id)
                if head.headerFields[.flagServerStreamHandoff] != nil, let opened = handoff.opened {
                    sent = opened
                    state = .handingOff(handoff)
                } else {
                    handoff.close()
                    setUpEnded()
                }
            }
            head.headerFields[.flagServerStreamHandoff] = nil
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case (.handingOff(let handoff), .end):
            promise?.succeed()
            state = .streaming(handoff)
            setUpEnded()
            freedMemory?.note()
            context.flush()
            context.fireErrorCaught(HandedOff())
            if endWhenOwned {
                end()
            } else if let pending {
                self.pending = nil
                deliver(.revision(pending))
            }
        case (.streaming, _), (.closed, _):
            promise?.fail(ChannelError.ioOnClosedChannel)
        default:
            context.write(data, promise: promise)
        }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if case .streaming = state, mode != .all || !ignoredLoopClose {
            // Hummingbird's loop ending: it closes its output, then the connection.
            if mode == .all { ignoredLoopClose = true }
            promise?.succeed()
            return
        }
        context.close(mode: mode, promise: promise)
    }

    // MARK: The stream

    /// Writes what the hub sent, on the event loop.
    fileprivate func deliver(_ signal: EventHub.Signal) {
        guard let context else { return }
        switch (state, signal) {
        case (.streaming(let handoff), .revision(let revision)) where revision > sent:
            guard context.channel.isWritable else {
                pending = max(pending ?? revision, revision)
                return
            }
            sent = revision
            context.writeAndFlush(wrapOutboundOut(.body(handoff.event(revision))), promise: nil)
        case (.streaming, .keepAlive):
            if context.channel.isWritable {
                context.writeAndFlush(wrapOutboundOut(.body(EventStreamRoutes.keepAliveComment)), promise: nil)
            }
        case (.serving, .revision(let revision)), (.handingOff, .revision(let revision)):
            pending = max(pending ?? revision, revision)  // written once the stream is ours
        default:
            break
        }
    }

    /// Ends the stream: its last chunk, then close.
    fileprivate func end() {
        guard let context else { return }
        switch state {
        case .serving, .handingOff:
            endWhenOwned = true
        case .streaming:
            release()
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            context.close(promise: nil)
        case .closed:
            break
        }
    }

    /// A place among ``openings`` came free for this connection's waiting request: it goes on.
    fileprivate func admitted() {
        guard case .waiting(_, let parts) = opening else {
            openings?.leave()  // the connection closed meanwhile: the place passes on
            return
        }
        opening = .admitted
        guard let context else {
            setUpEnded()
            return
        }
        for part in parts {
            channelRead(context: context, data: part)
        }
        // Hummingbird's reader takes what it was sent at the end of a read: end this one.
        context.fireChannelReadComplete()
    }

    /// This connection's stream set-up is over (streaming, refused or closed): its place among
    /// ``openings`` goes to the next.
    private func setUpEnded() {
        switch opening {
        case .admitted:
            opening = .none
            openings?.leave()
        case .waiting(let ticket, _):
            opening = .none
            // Resumed already when this fails: `admitted()` is on its way, finds `.none`, and
            // gives the place back.
            _ = openings?.withdraw(ticket)
        case .none:
            break
        }
    }

    /// The stream is over: its subscription leaves the hub.
    private func release() {
        switch state {
        case .handingOff(let handoff): handoff.close()
        case .streaming(let handoff):
            handoff.close()
            freedMemory?.note()
        case .serving, .closed: break
        }
        setUpEnded()
        if let (id, handoff) = offered {
            events.withdraw(offer: id)
            handoff.close()
            offered = nil
        }
        state = .closed
    }
}

/// Asks a connection's ``EventStreamFront`` to end the stream it writes (sent by
/// ``ConnectionGuard`` when the server shuts down gracefully).
struct EndEventStream {}

/// The sink of a stream that an ``EventStreamFront`` writes: it passes the hub's signals to the
/// front on its event loop, and holds the stream's subscription for the front.
final class StreamHandoff: EventStreamSink {
    private let front: NIOLoopBound<EventStreamFront>
    private let eventLoop: any EventLoop

    private struct Opened {
        var subscription: EventHub.Subscription?
        var revision: Int
        var event: @Sendable (Int) -> ByteBuffer
    }

    private let state = Mutex<Opened?>(nil)

    fileprivate init(front: NIOLoopBound<EventStreamFront>, eventLoop: any EventLoop) {
        self.front = front
        self.eventLoop = eventLoop
    }

    /// Called by the route: the stream is `subscription`, the client was told about `revision`,
    /// and `event` renders a later revision's event.
    func open(_ subscription: EventHub.Subscription, at revision: Int, event: @escaping @Sendable (Int) -> ByteBuffer) {
        state.withLock { $0 = Opened(subscription: subscription, revision: revision, event: event) }
    }

    /// The revision the route told the client about, once the route opened the stream.
    var opened: Int? { state.withLock { $0?.revision } }

    func event(_ revision: Int) -> ByteBuffer {
        let event = state.withLock { $0?.event }
        return event?(revision) ?? ByteBuffer()
    }

    /// The stream is over: its subscription is let go, and the stream leaves the hub.
    func close() {
        let subscription = state.withLock { opened in
            defer { opened?.subscription = nil }
            return opened?.subscription
        }
        withExtendedLifetime(subscription) {}
    }

    func send(_ signal: EventHub.Signal) {
        let front = front
        eventLoop.execute { front.value.deliver(signal) }
    }

    func finish() {
        let front = front
        eventLoop.execute { front.value.end() }
    }
}

extension HTTPField.Name {
    /// Set by ``EventStreamFront`` on a request that opens an event stream: the id of the
    /// ``StreamHandoff`` it offers the hub (a value a client sends is removed).
    static let flagServerStreamFront = HTTPField.Name("X-Flag-Server-Stream-Front")!
    /// Set by the route on a stream's response when it opened the offered handoff; removed by
    /// ``EventStreamFront``.
    static let flagServerStreamHandoff = HTTPField.Name("X-Flag-Server-Stream-Handoff")!
}
