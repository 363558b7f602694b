import FlagEvaluation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import Synchronization

/// Bounds every connection's request reading, where Hummingbird 2.28 has no setting of its own:
///
/// - a request declaring a `Content-Length` above ``ServerLimits/maximumRequestBytes`` is
///   answered 413 before its body is read, and the connection closed;
/// - a body (chunked or not) growing past that limit, or pausing longer than
///   ``ServerLimits/bodyTimeout`` between two pieces, closes the connection;
/// - a request head the decoder refuses (larger than ``ServerLimits/maximumHeaderBytes``, or
///   malformed) is answered 431 or 400 and the connection closed, instead of left open.
///
/// It also records the connection's peer address in the request's
/// ``HTTPField/Name/flagServerClientAddress`` field (replacing any such field the client sent),
/// so that routes can limit work per client address.
///
/// It counts the process's connections in ``OpenConnections``: a connection past the cap is
/// answered 503 (`Retry-After`) at its first request head and closed, and the connections
/// already open are served as before. Hummingbird's `MaximumAvailableConnections` stops
/// accepting a little past the cap (``OpenConnections/acceptLimit``), so that a flood of
/// connections waits in the listen backlog instead of using the descriptors kept free.
///
/// Idle connections and slow headers are Hummingbird's (``ServerLimits/idleTimeout``, given to
/// `HTTP1Channel`), the header size is NIO's decoder limit;
/// ``server(limits:connections:events:)`` sets all of them.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let maximumBodyBytes: Int
    let bodyTimeout: TimeAmount
    private var bodyBytes = 0
    private var bodyTimer: Scheduled<Void>?
    /// Set once the connection is refused: what the client still sends is dropped.
    private var refused = false
    /// The process's connections; `nil` when not counted.
    let connections: OpenConnections?
    /// Whether this connection is counted in ``connections``, and within its cap.
    private var counted = false
    private var withinCap = true
    /// Whether the connection's request opened an event stream, which a client never half-closes:
    /// when its side closes, the client is gone.
    private var isEventStream = false

    init(maximumBodyBytes: Int, bodyTimeout: Duration, connections: OpenConnections? = nil) {
        self.maximumBodyBytes = maximumBodyBytes
        self.bodyTimeout = TimeAmount(bodyTimeout)
        self.connections = connections
    }

    /// The HTTP/1 server of ``FlagServer/application(host:port:onServerRunning:)``, with `limits`,
    /// counting its connections in `connections`, and serving open event streams of `events`
    /// from the event loop (``EventStreamFront``).
    static func server(limits: ServerLimits, connections: OpenConnections? = nil, events: EventHub) -> HTTPServerBuilder {
        let maximumBodyBytes = limits.maximumRequestBytes
        let bodyTimeout = limits.bodyTimeout
        let configuration = HTTP1Channel.Configuration(
            additionalChannelHandlers: [
                ConnectionGuard(maximumBodyBytes: maximumBodyBytes, bodyTimeout: bodyTimeout, connections: connections)
            ],
            idleTimeout: TimeAmount(limits.idleTimeout),
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: limits.maximumHeaderBytes, maxHeaderListSize: limits.maximumHeaderBytes,
                maxHeaderFieldCount: 200))
        let openings = StreamOpenings(limit: limits.maximumConcurrentStreamOpenings)
        let freedMemory = FreedMemory.Trigger()
        return HTTPServerBuilder { responder in
            StreamingHTTP1Channel(
                http1: HTTP1Channel(responder: responder, configuration: configuration), events: events, openings: openings,
                freedMemory: freedMemory)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        switch unwrapInboundIn(data) {
        case .head(var head):
            if !withinCap, let connections {
                refuse(
                    context, status: .serviceUnavailable,
                    message: "the server holds as many connections as it allows (\(connections.cap)); retry later")
                return
            }
            if let declared = head.headerFields[.contentLength], let length = Int(declared), length > maximumBodyBytes {
                refuse(
                    context, status: .contentTooLarge,
                    message: "the request body (Content-Length \(declared.prefix(20))) is larger than this server accepts (\(maximumBodyBytes) bytes)")
                return
            }
            head.headerFields[.flagServerClientAddress] = context.channel.remoteAddress?.ipAddress ?? "unknown"
            isEventStream = EventStreamRoutes.opensStream(method: head.method, path: head.path)
            bodyBytes = 0
            scheduleBodyTimer(context)
            context.fireChannelRead(wrapInboundOut(.head(head)))
        case .body(let buffer):
            bodyBytes += buffer.readableBytes
            guard bodyBytes <= maximumBodyBytes else {
                close(context)
                return
            }
            scheduleBodyTimer(context)
            context.fireChannelRead(data)
        case .end:
            cancelBodyTimer()
            context.fireChannelRead(data)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !refused else { return }
        if case .headerOverflow = parserError {
            refuse(
                context, status: .init(code: 431, reasonPhrase: "Request Header Fields Too Large"),
                message: "the request head is larger than this server accepts")
        } else {
            refuse(context, status: .badRequest, message: "the request is not valid HTTP/1.1")
        }
    }

    /// A stream's client that closed its side is gone: close the connection now, freeing its
    /// descriptor and its place under the cap, rather than at the stream's next write (up to a
    /// keep-alive interval later; the server allows half-closed connections otherwise).
    ///
    /// A server shutting down gracefully ends a stream's connection with the stream's last chunk
    /// (``EndEventStream``, for ``EventStreamFront``), rather than waiting for the client.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if isEventStream, let event = event as? ChannelEvent, event == .inputClosed {
            context.close(promise: nil)
            return
        }
        if isEventStream, event is ChannelShouldQuiesceEvent {
            context.fireUserInboundEventTriggered(EndEventStream())
        }
        context.fireUserInboundEventTriggered(event)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // Before the first read (the handler is added as the connection is set up).
        try? context.channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: Self.receiveBuffers)
        guard let connections, !counted else { return }
        counted = true
        withinCap = connections.open()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelBodyTimer()
        if counted {
            counted = false
            connections?.close()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelBodyTimer()
        context.fireChannelInactive()
    }

    private func scheduleBodyTimer(_ context: ChannelHandlerContext) {
        cancelBodyTimer()
        let channel = context.channel
        bodyTimer = context.eventLoop.assumeIsolated().scheduleTask(in: bodyTimeout) {
            channel.close(promise: nil)
        }
    }

    private func cancelBodyTimer() {
        bodyTimer?.cancel()
        bodyTimer = nil
    }

    private func close(_ context: ChannelHandlerContext) {
        refused = true
        cancelBodyTimer()
        context.close(promise: nil)
    }

    /// Answers `status` with an error body, then closes the connection.
    private func refuse(_ context: ChannelHandlerContext, status: HTTPResponse.Status, message: String) {
        refused = true
        cancelBodyTimer()
        let code = switch status.code {
        case 413: "too_large"
        case 431: "header_too_large"
        case 503: "unavailable"
        default: "bad_request"
        }
        let body = ByteBuffer(string: JSONValue.object([
            "error": .object(["code": .string(code), "message": .string(message), "problems": .array([])]),
        ]).serialized())
        var head = HTTPResponse(status: status, headerFields: [
            .contentType: "application/json", .contentLength: String(body.readableBytes), .connection: "close",
        ])
        if status == .serviceUnavailable { head.headerFields[.retryAfter] = String(Self.refusedRetryAfterSeconds) }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
        let channel = context.channel
        written.futureResult.whenComplete { _ in channel.close(promise: nil) }
    }
}

