import AsyncHTTPClient
import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// A real server on a loopback port (port 0: the system picks a free one), with an in-memory
/// SQLite store, torn down gracefully after the body.
struct TestServer {
    let server: FlagServer
    let port: Int
    /// The first admin token (all environments).
    let adminToken: String

    struct Reply {
        var status: Int
        var headers: HTTPHeaders
        var body: String
        var json: JSONValue? { try? JSONValue(parsing: body) }
        func header(_ name: String) -> String? { headers.first(name: name) }
    }

    static func with<T: Sendable>(
        store: (any FlagStore)? = nil, rateLimiter: RateLimiter? = nil, limits: ServerLimits = .forTests,
        fractionalBucketing: FractionalBucketing = .current, eventStreamKeepAlive: Duration = .seconds(15),
        revisionCheck: ReplicaSynchronizer.Schedule = .every(.seconds(30)), delivery: DeliveryOptions = DeliveryOptions(),
        heartbeat: ReplicaSynchronizer.Heartbeat? = ReplicaTestCluster.loadedMachineHeartbeat,
        eventStore: (any FlagEventStore)? = nil, eventIngestion: EventIngestionOptions = EventIngestionOptions(),
        eventRetention: EventRetention? = nil, now: @escaping @Sendable () -> Date = Date.init,
        webhooks: WebhookOptions? = WebhookOptions(), rolloutTickInterval: Duration? = .seconds(10),
        _ body: (TestServer) async throws -> T
    ) async throws -> T {
        let store: any FlagStore = if let store { store } else { try await SQLiteFlagStore(path: nil) }
        let (server, bootstrap) = try await FlagServer.start(
            store: store, eventStore: eventStore,
            configuration: FlagServer.Configuration(
                limits: limits, fractionalBucketing: fractionalBucketing, rateLimiter: rateLimiter, revisionCheck: revisionCheck,
                heartbeat: heartbeat, eventStreamKeepAlive: eventStreamKeepAlive, delivery: delivery, eventIngestion: eventIngestion,
                eventRetention: eventRetention, webhooks: webhooks, rolloutTickInterval: rolloutTickInterval),
            now: now)
        return try await serving(server, bootstrap: bootstrap, store: store, body)
    }

    /// Serves `server` on a free loopback port while `body` runs, then shuts it down and closes
    /// `store`.
    static func serving<T: Sendable>(
        _ server: FlagServer, bootstrap: FlagServer.Bootstrap?, store: any FlagStore, _ body: (TestServer) async throws -> T
    ) async throws -> T {
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = server.application(host: "127.0.0.1", port: 0) { port in portContinuation.yield(port) }
        let group = ServiceGroup(configuration: .init(services: [app], logger: Logger(label: "test")))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw CancellationError() }
            let testServer = TestServer(server: server, port: port, adminToken: bootstrap?.adminToken ?? "")
            do {
                let result = try await body(testServer)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                await store.close()
                return result
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                await store.close()
                throw error
            }
        }
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Sends a request and collects the whole reply.
    func request(
        _ method: HTTPMethod, _ path: String, token: String? = nil, body: String? = nil, headers: [(String, String)] = []
    ) async throws -> Reply {
        try await Self.request(baseURL: baseURL, method, path, token: token, body: body, headers: headers)
    }

    /// Sends a request to the server at `baseURL` (a server or a relay) and collects the whole reply.
    static func request(
        baseURL: String, _ method: HTTPMethod, _ path: String, token: String? = nil, body: String? = nil,
        headers: [(String, String)] = []
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            if !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
                request.headers.add(name: "Content-Type", value: "application/json")
            }
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await HTTPClient.shared.execute(request, deadline: .distantFuture)
        let bytes = try await response.body.collect(upTo: 64 * 1024 * 1024)
        let reply = Reply(status: Int(response.status.code), headers: response.headers, body: String(buffer: bytes))
        RequestLog.record(method: method.rawValue, path: path, body: body, status: reply.status, replyBody: reply.body)
        return reply
    }

    /// Creates a token through the admin API and returns its text.
    func token(_ role: TokenRole, environment: String, name: String = "test") async throws -> String {
        let reply = try await request(
            .POST, "/admin/v1/tokens", token: adminToken,
            body: #"{"name": "\#(name)", "environment": "\#(environment)", "role": "\#(role.rawValue)"}"#)
        guard reply.status == 201, let token = reply.json?["token"]?.stringValue else {
            throw TestFailure("creating a token failed: \(reply.status) \(reply.body)")
        }
        return token
    }

    /// Creates a Boolean flag `key` (variants on/off) and sets it in `environment`.
    func booleanFlag(
        _ key: String, environment: String = "production", enabled: Bool = true, defaultVariant: String = "on",
        targeting: String? = nil
    ) async throws {
        let created = try await request(
            .PUT, "/admin/v1/flags/\(key)", token: adminToken,
            body: #"{"type": "boolean", "variants": {"on": true, "off": false}, "defaultVariant": "off"}"#)
        guard created.status == 200 else { throw TestFailure("creating \(key) failed: \(created.status) \(created.body)") }
        let settings = try await request(
            .PUT, "/admin/v1/environments/\(environment)/flags/\(key)/settings", token: adminToken,
            body: #"{"enabled": \#(enabled), "defaultVariant": "\#(defaultVariant)"\#(targeting.map { #", "targeting": \#($0)"# } ?? "")}"#)
        guard settings.status == 200 else { throw TestFailure("setting \(key) failed: \(settings.status) \(settings.body)") }
    }
}

extension ServerLimits {
    /// The defaults, with a write timeout and a replica's wait for the database long enough for
    /// a machine busy with the whole suite (a write's deadline has tests of its own, with short
    /// timeouts; a catch-up that cannot reach the database ends at once, not at its limit).
    static var forTests: ServerLimits {
        var limits = ServerLimits()
        limits.writeTimeout = .seconds(120)
        limits.catchUpLimit = .seconds(120)
        return limits
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
