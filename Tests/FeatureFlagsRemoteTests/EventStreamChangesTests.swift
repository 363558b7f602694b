import FeatureFlags
import FeatureFlagsTesting
import Foundation
import RemoteTestSupport
import Testing

@testable import FeatureFlagsRemote

/// The flag server's additions to OFREP's `refetchEvaluation` event, honoured by the loader:
/// `changes` applied without a request, and a refetch spread waited out at random.
struct EventStreamChangesTests {
    static let baseURL = URL(string: "https://flags.example.com/api")!

    private func makeLoader(
        _ transport: EventStreamTestTransport, clock: ManualClock, random: @escaping @Sendable () -> Double = { 0 }
    ) -> RemoteConfigurationLoader {
        RemoteConfigurationLoader(
            configuration: .init(
                environment: Fixture.environment(Self.baseURL), source: .ofrep(context: .init(targetingKey: "user-1")),
                cacheDirectory: nil, defaultTTL: 3_600, requestTimeout: 10,
                retryPolicy: RefreshRetryPolicy(initialDelay: 2, multiplier: 2, maximumDelay: 60, jitter: 0.5, random: random),
                headerFields: ["Authorization": "Bearer secret-token"]),
            registry: testRegistry, transport: transport, clock: clock)
    }

    /// An event announcing version `etag`, with `changes` when given.
    private func event(_ etag: String, changes: String? = nil, spreadMilliseconds: Int? = nil) -> String {
        var members = [#""type":"refetchEvaluation""#, #""etag":"\#(etag)""#]
        if let changes { members.append(#""changes":\#(changes)"#) }
        if let spreadMilliseconds { members.append(#""refetchSpreadMs":\#(spreadMilliseconds)"#) }
        return "id: \(etag)\ndata: {\(members.joined(separator: ","))}\n\n"
    }

    @Test func changesForTheValuesVersionAreAppliedWithoutARequest() async throws {
        let transport = EventStreamTestTransport(metadataVersion: "1")
        let clock = ManualClock()
        let loader = makeLoader(transport, clock: clock)
        #expect(try await loader.loadFlags().values["cues.page_size"]?.value == 41)
        let stream = await transport.connection(1)
        var updates = loader.updates().makeAsyncIterator()

        stream.send(event("2", changes: #"{"since":"1","flags":[{"key":"cues.page_size","value":99,"variant":"big","reason":"STATIC"}],"removed":[]}"#, spreadMilliseconds: 60_000))
        let applied = try #require(await updates.next())
        #expect(applied.values["cues.page_size"]?.value == 99)
        #expect(applied.values["cues.page_size"]?.variant == "big")
        // The next change applies to the version the first one reached.
        stream.send(event("3", changes: #"{"since":"2","flags":[{"key":"cues.page_size","value":100,"reason":"STATIC"}]}"#))
        #expect(await updates.next()?.values["cues.page_size"]?.value == 100)
        // Not a single request, not even after the spread the events advertised.
        #expect(transport.snapshot.bulkRequests.count == 1)
        // The cached payload carries the new values and version (what a relaunch would read).
        let cached = try #require(loader.snapshot.values.values["cues.page_size"])
        #expect(cached.value == 100)

        // A removed flag falls back to the app's default.
        stream.send(event("4", changes: #"{"since":"3","flags":[],"removed":["cues.page_size"]}"#))
        #expect(await updates.next()?.values["cues.page_size"] == nil)
        #expect(transport.snapshot.bulkRequests.count == 1)
    }

    @Test func changesForAnotherVersionAreRefetched() async throws {
        let transport = EventStreamTestTransport(metadataVersion: "1")
        let clock = ManualClock()
        let loader = makeLoader(transport, clock: clock)
        _ = try await loader.loadFlags()
        let stream = await transport.connection(1)
        var updates = loader.updates().makeAsyncIterator()
        // The values are at 1; the changes apply to 6 (this client missed some): a refetch.
        stream.send(event("7", changes: #"{"since":"6","flags":[{"key":"cues.page_size","value":99,"reason":"STATIC"}]}"#))
        #expect(await updates.next()?.values["cues.page_size"]?.value == 42)
        #expect(transport.snapshot.bulkRequests.count == 2)
        #expect(transport.snapshot.bulkRequests[1].url.query?.contains("flagConfigEtag=7") == true)
    }

    @Test func changesWithoutAVersionInThePayloadAreRefetched() async throws {
        // A server that names no version: the values' version is unknown, so nothing is applied.
        let transport = EventStreamTestTransport()
        let loader = makeLoader(transport, clock: ManualClock())
        _ = try await loader.loadFlags()
        let stream = await transport.connection(1)
        var updates = loader.updates().makeAsyncIterator()
        stream.send(event("2", changes: #"{"since":"1","flags":[{"key":"cues.page_size","value":99,"reason":"STATIC"}]}"#))
        #expect(await updates.next()?.values["cues.page_size"]?.value == 42)
    }

    @Test func aRefetchWaitsARandomDelayWithinTheSpread() async throws {
        let transport = EventStreamTestTransport()
        let clock = ManualClock()
        // The random source says 0.25: a quarter of the 8 s spread.
        let loader = makeLoader(transport, clock: clock, random: { 0.25 })
        _ = try await loader.loadFlags()
        let stream = await transport.connection(1)
        var updates = loader.updates().makeAsyncIterator()
        let start = clock.now
        stream.send(event("2", spreadMilliseconds: 8_000))
        await clock.waitForSleeper(until: start.addingTimeInterval(2))
        #expect(transport.snapshot.bulkRequests.count == 1)
        clock.advance(to: start.addingTimeInterval(2))
        #expect(await updates.next()?.values["cues.page_size"]?.value == 42)
        #expect(transport.snapshot.bulkRequests.count == 2)
    }

    @Test func aSpreadFarBeyondReasonIsCappedAtFiveMinutes() {
        let metadata = EventConfigurationMetadata(event: ["etag": "2", "refetchSpreadMs": .int(86_400_000)])
        #expect(metadata.refetchSpread == 300)
        #expect(EventConfigurationMetadata(event: ["etag": "2", "refetchSpreadMs": .int(-5)]).refetchSpread == 0)
        #expect(EventConfigurationMetadata(event: ["etag": "2", "refetchSpreadMs": "soon"]).refetchSpread == 0)
    }

    @Test func eventsWithChangesWaitInOrderAndAPlainOneReplacesThem() {
        func changed(_ etag: String, inline: Bool) -> EventStreamFollower.Refetch {
            .changed(EventConfigurationMetadata(
                etag: etag, changes: inline ? InlineFlagChanges(since: "0", entries: [:]) : nil))
        }
        var pending: [EventStreamFollower.Refetch] = []
        pending = EventStreamFollower.enqueue(changed("1", inline: true), after: pending)
        pending = EventStreamFollower.enqueue(changed("2", inline: true), after: pending)
        #expect(pending == [changed("1", inline: true), changed("2", inline: true)])
        pending = EventStreamFollower.enqueue(changed("3", inline: false), after: pending)
        #expect(pending == [changed("3", inline: false)])
        pending = EventStreamFollower.enqueue(.reconnected, after: pending)
        pending = EventStreamFollower.enqueue(changed("4", inline: false), after: pending)
        #expect(pending == [.reconnected])
        // Past the bound, the newest becomes one plain refetch.
        pending = []
        for etag in 0..<EventStreamFollower.maximumPending {
            pending = EventStreamFollower.enqueue(changed(String(etag), inline: true), after: pending)
        }
        pending = EventStreamFollower.enqueue(changed("99", inline: true), after: pending)
        #expect(pending == [changed("99", inline: false)])
    }

    @Test func applyingReplacesAddsAndRemovesEntriesAndKeepsTheRest() throws {
        let payload = Data(#"{"flags":[{"key":"a","value":1},{"key":"b","value":2}],"eventStreams":[],"metadata":{"version":"5","environment":"p"}}"#.utf8)
        let changes = InlineFlagChanges(
            since: "5", entries: ["a": ["key": "a", "value": 10], "c": ["key": "c", "value": 3]], removed: ["b"])
        guard case .applied(let data) = changes.apply(to: payload, version: "6") else {
            Issue.record("not applied")
            return
        }
        guard case .object(let root) = try FlagValue(jsonData: data) else {
            Issue.record("not an object")
            return
        }
        #expect(root["flags"] == [["key": "a", "value": 10], ["key": "c", "value": 3]])
        #expect(root["metadata"] == ["version": "6", "environment": "p"])
        #expect(root["eventStreams"] == [])
        #expect(changes.apply(to: data, version: "6") == .current)
        #expect(InlineFlagChanges(since: "4", entries: [:]).apply(to: payload, version: "6") == .mismatch)
    }
}
