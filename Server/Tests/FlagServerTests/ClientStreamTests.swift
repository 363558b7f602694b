import FeatureFlags
import FeatureFlagsRemote
import enum FlagServer.TokenRole
import Foundation
import NIOHTTP1
import Synchronization
import Testing

/// The library's loader against this server: it follows the event stream the bulk evaluation
/// advertises, so a change written through the admin API reaches it without any polling.
struct ClientStreamTests {
    enum StreamedFlag: String, CaseIterable, FeatureFlagKey {
        case checkout

        var metadata: FlagMetadata<StreamedFlag> { FlagMetadata("Checkout") }
    }

    /// A loader of the production environment's OFREP bulk evaluation for `user-1`, with a
    /// client token, no cache and an hour's TTL.
    static func loader(
        of server: TestServer, transport: any HTTPTransport = URLSessionTransport()
    ) async throws -> RemoteConfigurationLoader {
        let token = try await server.token(.client, environment: "production")
        let environment = AppEnvironment(
            .prod, baseURL: URL(string: server.baseURL)!, bundleIdentifier: "com.example.tests", appVersion: "1.0", build: "1")
        return RemoteConfigurationLoader(
            configuration: .init(
                environment: environment, source: .ofrep(context: .init(targetingKey: "user-1")), cacheDirectory: nil,
                defaultTTL: 3_600, headerFields: ["Authorization": "Bearer \(token)"]),
            registry: try FlagRegistry(StreamedFlag.self), transport: transport)
    }

    @Test func aLoaderSeesAnAdminChangeThroughTheEventStreamWithoutPolling() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout", environment: "production", enabled: true, defaultVariant: "off")
            // An hour's TTL: nothing but the event stream can bring the change within the test.
            let loader = try await Self.loader(of: server)
            let loaded = try await loader.loadFlags()
            #expect(loaded.values["checkout"]?.value == false)
            let ttlRefreshAt = try #require(loader.snapshot.nextRefreshAt)

            var snapshots = loader.snapshots().makeAsyncIterator()
            while let snapshot = await snapshots.next(), !snapshot.isEventStreamConnected {}

            let reply = try await server.request(
                .PUT, "/admin/v1/environments/production/flags/checkout/settings", token: server.adminToken,
                body: #"{"enabled": true, "defaultVariant": "on"}"#)
            #expect(reply.status == 200)

            while let snapshot = await snapshots.next(), snapshot.values.values["checkout"]?.value != true {}
            #expect(loader.snapshot.values.values["checkout"]?.value == true)
            #expect(loader.snapshot.isEventStreamConnected)
            // The refetch came from the stream: the TTL refresh is still (at least) an hour out.
            #expect(try #require(loader.snapshot.nextRefreshAt) >= ttlRefreshAt)
        }
    }
}

extension ClientStreamTests {
    /// Keep-alive comments reach the loader's event stream (every 50 ms here) and are ignored:
    /// no refetch, no reconnection, still connected.
    @Test func keepAliveCommentsAreIgnoredByTheLoader() async throws {
        try await TestServer.with(eventStreamKeepAlive: .milliseconds(50)) { server in
            try await server.booleanFlag("checkout", environment: "production", enabled: true, defaultVariant: "off")
            let transport = RecordingTransport()
            let loader = try await Self.loader(of: server, transport: transport)
            _ = try await loader.loadFlags()
            var snapshots = loader.snapshots().makeAsyncIterator()
            while let snapshot = await snapshots.next(), !snapshot.isEventStreamConnected {}
            let requestsWhenConnected = transport.requests.count

            var comments = transport.keepAlives.makeAsyncIterator()
            for _ in 0..<5 { _ = await comments.next() }

            #expect(transport.requests.count == requestsWhenConnected, "\(transport.requests)")
            #expect(transport.requests.filter { $0.url.path == "/ofrep/v1/events" }.count == 1)
            #expect(loader.snapshot.isEventStreamConnected)
            #expect(loader.snapshot.values.values["checkout"]?.value == false)
        }
    }
}

/// The loader's default transport, recording every request and announcing each keep-alive
/// comment that passes through an event stream it delivers.
final class RecordingTransport: HTTPTransport {
    private let base = URLSessionTransport()
    private let recorded = Mutex<[RemoteHTTPRequest]>([])
    private let keepAliveContinuation: AsyncStream<Void>.Continuation
    /// One element per `: keep-alive` comment the loader received.
    let keepAlives: AsyncStream<Void>

