import FeatureFlags
import FeatureFlagsRemote
import enum FlagServer.TokenRole
import Foundation
import NIOHTTP1
import Testing

/// The library's loader against this server: it follows the event stream the bulk evaluation
/// advertises, so a change written through the admin API reaches it without any polling.
struct ClientStreamTests {
    enum StreamedFlag: String, CaseIterable, FeatureFlagKey {
        case checkout

        var metadata: FlagMetadata<StreamedFlag> { FlagMetadata("Checkout") }
    }

    @Test func aLoaderSeesAnAdminChangeThroughTheEventStreamWithoutPolling() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout", environment: "production", enabled: true, defaultVariant: "off")
            let token = try await server.token(.client, environment: "production")
            let environment = AppEnvironment(
                .prod, baseURL: URL(string: server.baseURL)!, bundleIdentifier: "com.example.tests", appVersion: "1.0",
                build: "1")
            // An hour's TTL: nothing but the event stream can bring the change within the test.
            let loader = RemoteConfigurationLoader(
                configuration: .init(
                    environment: environment, source: .ofrep(context: .init(targetingKey: "user-1")), cacheDirectory: nil,
                    defaultTTL: 3_600, headerFields: ["Authorization": "Bearer \(token)"]),
                registry: try FlagRegistry(StreamedFlag.self))
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
