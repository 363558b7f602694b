import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A request as the test server received it.
struct RecordedRequest: Sendable {
    var method: String
    var path: String
    /// Header fields by lower-cased name.
    var headers: [String: String]
    var body: Data
}

/// What the test server does with a request. Responses are written as raw bytes, so a test can
/// send anything: a body cut off mid-way, a wrong content type, no response at all.
enum ScriptedResponse: Sendable {
    /// A complete response.
    case respond(status: Int, headers: [(String, String)] = [], body: [UInt8] = [])
    /// Headers announcing `body.count` bytes, then only the first `sending` bytes, then the
    /// connection closes.
    case truncated(status: Int, headers: [(String, String)], body: [UInt8], sending: Int)
    /// Waits for `gate` to open before answering with `then`.
    case gated(Gate, then: ScriptedResponseBox)

    static func json(_ text: String, status: Int = 200, headers: [(String, String)] = []) -> ScriptedResponse {
        .respond(status: status, headers: [("Content-Type", "application/json")] + headers, body: Array(text.utf8))
    }
}

/// Boxes a response so `ScriptedResponse` can nest.
final class ScriptedResponseBox: Sendable {
    let response: ScriptedResponse
    init(_ response: ScriptedResponse) { self.response = response }
}

/// An HTTP/1.1 server on 127.0.0.1 at a free port, answering each request with what `handler`
/// returns. Every connection is closed after one response.
final class TestHTTPServer: Sendable {
    let port: Int
    private let recorded = Mutex<[RecordedRequest]>([])
    private let serverChannel: any Channel
    private let serving = Mutex<Task<Void, Never>?>(nil)
    private let shutdownGate = Gate()

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The requests received so far.
    var requests: [RecordedRequest] { recorded.withLock { $0 } }
    var requestCount: Int { recorded.withLock { $0.count } }

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.serverChannel = channel
    }

    static func start(
        _ handler: @escaping @Sendable (RecordedRequest) async -> ScriptedResponse
    ) async throws -> TestHTTPServer {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
                    return try NIOAsyncChannel<HTTPServerRequestPart, ByteBuffer>(wrappingChannelSynchronously: child)
                }
            }
        let server = TestHTTPServer(port: channel.channel.localAddress!.port!, channel: channel.channel)
        let task = Task<Void, Never> {
            _ = try? await channel.executeThenClose { inbound in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await connection in inbound {
                        group.addTask {
                            await server.serve(connection, handler: handler)
                        }
                    }
                }
            }
        }
        server.serving.withLock { $0 = task }
        return server
    }

    /// Stops accepting connections and closes the open ones (hanging responses included).
    func shutdown() async {
        shutdownGate.open()
        try? await serverChannel.close()
        let task = serving.withLock { $0 }
        await task?.value
    }

    private func serve(
        _ connection: NIOAsyncChannel<HTTPServerRequestPart, ByteBuffer>,
        handler: @escaping @Sendable (RecordedRequest) async -> ScriptedResponse
    ) async {
        try? await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            var body = ByteBuffer()
            for try await part in inbound {
                switch part {
                case .head(let value):
                    head = value
                    body.clear()
                case .body(var chunk):
                    body.writeBuffer(&chunk)
                case .end:
                    guard let head else { return }
                    var headers: [String: String] = [:]
                    for (name, value) in head.headers { headers[name.lowercased()] = value }
                    let request = RecordedRequest(
                        method: head.method.rawValue, path: head.uri, headers: headers,
                        body: Data(body.readableBytesView))
                    recorded.withLock { $0.append(request) }
                    var response = await handler(request)
                    while case .gated(let gate, let then) = response {
                        await gate.wait(orUntil: shutdownGate)
                        if shutdownGate.isOpen { return }
                        response = then.response
                    }
                    // Wait until the bytes are on the socket before the connection closes.
                    _ = outbound
                    try await connection.channel.writeAndFlush(
                        Self.bytes(for: response, allocator: connection.channel.allocator))
                    return
                }
            }
        }
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
        case .gated:
            break
        }
        return buffer
    }
}
