import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A request as the test server received it.
package struct RecordedRequest: Sendable {
    package var method: String
    package var path: String
    /// Header fields by lower-cased name.
    package var headers: [String: String]
    package var body: Data
}

/// What the test server does with a request. Responses are written as raw bytes, so a test can
/// send anything: a body cut off mid-way, a wrong content type, no response at all.
package enum ScriptedResponse: Sendable {
    /// A complete response.
    case respond(status: Int, headers: [(String, String)] = [], body: [UInt8] = [])
    /// Headers announcing `body.count` bytes, then only the first `sending` bytes, then the
    /// connection closes.
    case truncated(status: Int, headers: [(String, String)], body: [UInt8], sending: Int)
    /// Waits for `gate` to open before answering with `then`.
    case gated(Gate, then: ScriptedResponseBox)
    /// A `text/event-stream` response without a length: the head at once, then whatever the
    /// test sends through `feed`, until it closes the feed (or the server shuts down).
    case eventStream(EventStreamFeed, status: Int = 200, headers: [(String, String)] = [])

    package static func json(_ text: String, status: Int = 200, headers: [(String, String)] = []) -> ScriptedResponse {
        .respond(status: status, headers: [("Content-Type", "application/json")] + headers, body: Array(text.utf8))
    }
}

/// What a test writes to an open event stream response.
package final class EventStreamFeed: Sendable {
    package let chunks: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation

    package init() {
        (chunks, continuation) = AsyncStream.makeStream(of: String.self)
    }

    package func send(_ text: String) { continuation.yield(text) }
    package func close() { continuation.finish() }
}

/// Boxes a response so `ScriptedResponse` can nest.
package final class ScriptedResponseBox: Sendable {
    package let response: ScriptedResponse
    package init(_ response: ScriptedResponse) { self.response = response }
}

/// An HTTP/1.1 server on 127.0.0.1 at a free port, answering each request with what `handler`
/// returns. Every connection is closed after one response.
package final class TestHTTPServer: Sendable {
    package let port: Int
    private let recorded = Mutex<[RecordedRequest]>([])
    private let serverChannel: any Channel
    private let shutdownGate = Gate()
    private let handler: @Sendable (RecordedRequest) async -> ScriptedResponse

    package var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The requests received so far.
    package var requests: [RecordedRequest] { recorded.withLock { $0 } }
    package var requestCount: Int { recorded.withLock { $0.count } }

    private init(
        port: Int, channel: any Channel, handler: @escaping @Sendable (RecordedRequest) async -> ScriptedResponse
    ) {
        self.port = port
        self.serverChannel = channel
        self.handler = handler
    }

    package static func start(
        _ handler: @escaping @Sendable (RecordedRequest) async -> ScriptedResponse
    ) async throws -> TestHTTPServer {
        let box = Mutex<TestHTTPServer?>(nil)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    guard let server = box.withLock({ $0 }) else {
                        throw ChannelError.ioOnClosedChannel
                    }
                    try child.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
                    try child.pipeline.syncOperations.addHandler(ConnectionHandler(server: server))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let server = TestHTTPServer(port: channel.localAddress!.port!, channel: channel, handler: handler)
        box.withLock { $0 = server }
        return server
    }

    /// Stops accepting connections and releases held (gated) responses, whose connections close.
    package func shutdown() async {
        shutdownGate.open()
        try? await serverChannel.close()
    }

    /// What a connection writes: bytes and then closing, or a head and then a feed's chunks.
    fileprivate enum Reply: Sendable {
        case bytes(ByteBuffer)
        case stream(head: ByteBuffer, feed: EventStreamFeed)
    }

    /// Records a request and works out the bytes to answer with; `nil` when the server shut
    /// down while the response was held.
    fileprivate func respond(to request: RecordedRequest, allocator: ByteBufferAllocator) async -> Reply? {
        recorded.withLock { $0.append(request) }
        var response = await handler(request)
        while case .gated(let gate, let then) = response {
            await gate.wait(orUntil: shutdownGate)
            if shutdownGate.isOpen { return nil }
            response = then.response
        }
        if case .eventStream(let feed, let status, let headers) = response {
            var text = "HTTP/1.1 \(status) \(HTTPResponseStatus(statusCode: status).reasonPhrase)\r\n"
            for (name, value) in [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")] + headers {
                text += "\(name): \(value)\r\n"
            }
            text += "Connection: close\r\n\r\n"
            var head = allocator.buffer(capacity: text.utf8.count)
            head.writeString(text)
            return .stream(head: head, feed: feed)
        }
        return .bytes(Self.bytes(for: response, allocator: allocator))
    }

    /// Whether the server is shutting down (open event streams end then).
    fileprivate func waitForShutdown() async {
        await shutdownGate.wait()
    }

    private static func bytes(for response: ScriptedResponse, allocator: ByteBufferAllocator) -> ByteBuffer {
        func head(_ status: Int, _ headers: [(String, String)], length: Int) -> String {
            var text = "HTTP/1.1 \(status) \(HTTPResponseStatus(statusCode: status).reasonPhrase)\r\n"
            for (name, value) in headers { text += "\(name): \(value)\r\n" }
            text += "Content-Length: \(length)\r\nConnection: close\r\n\r\n"
            return text
        }
        var buffer = allocator.buffer(capacity: 256)
        switch response {
        case .respond(let status, let headers, let body):
            buffer.writeString(head(status, headers, length: body.count))
            buffer.writeBytes(body)
        case .truncated(let status, let headers, let body, let sending):
            buffer.writeString(head(status, headers, length: body.count))
            buffer.writeBytes(body.prefix(sending))
        case .gated, .eventStream:
            break
        }
        return buffer
    }
}

/// Collects one request, asks the server for the response, writes it and closes.
private final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = ByteBuffer

    private let server: TestHTTPServer
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()

    init(server: TestHTTPServer) {
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let value):
            head = value
            body.clear()
        case .body(var chunk):
            body.writeBuffer(&chunk)
        case .end:
            guard let head else { return }
            self.head = nil
            var headers: [String: String] = [:]
            for (name, value) in head.headers { headers[name.lowercased()] = value }
            let request = RecordedRequest(
                method: head.method.rawValue, path: head.uri, headers: headers, body: Data(body.readableBytesView))
            let channel = context.channel
            let server = self.server
            let allocator = channel.allocator
            Task {
                switch await server.respond(to: request, allocator: allocator) {
                case nil:
                    try? await channel.close()
                case .bytes(let bytes)?:
                    try? await channel.writeAndFlush(bytes)
                    try? await channel.close()
                case .stream(let head, let feed)?:
                    try? await channel.writeAndFlush(head)
                    // Until the test closes the feed, the server shuts down, or the client goes.
                    await withTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await chunk in feed.chunks {
                                var buffer = allocator.buffer(capacity: chunk.utf8.count)
                                buffer.writeString(chunk)
                                do {
                                    try await channel.writeAndFlush(buffer)
                                } catch {
                                    return
                                }
                            }
                        }
                        group.addTask { await server.waitForShutdown() }
                        group.addTask { try? await channel.closeFuture.get() }
                        await group.next()
                        // Closing ends the wait on `closeFuture`, which cancellation does not.
                        channel.close(promise: nil)
                        group.cancelAll()
                    }
                }
            }
        }
    }
}
