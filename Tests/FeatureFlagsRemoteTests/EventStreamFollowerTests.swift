import FeatureFlags
import FeatureFlagsTesting
import Foundation
import RemoteTestSupport
import Testing

@testable import FeatureFlagsRemote

/// The loader following an OFREP bulk response's event stream, over an injected transport and
/// a manual clock.
struct EventStreamFollowerTests {
    static let baseURL = URL(string: "https://flags.example.com/api")!
    static let refetch = #"data: {"type":"refetchEvaluation","etag":"2"}"# + "\n\n"

    private func makeLoader(
        _ transport: EventStreamTestTransport, clock: ManualClock, logs: RecordingLogHandler = RecordingLogHandler(),
        inactivityDelay: TimeInterval? = nil
    ) -> RemoteConfigurationLoader {
        RemoteConfigurationLoader(
            configuration: .init(
                environment: Fixture.environment(Self.baseURL), source: .ofrep(context: .init(targetingKey: "user-1")),
                cacheDirectory: nil, defaultTTL: 3_600, requestTimeout: 10,
                retryPolicy: RefreshRetryPolicy(initialDelay: 2, multiplier: 2, maximumDelay: 60, jitter: 0.5, random: { 0 }),
                headerFields: ["Authorization": "Bearer secret-token"], eventStreamInactivityDelay: inactivityDelay),
            registry: testRegistry, transport: transport, clock: clock, logger: logs.logger)
    }

    @Test func anEventRefetchesWithTheETagAndTheNewValuesArrive() async throws {
        let transport = EventStreamTestTransport()
        let clock = ManualClock()
        let loader = makeLoader(transport, clock: clock)
        #expect(try await loader.loadFlags().values["cues.page_size"]?.value == 41)
        let expiresAt = clock.now.addingTimeInterval(3_600)

        let stream = await transport.connection(1)
        #expect(stream.request.url.absoluteString == "https://flags.example.com/ofrep/v1/events")
        #expect(stream.request.headerFields["Authorization"] == "Bearer secret-token")
        #expect(stream.request.headerFields["Accept"] == "text/event-stream")
        #expect(stream.request.headerFields["Last-Event-ID"] == nil)
        #expect(loader.debugRemoteStatus.eventStream != nil)
        var snapshots = loader.snapshots().makeAsyncIterator()
        while await snapshots.next()?.isEventStreamConnected != true {}
        #expect(loader.debugRemoteStatus.eventStream == "connected")
        // Connecting right after the response that advertised the stream refetches nothing.
        #expect(transport.snapshot.bulkRequests.count == 1)

        var updates = loader.updates().makeAsyncIterator()
        stream.send("id: 2\n" + Self.refetch)
        #expect(await updates.next()?.values["cues.page_size"]?.value == 42)
        let bulk = transport.snapshot.bulkRequests
        #expect(bulk.count == 2)
        #expect(bulk[1].headerFields["If-None-Match"] == "\"r1\"")
        // Polling by TTL is not brought forward: the next one is a TTL after the latest fetch.
        #expect(loader.snapshot.nextRefreshAt == expiresAt)
        #expect(loader.snapshot.isEventStreamConnected)
    }

    @Test func aReconnectSendsLastEventIDAndRefetchesUnconditionally() async throws {
        let transport = EventStreamTestTransport()
        let clock = ManualClock()
        let loader = makeLoader(transport, clock: clock)
        _ = try await loader.loadFlags()
        var updates = loader.updates().makeAsyncIterator()
        let first = await transport.connection(1)
        first.send("id: 2\n" + Self.refetch)
        #expect(await updates.next()?.values["cues.page_size"]?.value == 42)

        // The server goes away; the stream comes back after the policy's first wait (2 s).
        first.close()
        let reconnectAt = clock.now.addingTimeInterval(2)
        await clock.waitForSleeper(until: reconnectAt)
        #expect(transport.snapshot.streamRequests.count == 1)
        clock.advance(to: reconnectAt)
        let second = await transport.connection(2)
        #expect(second.request.headerFields["Last-Event-ID"] == "2")
        #expect(second.request.headerFields["Authorization"] == "Bearer secret-token")

        // Changes may have been missed in between: a full refetch, without If-None-Match.
        #expect(await updates.next()?.values["cues.page_size"]?.value == 43)
        let bulk = transport.snapshot.bulkRequests
        #expect(bulk.count == 3)
        #expect(bulk[2].headerFields["If-None-Match"] == nil)
        _ = loader
    }