    init() {
        (keepAlives, keepAliveContinuation) = AsyncStream.makeStream(of: Void.self)
    }

    var requests: [RemoteHTTPRequest] { recorded.withLock { $0 } }

    func send(_ request: RemoteHTTPRequest) async throws -> RemoteHTTPStreamingResponse {
        recorded.withLock { $0.append(request) }
        let response = try await base.send(request)
        guard response.value(forHeaderField: "Content-Type")?.hasPrefix("text/event-stream") == true else { return response }
        let continuation = keepAliveContinuation
        let body = response.body
        let (tee, teeContinuation) = AsyncThrowingStream.makeStream(of: Data.self)
        let forward = Task {
            do {
                for try await chunk in body {
                    teeContinuation.yield(chunk)
                    let text = String(decoding: chunk, as: UTF8.self)
                    for _ in text.components(separatedBy: ": keep-alive\n").dropFirst() { continuation.yield() }
                }
                teeContinuation.finish()
            } catch {
                teeContinuation.finish(throwing: error)
            }
        }
        teeContinuation.onTermination = { _ in forward.cancel() }
        return RemoteHTTPStreamingResponse(statusCode: response.statusCode, headerFields: response.headerFields, body: tee)
    }
}

extension ClientStreamTests {
    /// A change to a flag without targeting reaches the loader in the event itself: its values
    /// change and no request is sent.
    @Test func anUntargetedChangeIsAppliedFromTheEventWithoutARequest() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout", environment: "production", enabled: true, defaultVariant: "off")
            let transport = RecordingTransport()
            let loader = try await Self.loader(of: server, transport: transport)
            _ = try await loader.loadFlags()
            var snapshots = loader.snapshots().makeAsyncIterator()
            while let snapshot = await snapshots.next(), !snapshot.isEventStreamConnected {}

            let reply = try await server.request(
                .PUT, "/admin/v1/environments/production/flags/checkout/settings", token: server.adminToken,
                body: #"{"enabled": true, "defaultVariant": "on"}"#)
            #expect(reply.status == 200)
            while let snapshot = await snapshots.next(), snapshot.values.values["checkout"]?.value != true {}
            #expect(transport.requests.filter { $0.url.path == "/ofrep/v1/evaluate/flags" }.count == 1)
        }
    }

    /// OFREP ADR 0008: the refetch an event triggers carries the event's `etag` and
    /// `lastModified` as `flagConfigEtag` and `flagConfigLastModified`; no other request does.
    /// (A targeted change: the event carries no values, so the loader refetches.)
    @Test func onlyAnEventTriggeredRefetchNamesTheEventsConfiguration() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout", environment: "production", enabled: true, defaultVariant: "off")
            let transport = RecordingTransport()
            let loader = try await Self.loader(of: server, transport: transport)
            _ = try await loader.loadFlags()
            var snapshots = loader.snapshots().makeAsyncIterator()
            while let snapshot = await snapshots.next(), !snapshot.isEventStreamConnected {}

            let reply = try await server.request(
                .PUT, "/admin/v1/environments/production/flags/checkout/settings", token: server.adminToken,
                body: #"{"enabled": true, "defaultVariant": "off", "targeting": {"if": [{"==": [{"var": "targetingKey"}, "user-1"]}, "on", null]}}"#)
            #expect(reply.status == 200)
            while let snapshot = await snapshots.next(), snapshot.values.values["checkout"]?.value != true {}

            let bulk = transport.requests.filter { $0.url.path == "/ofrep/v1/evaluate/flags" }
            #expect(bulk.count == 2)
            #expect(bulk.first?.url.query == nil)
            let query = URLComponents(url: try #require(bulk.last?.url), resolvingAgainstBaseURL: false)?.queryItems ?? []
            #expect(query.first { $0.name == "flagConfigEtag" }?.value == "4")
            let lastModified = try #require(query.first { $0.name == "flagConfigLastModified" }?.value.flatMap { Int($0) })
            #expect(abs(Double(lastModified) - Date().timeIntervalSince1970) < 600)
        }
    }
}
