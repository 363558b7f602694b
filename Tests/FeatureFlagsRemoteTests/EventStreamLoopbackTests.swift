import FeatureFlags
import FeatureFlagsTesting
import Foundation
import RemoteTestSupport
import Testing

@testable import FeatureFlagsRemote

/// The event stream over the default `URLSession` transport against a loopback server that
/// streams `text/event-stream` chunk by chunk: the body must reach the parser as it arrives.
struct EventStreamLoopbackTests {
    static func bulk(_ pageSize: Int) -> String {
        #"""
        {"flags": [{"key": "cues.page_size", "value": \#(pageSize), "reason": "STATIC"}],
         "eventStreams": [{"type": "sse", "endpoint": {"requestUri": "/ofrep/v1/events"}}]}
        """#
    }

    @Test func anEventStreamedOverLoopbackRefetchesWithTheETag() async throws {
        let feed = EventStreamFeed()
        try await Fixture.run(
            .json(Self.bulk(41), headers: [("ETag", #""r1""#)]), .eventStream(feed),
            .json(Self.bulk(42), headers: [("ETag", #""r2""#)])
        ) { fixture in
            let loader = fixture.loader(
                source: .ofrep(context: .init(targetingKey: "user-1")), defaultTTL: 3_600,
                headerFields: ["Authorization": "Bearer loopback-secret"])
            let loaded = try await loader.loadFlags()
            #expect(loaded.values["cues.page_size"]?.value == 41)
            var snapshots = loader.snapshots().makeAsyncIterator()
            while await snapshots.next()?.isEventStreamConnected != true {}

            var updates = loader.updates().makeAsyncIterator()
            // A comment and a retry first, then one event split over chunks, with CRLF endings
            // and its JSON over two data lines.
            feed.send(": environment production at revision 1\nretry: 2000\n\n")
            feed.send("id: 2\r\ndata: {\"type\":\"refetch")
            feed.send("Evaluation\",\r\ndata: \"etag\":\"2\"}\r\n\r\n")
            #expect(await updates.next()?.values["cues.page_size"]?.value == 42)

            let requests = fixture.server.requests
            #expect(requests.map(\.method) == ["POST", "GET", "POST"])
            #expect(requests[1].path == "/ofrep/v1/events")
            #expect(requests[1].headers["authorization"] == "Bearer loopback-secret")
            #expect(requests[1].headers["accept"] == "text/event-stream")
            #expect(requests[2].headers["if-none-match"] == #""r1""#)
            #expect(loader.snapshot.isEventStreamConnected)
            feed.close()
        }
    }

    @Test func aStreamThatEndsIsReopenedWithLastEventIDAndAFullRefetch() async throws {
        let first = EventStreamFeed()
        let second = EventStreamFeed()
        try await Fixture.run(
            .json(Self.bulk(41), headers: [("ETag", #""r1""#)]), .eventStream(first),
            .json(Self.bulk(42), headers: [("ETag", #""r2""#)]), .eventStream(second),
            .json(Self.bulk(43), headers: [("ETag", #""r3""#)])
        ) { fixture in
            let loader = fixture.loader(source: .ofrep(context: .init(targetingKey: "user-1")), defaultTTL: 3_600)
            _ = try await loader.loadFlags()
            var updates = loader.updates().makeAsyncIterator()
            var snapshots = loader.snapshots().makeAsyncIterator()
            while await snapshots.next()?.isEventStreamConnected != true {}
            first.send("id: 7\ndata: {\"type\":\"refetchEvaluation\"}\n\n")
            #expect(await updates.next()?.values["cues.page_size"]?.value == 42)

            let start = fixture.clock.now
            first.close()
            while await snapshots.next()?.isEventStreamConnected != false {}
            await fixture.clock.waitForSleeper(until: start.addingTimeInterval(2))
            fixture.clock.advance(by: 2)
            #expect(await updates.next()?.values["cues.page_size"]?.value == 43)
            let requests = fixture.server.requests
            #expect(requests.map(\.method) == ["POST", "GET", "POST", "GET", "POST"])
            #expect(requests[3].headers["last-event-id"] == "7")
            #expect(requests[4].headers["if-none-match"] == nil)
            second.close()
        }
    }
}