extension ConnectionGuard {
    /// The `Retry-After` of a connection refused at the cap.
    static let refusedRetryAfterSeconds = 5

    /// Receive buffers sized from 512 bytes, not NIO's default 2 KiB. A channel keeps its
    /// receive buffer for its next read, so an open connection holds one all the time, an event
    /// stream for hours. A request head fits in 512 bytes, and a read that fills the buffer
    /// doubles the next one (up to 64 KiB), so larger bodies cost a read or two more once per
    /// connection.
    static let receiveBuffers = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65_536)
}

/// Hummingbird's HTTP/1 channel with an ``EventStreamFront`` after its connection-state handler,
/// where the front sees a stream's response end before Hummingbird does (and keeps it from it).
struct StreamingHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let events: EventHub
    /// The bound on streams being set up at once, shared by every connection.
    let openings: StreamOpenings
    /// Releases freed memory after a burst of streams opened or closed.
    let freedMemory: FreedMemory.Trigger

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let events = events
        let openings = openings
        let freedMemory = freedMemory
        return http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let state = try operations.handler(type: HTTPConnectionStateHandler.self)
            let front = EventStreamFront(events: events, openings: openings, freedMemory: freedMemory)
            try operations.addHandler(front, position: .after(state))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

/// The connections open in the process, counted by every connection's ``ConnectionGuard``.
final class OpenConnections: Sendable {
    /// The most connections served at once; one more is answered 503 and closed.
    let cap: Int
    /// The most connections accepted at once, `cap` and those being refused: past it, new
    /// connections wait in the listen backlog (Hummingbird's `MaximumAvailableConnections`).
    let acceptLimit: Int
    private let count = Atomic<Int>(0)

    /// - Parameter refusing: How many connections past `cap` may be open at once while they are
    ///   answered 503.
    init(cap: Int, refusing: Int) {
        self.cap = cap
        self.acceptLimit = cap + max(1, refusing)
    }

    /// Counts a connection that opened; whether it is within the cap.
    func open() -> Bool { count.add(1, ordering: .relaxed).newValue <= cap }

    /// Counts a connection that closed.
    func close() { count.subtract(1, ordering: .relaxed) }

    /// The connections open now.
    var current: Int { count.load(ordering: .relaxed) }
}

extension HTTPField.Name {
    /// The peer address of the connection a request came on, set by ``ConnectionGuard`` (a value
    /// a client sends is replaced). Not a forwarding header: proxies' `X-Forwarded-For` is not read.
    static let flagServerClientAddress = HTTPField.Name("X-Flag-Server-Client-Address")!
}