    @Test(arguments: [
        #"[{"type": "sse", "url": "https://evil.example.net/events"}]"#,
        #"[{"type": "sse", "endpoint": {"origin": "https://flags.example.com:8443", "requestUri": "/events"}}]"#,
        #"[{"type": "sse", "url": "http://flags.example.com/events"}]"#,
    ])
    func aStreamOnAnotherOriginIsRefused(_ eventStreams: String) async throws {
        let transport = EventStreamTestTransport(eventStreams: eventStreams)
        let logs = RecordingLogHandler()
        let loader = makeLoader(transport, clock: ManualClock(), logs: logs)
        _ = try await loader.loadFlags()
        // Refused before any connection: the credentials never left the origin.
        #expect(transport.snapshot.streamRequests.isEmpty)
        #expect(!loader.snapshot.isEventStreamConnected)
        #expect(loader.debugRemoteStatus.eventStream == nil)
        let warning = try #require(logs.recorded.first { $0.message == "Not following the advertised event stream" })
        #expect(warning.metadata["reason"]?.contains("another origin") == true)
        #expect(!logs.lines.joined().contains("secret-token"))
    }

    @Test func unknownStreamTypesAreIgnoredAndAppConfigHasNoStream() async throws {
        let transport = EventStreamTestTransport(eventStreams: #"[{"type": "websocket", "url": "/ws"}]"#)
        let loader = makeLoader(transport, clock: ManualClock())
        _ = try await loader.loadFlags()
        #expect(transport.snapshot.streamRequests.isEmpty)
    }

    @Test func repeatedFailuresBackOffWithoutATightLoop() async throws {
        let transport = EventStreamTestTransport()
        transport.setStreamStatus(503)
        let clock = ManualClock()
        let loader = makeLoader(transport, clock: clock)
        _ = try await loader.loadFlags()
        await transport.wait { $0.streamRequests.count == 1 }
        // 2, 4, 8, 16 s: one attempt per wait, and nothing in between.
        for (attempt, wait) in [2.0, 4, 8, 16].enumerated() {
            let next = clock.now.addingTimeInterval(wait)
            await clock.waitForSleeper(until: next)
            #expect(transport.snapshot.streamRequests.count == attempt + 1)
            clock.advance(to: next)
            await transport.wait { $0.streamRequests.count == attempt + 2 }
        }
        #expect(transport.snapshot.bulkRequests.count == 1)
        _ = loader
    }

    @Test func theServersRetryFieldLengthensTheWait() async throws {
        let transport = EventStreamTestTransport()
        let clock = ManualClock()
        let loader = makeLoader(transport, clock: clock)
        _ = try await loader.loadFlags()
        let stream = await transport.connection(1)
        stream.send("retry: 30000\n\n")
        stream.close()
        let next = clock.now.addingTimeInterval(30)
        await clock.waitForSleeper(until: next)
        clock.advance(by: 29)
        #expect(transport.snapshot.streamRequests.count == 1)
        clock.advance(to: next)
        _ = await transport.connection(2)
        _ = loader
    }

    @Test func unauthorizedEndsFollowing() async throws {
        let transport = EventStreamTestTransport()
        transport.setStreamStatus(401)
        let clock = ManualClock()
        let logs = RecordingLogHandler()
        let loader = makeLoader(transport, clock: clock, logs: logs)
        _ = try await loader.loadFlags()
        await transport.wait { $0.streamRequests.count == 1 }
        // The loader's TTL timer sleeps (an hour ahead); the stream does not wait to retry.
        await clock.waitForSleeper(until: clock.now.addingTimeInterval(3_600))
        clock.advance(by: 60)
        #expect(transport.snapshot.streamRequests.count == 1)
        #expect(loader.snapshot.status == .ready)
    }

    @Test func inTheBackgroundTheStreamClosesAfterTheInactivityDelayAndReopensOnForeground() async throws {
        let transport = EventStreamTestTransport(
            eventStreams: #"[{"type": "sse", "endpoint": {"requestUri": "/ofrep/v1/events"}, "inactivityDelaySec": 45}]"#)
        let clock = ManualClock()
        let loader = makeLoader(transport, clock: clock)
        _ = try await loader.loadFlags()
        _ = await transport.connection(1)
        var snapshots = loader.snapshots().makeAsyncIterator()
        while await snapshots.next()?.isEventStreamConnected != true {}

        loader.applicationDidEnterBackground()
        let closeAt = clock.now.addingTimeInterval(45)
        await clock.waitForSleeper(until: closeAt)
        clock.advance(by: 44)
        #expect(transport.snapshot.terminated == 0)
        clock.advance(to: closeAt)
        await transport.wait { $0.terminated == 1 }
        while await snapshots.next()?.isEventStreamConnected != false {}
        #expect(loader.debugRemoteStatus.eventStream == "closed while inactive")

        // Back in the foreground: reconnect, then a full refetch.
        var updates = loader.updates().makeAsyncIterator()
        await loader.applicationWillEnterForeground().value
        _ = await transport.connection(2)
        #expect(await updates.next()?.values["cues.page_size"]?.value == 42)
        #expect(transport.snapshot.bulkRequests.last?.headerFields["If-None-Match"] == nil)
    }

    @Test func aStreamFirstFollowedInTheBackgroundStillClosesAfterTheInactivityDelay() async throws {
        let transport = EventStreamTestTransport()
        let clock = ManualClock()
        let loader = makeLoader(transport, clock: clock, inactivityDelay: 30)
        // A background launch (a background fetch, say): the stream is advertised afterwards.
        loader.applicationDidEnterBackground()
        _ = try await loader.loadFlags()
        _ = await transport.connection(1)
        await clock.waitForSleeper(until: clock.now.addingTimeInterval(30))
        clock.advance(by: 30)
        await transport.wait { $0.terminated == 1 }
        #expect(transport.snapshot.streamRequests.count == 1)
    }

    @Test func theAppsInactivityDelayWinsOverTheServers() async throws {
        let transport = EventStreamTestTransport(
            eventStreams: #"[{"type": "sse", "endpoint": {"requestUri": "/e"}, "inactivityDelaySec": 45}]"#)
        let clock = ManualClock()
        let loader = makeLoader(transport, clock: clock, inactivityDelay: 5)
        _ = try await loader.loadFlags()
        _ = await transport.connection(1)
        loader.applicationDidEnterBackground()
        await clock.waitForSleeper(until: clock.now.addingTimeInterval(5))
        clock.advance(by: 5)
        await transport.wait { $0.terminated == 1 }
    }

    @Test func eventsDuringARefetchAreCoalescedIntoOneMore() async throws {
        let transport = EventStreamTestTransport()
        let clock = ManualClock()
        let loader = makeLoader(transport, clock: clock)
        _ = try await loader.loadFlags()
        let stream = await transport.connection(1)
        var updates = loader.updates().makeAsyncIterator()
        // Five announcements in one chunk: at most two refetches (the first, and one for all
        // that came while it ran).
        stream.send(String(repeating: Self.refetch, count: 5))
        var latest = await updates.next()?.values["cues.page_size"]?.value
        while latest != .int(40 + transport.snapshot.bulkRequests.count) {
            latest = await updates.next()?.values["cues.page_size"]?.value
        }
        #expect((2...3).contains(transport.snapshot.bulkRequests.count))
        // The stream keeps going: a later event refetches again.
        let before = transport.snapshot.bulkRequests.count
        stream.send(Self.refetch)
        await transport.wait { $0.bulkRequests.count == before + 1 }
    }

    @Test func anOversizedLineDropsTheConnectionAndReconnects() async throws {
        let transport = EventStreamTestTransport()
        let clock = ManualClock()
        let logs = RecordingLogHandler()
        let loader = makeLoader(transport, clock: clock, logs: logs)
        _ = try await loader.loadFlags()
        let stream = await transport.connection(1)
        stream.send("data: " + String(repeating: "x", count: 70_000))
        await transport.wait { $0.terminated == 1 }
        #expect(logs.recorded.contains { $0.message.contains("unreadable") && $0.metadata["reason"]?.contains("65536") == true })
        let next = clock.now.addingTimeInterval(2)
        await clock.waitForSleeper(until: next)
        clock.advance(to: next)
        _ = await transport.connection(2)
        _ = loader
    }

    @Test func aRefusedResponseStopsTheStream() async throws {
        let transport = EventStreamTestTransport()
        let loader = makeLoader(transport, clock: ManualClock())
        _ = try await loader.loadFlags()
        _ = await transport.connection(1)
        loader.eventStream.disconnect()
        await transport.wait { $0.terminated == 1 }
        #expect(!loader.eventStream.isConnected)
    }
}

/// Launch from a fresh cache: the stream the cached payload advertised is followed, and its
/// first connection refetches, as the cache may be behind.
struct EventStreamCachedLaunchTests {
    @Test func aFreshCacheFollowsTheCachedStreamAndRefetchesOnConnect() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ff-stream-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock()
        func makeLoader(_ transport: EventStreamTestTransport) -> RemoteConfigurationLoader {
            RemoteConfigurationLoader(
                configuration: .init(
                    environment: Fixture.environment(EventStreamFollowerTests.baseURL),
                    source: .ofrep(context: .init(targetingKey: "user-1")), cacheDirectory: directory, defaultTTL: 3_600),
                registry: testRegistry, transport: transport, clock: clock)
        }
        do {
            let first = EventStreamTestTransport()
            let loader = makeLoader(first)
            _ = try await loader.loadFlags()
            _ = await first.connection(1)
        }
        clock.advance(by: 60)
        let transport = EventStreamTestTransport()
        let relaunched = makeLoader(transport)
        var updates = relaunched.updates().makeAsyncIterator()
        #expect(try await relaunched.loadFlags().values["cues.page_size"]?.value == 41)
        _ = await transport.connection(1)
        #expect(await updates.next()?.values["cues.page_size"]?.value == 41)
        #expect(transport.snapshot.bulkRequests.count == 1)
    }
}
