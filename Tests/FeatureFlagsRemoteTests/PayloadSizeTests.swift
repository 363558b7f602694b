import FeatureFlags
import Foundation
import RemoteTestSupport
import Testing

@testable import FeatureFlagsRemote

/// `maximumPayloadSize` is enforced before and while reading, never after buffering the body.
struct PayloadSizeTests {
    static let megabyte = 1024 * 1024

    @Test func readingStopsAtTheLimitOfAnEndlessBody() async throws {
        let transport = StreamingTransport(chunkSize: 64 * 1024)
        try await Fixture.run(.respond(status: 500)) { fixture in
            let loader = fixture.loader(cache: false, maximumPayloadSize: Self.megabyte, transport: transport)
            let start = fixture.clock.now
            let error = await #expect(throws: RemoteLoadError.self) { try await loader.loadFlags() }
            #expect(error?.code == .payloadTooLarge)
            // 16 chunks fill the megabyte; the 17th is refused.
            #expect(transport.chunksPulled == 17)
            // Backed off like any other failure: a foreground return inside the wait sends nothing.
            #expect(loader.snapshot.nextRefreshAt == start.addingTimeInterval(2))
            await loader.refreshIfNeeded(.foreground)
            #expect(transport.requestCount == 1)
        }
    }

    @Test func anAnnouncedContentLengthOverTheLimitIsRefusedUnread() async throws {
        let transport = StreamingTransport(
            chunkSize: 64 * 1024, chunkCount: 32,
            headers: ["Content-Type": "application/json", "Content-Length": "\(2 * Self.megabyte)"])
        try await Fixture.run(.respond(status: 500)) { fixture in
            let loader = fixture.loader(cache: false, maximumPayloadSize: Self.megabyte, transport: transport)
            let error = await #expect(throws: RemoteLoadError.self) { try await loader.loadFlags() }
            #expect(error?.code == .payloadTooLarge)
            #expect(error?.message.contains("Content-Length") == true)
            #expect(transport.chunksPulled == 0)
        }
    }

    @Test func anAnnouncedOversizedBodyOverTheNetworkIsRefusedFromItsHead() async throws {
        // The server announces 2 MB and sends none of it: only the head can tell.
        let body = [UInt8](repeating: 0x20, count: 2 * Self.megabyte)
        try await Fixture.run(
            .truncated(status: 200, headers: [("Content-Type", "application/json")], body: body, sending: 0)
        ) { fixture in
            let loader = fixture.loader(cache: false, maximumPayloadSize: Self.megabyte)
            let error = await #expect(throws: RemoteLoadError.self) { try await loader.loadFlags() }
            #expect(error?.code == .payloadTooLarge)
        }
    }

    @Test func aBodyWithinTheLimitIsReadWhole() async throws {
        let padding = String(repeating: " ", count: 200_000)
        let text = #"{"schemaVersion": 1, "config": {"cues.page_size": 70}}"# + padding
        let chunks = stride(from: 0, to: text.utf8.count, by: 4096).map { offset in
            Data(Array(text.utf8)[offset..<min(offset + 4096, text.utf8.count)])
        }
        let response = RemoteHTTPStreamingResponse(
            statusCode: 200, headerFields: ["Content-Type": "application/json"],
            body: AsyncThrowingStream { continuation in
                for chunk in chunks { continuation.yield(chunk) }
                continuation.finish()
            })
        let data = try await BoundedBodyReader.read(response, limit: Self.megabyte)
        #expect(data == Data(text.utf8))
    }
}
