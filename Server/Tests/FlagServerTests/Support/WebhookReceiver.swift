import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A webhook receiver in the test process: a Hummingbird server on a free loopback port that
/// records every request and answers as scripted (a status, or no answer until the test ends).
final class WebhookReceiver: Sendable {
    enum Answer: Sendable {
        case status(Int)
        /// Holds the request open until the receiver stops.
        case hang
    }

    struct Received: Sendable {
        var path: String
        /// By lowercase name.
        var headers: [String: String]
        var body: String
    }

    private struct State {
        var script: [Answer] = []
        var received: [Received] = []
        var hanging: [CheckedContinuation<Void, Never>] = []
        var released = false
    }

    private let state = Mutex(State())
    let arrivals: AsyncStream<Received>
    private let arrival: AsyncStream<Received>.Continuation

    init() {
        (arrivals, arrival) = AsyncStream.makeStream(of: Received.self)
    }

    /// The answers to the next requests, in order; after them, 204.
    func script(_ answers: [Answer]) { state.withLock { $0.script += answers } }

    var received: [Received] { state.withLock { $0.received } }
    var hangingCount: Int { state.withLock { $0.hanging.count } }

    private func handle(_ request: Request) async throws -> Response {
        /// By lowercase name.
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        let buffer = try await request.body.collect(upTo: 1 << 20)
        let received = Received(path: request.uri.path, headers: headers, body: String(buffer: buffer))
        let answer = state.withLock { state -> Answer in
            state.received.append(received)
            return state.script.isEmpty ? .status(204) : state.script.removeFirst()
        }
        switch answer {
        case .status(let code):
            arrival.yield(received)
            return Response(status: HTTPResponse.Status(code: code))
        case .hang:
            await withCheckedContinuation { continuation in
                let resume = state.withLock { state -> Bool in
                    if state.released { return true }
                    state.hanging.append(continuation)
                    return false
                }
                // Announced once it counts as hanging.
                arrival.yield(received)
                if resume { continuation.resume() }
            }
            return Response(status: .serviceUnavailable)
        }
    }

    /// Lets every held request go.
    func release() {
        let waiting = state.withLock { state in
            state.released = true
            defer { state.hanging = [] }
            return state.hanging
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Runs `body` with the receiver listening; its argument is `http://127.0.0.1:<port>`.
    static func with<T: Sendable>(_ body: (WebhookReceiver, String) async throws -> T) async throws -> T {
        let receiver = WebhookReceiver()
        let router = Router()
        router.post("/") { request, _ in try await receiver.handle(request) }
        router.post("/**") { request, _ in try await receiver.handle(request) }
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in portContinuation.yield(channel.localAddress?.port ?? 0) },
            logger: Logger(label: "webhook-receiver"))
        let group = ServiceGroup(configuration: .init(services: [app], logger: Logger(label: "webhook-receiver")))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw CancellationError() }
            do {
                let result = try await body(receiver, "http://127.0.0.1:\(port)")
                receiver.release()
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return result
            } catch {
                receiver.release()
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                throw error
            }
        }
    }
}
