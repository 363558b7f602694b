import FeatureFlags
import FeatureFlagsEvents
import FeatureFlagsRemote
import enum FlagEvaluation.JSONValue
import struct FlagServer.EventBatch
import enum FlagServer.TokenRole
import Foundation
import NIOHTTP1
import Testing

/// The library's own delivery (`FlagEventRecorder`, `FlagEventDelivery`) against the server's
/// ingestion endpoint: what the app records reaches the event store once, as it was recorded.
struct EventIngestionClientTests {
    @Test
    func theLibrarysDeliveryIsAcceptedAndStoredOnce() async throws {
        let store = RecordingEventStore()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ingestion-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await TestServer.with(eventStore: store) { server in
            let token = try await server.token(.client, environment: "production")
            let recorder = FlagEventRecorder(.init(
                source: FlagEventSource(appVersion: "4.2", buildConfiguration: "release", platform: "iOS"),
                allowedAttributes: ["plan"]))
            recorder.recordExposure(
                flag: "new_checkout", variant: "treatment", value: .bool(true), isSensitive: false, reason: .split,
                revision: "\"r42\"", unit: "user-123")
            recorder.recordExposure(
                flag: "secret_price", variant: "high", value: .int(99), isSensitive: true, reason: .targetingMatch,
                revision: nil, unit: "user-123")
            recorder.track("checkout", value: 42.5, attributes: ["plan": .string("pro"), "email": .string("x@y")], unit: "user-123")
            let delivery = FlagEventDelivery(
                configuration: .init(
                    endpoint: try #require(URL(string: server.baseURL + "/ofrep/v1/ingestion")),
                    headerFields: ["Authorization": "Bearer \(token)"],
                    queueFile: directory.appendingPathComponent("flag-events.json")),
                recorder: recorder)
            let result = await delivery.flush()
            #expect(result.accepted.count == 1)
            #expect(result.retryAt == nil)
            #expect(await delivery.queuedEventCount == 0)
            let stored = await store.stored
            let batch = try #require(stored.first)
            #expect(stored.count == 1)
            #expect(batch.id == result.accepted.first)
            #expect(batch.environment == "production")
            #expect(batch.source == .init(appVersion: "4.2", buildConfiguration: "release", platform: "iOS"))
            #expect(batch.exposures.map(\.flag) == ["new_checkout", "secret_price"])
            #expect(batch.exposures.first?.value == true)
            #expect(batch.exposures.first?.revision == "\"r42\"")
            // A sensitive flag's variant goes, its value does not.
            #expect(batch.exposures.last?.variant == "high")
            #expect(batch.exposures.last?.value == nil)
            let tracked = try #require(batch.tracked.first)
            #expect(tracked.name == "checkout")
            #expect(tracked.value == 42.5)
            #expect(tracked.attributes == ["plan": "pro"])
            #expect(tracked.variants == ["new_checkout": "treatment", "secret_price": "high"])
            #expect(tracked.unit == "user-123")
            // Summaries of the reads counted so far (none were counted by hand here) may follow;
            // a second flush sends nothing already sent.
            _ = await delivery.flush()
            #expect(await store.stored.filter { $0.id == batch.id }.count == 1)
        }
    }

    /// The library's loader reads a bulk answer that advertises ingestion as before (the member is
    /// one it does not know).
    @Test
    func theLibrarysLoaderReadsABulkAnswerThatAdvertisesIngestion() async throws {
        try await TestServer.with(eventStore: RecordingEventStore()) { server in
            try await server.booleanFlag("checkout", environment: "production", enabled: true, defaultVariant: "on")
            let token = try await server.token(.client, environment: "production")
            let bulk = try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: token, body: "{}")
            #expect(bulk.json?["eventIngestion"] != nil)
            let loader = try await ClientStreamTests.loader(of: server)
            let loaded = try await loader.loadFlags()
            #expect(loaded.values["checkout"]?.value == true)
        }
    }
}
