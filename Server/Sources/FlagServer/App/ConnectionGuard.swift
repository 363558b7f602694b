import FlagEvaluation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

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
/// Idle connections and slow headers are Hummingbird's (``ServerLimits/idleTimeout``, given to
/// `HTTP1Channel`), the header size is NIO's decoder limit, the connection count Hummingbird's
/// `MaximumAvailableConnections`; ``server(limits:)`` sets all of them.
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

    init(maximumBodyBytes: Int, bodyTimeout: Duration) {
        self.maximumBodyBytes = maximumBodyBytes
        self.bodyTimeout = TimeAmount(bodyTimeout)
    }

    /// The HTTP/1 server of ``FlagServer/application(host:port:onServerRunning:)``, with `limits`.
    static func server(limits: ServerLimits) -> HTTPServerBuilder {
        let maximumBodyBytes = limits.maximumRequestBytes
        let bodyTimeout = limits.bodyTimeout
        return .http1(configuration: HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionGuard(maximumBodyBytes: maximumBodyBytes, bodyTimeout: bodyTimeout)],
            idleTimeout: TimeAmount(limits.idleTimeout),
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: limits.maximumHeaderBytes, maxHeaderListSize: limits.maximumHeaderBytes,
                maxHeaderFieldCount: 200)))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        switch unwrapInboundIn(data) {
        case .head(var head):
            if let declared = head.headerFields[.contentLength], let length = Int(declared), length > maximumBodyBytes {
                refuse(
                    context, status: .contentTooLarge,
                    message: "the request body (Content-Length \(declared.prefix(20))) is larger than this server accepts (\(maximumBodyBytes) bytes)")
                return
            }
            head.headerFields[.flagServerClientAddress] = context.channel.remoteAddress?.ipAddress ?? "unknown"
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

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelBodyTimer()
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
        let code = status.code == 413 ? "too_large" : status.code == 431 ? "header_too_large" : "bad_request"
        let body = ByteBuffer(string: JSONValue.object([
            "error": .object(["code": .string(code), "message": .string(message), "problems": .array([])]),
        ]).serialized())
        let head = HTTPResponse(status: status, headerFields: [
            .contentType: "application/json", .contentLength: String(body.readableBytes), .connection: "close",
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
        let channel = context.channel
        written.futureResult.whenComplete { _ in channel.close(promise: nil) }
    }
}

extension HTTPField.Name {
    /// The peer address of the connection a request came on, set by ``ConnectionGuard`` (a value
    /// a client sends is replaced). Not a forwarding header: proxies' `X-Forwarded-For` is not read.
    static let flagServerClientAddress = HTTPField.Name("X-Flag-Server-Client-Address")!
}
