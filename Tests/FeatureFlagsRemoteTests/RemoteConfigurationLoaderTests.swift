import FeatureFlags
import FeatureFlagsTesting
import Foundation
import RemoteTestSupport
import Testing

@testable import FeatureFlagsRemote

/// The loader against a real HTTP server on loopback.
struct RemoteConfigurationLoaderTests {
    // MARK: - Happy paths

    @Test func appConfigHappyPath() async throws {
        try await Fixture.run(.json(Payloads.appConfig(), headers: [("ETag", #""v1""#)])) { fixture in
            let loader = fixture.loader()
            #expect(loader.cachedFlags() == nil)
            #expect(loader.status == .notReady)

            let values = try await loader.loadFlags()
            #expect(values.source == "app_config")
            #expect(values.values["chat_view_redesign"]?.value == true)
            #expect(values.values["auth.magic_link_resend_cooldown_seconds"]?.value == 30)
            #expect(values.values["cues.page_size"]?.value == 50)
            #expect(loader.status == .ready)
            #expect(loader.snapshot.expiresAt == fixture.clock.now.addingTimeInterval(120))
            #expect(loader.snapshot.nextRefreshAt == fixture.clock.now.addingTimeInterval(120))

            let request = try #require(fixture.server.requests.first)
            #expect(request.method == "GET")
            #expect(request.path == "/rpc/app_config")
            #expect(request.headers["user-agent"] == "com.example.tests/1.2.3 (45)")
            #expect(request.headers["if-none-match"] == nil)

            guard case .entry(let entry) = loader.cacheFile!.read(now: fixture.clock.now) else {
                Issue.record("No cache entry was written")
                return
            }
            #expect(entry.etag == #""v1""#)
            #expect(entry.ttl == 120)
            #expect(entry.writtenAt == fixture.clock.now)
        }
    }

    @Test func ofrepHappyPath() async throws {
        try await Fixture.run(.json(Payloads.ofrep, headers: [("ETag", "abc")])) { fixture in
            // No app context: the body is exactly the app's (AppContextRemoteTests covers it).
            let context = RemoteEvaluationContext(targetingKey: "user-123", attributes: ["plan": "premium"], appContext: nil)
            let loader = fixture.loader(source: .ofrep(context: context))
            let values = try await loader.loadFlags()

            #expect(values.source == "ofrep")
            // Exposures name the unit the values were served to and the response's revision.
            #expect(values.unit == "user-123")
            #expect(values.revision == "abc")
            let relaunched = fixture.loader(source: .ofrep(context: context))
            #expect(relaunched.cachedFlags()?.unit == "user-123")
            #expect(relaunched.cachedFlags()?.revision == "abc")
            #expect(values.values["chat_view_redesign"] == RemoteFlagValue(true, variant: "on", reason: .targetingMatch))
            #expect(values.values["cues.page_size"] == RemoteFlagValue(40, variant: "b", reason: .split))
            #expect(values.values["offline_mode"] == nil)
            #expect(values.values["analytics.session_replay_enabled"] == nil)
            #expect(
                loader.snapshot.ignored == [
                    IgnoredRemoteValue(key: "not_in_app", reason: .unknownKey),
                    IgnoredRemoteValue(key: "offline_mode", reason: .evaluationFailed(errorCode: "PARSE_ERROR")),
                ])

            let request = try #require(fixture.server.requests.first)
            #expect(request.method == "POST")
            #expect(request.path == "/ofrep/v1/evaluate/flags")
            #expect(request.headers["content-type"] == "application/json")
            let body = try FlagValue(json: String(decoding: request.body, as: UTF8.self))
            #expect(body == ["context": ["targetingKey": "user-123", "plan": "premium"]])
        }
    }

    // MARK: - Conditional requests

    @Test func notModifiedKeepsTheCacheRefreshesItsAgeAndDecodesNothing() async throws {
        try await Fixture.run(
            .json(Payloads.appConfig(ttl: 60), headers: [("ETag", #""v1""#)]), .respond(status: 304)
        ) { fixture in
            let loader = fixture.loader()
            let first = try await loader.loadFlags()
            #expect(loader.decodeCount == 1)

            fixture.clock.advance(by: 30)
            let second = try await loader.refresh()
            #expect(second == first)
            #expect(loader.decodeCount == 1)
            #expect(fixture.server.requests.last?.headers["if-none-match"] == #""v1""#)
            #expect(loader.status == .ready)
            #expect(loader.snapshot.fetchedAt == fixture.clock.now)
            #expect(loader.snapshot.expiresAt == fixture.clock.now.addingTimeInterval(60))

            guard case .entry(let entry) = loader.cacheFile!.read(now: fixture.clock.now) else {
                Issue.record("The cache entry is gone")
                return
            }
            #expect(entry.writtenAt == fixture.clock.now)
            #expect(entry.etag == #""v1""#)
        }
    }

    // MARK: - Refusals and rate limits

    @Test(arguments: [401, 403])
    func unauthorizedStopsRefreshingWithAFatalStatus(status: Int) async throws {
        try await Fixture.run(.json(#"{"error": "no"}"#, status: status)) { fixture in
            let loader = fixture.loader()
            await #expect(throws: RemoteLoadError.self) { try await loader.loadFlags() }
            guard case .fatal(let error) = loader.status else {
                Issue.record("Expected a fatal status, got \(loader.status)")
                return
            }
            #expect(error.code == .unauthorized)
            #expect(error.statusCode == status)
            #expect(loader.snapshot.nextRefreshAt == nil)
            #expect(loader.snapshot.notice?.kind == .usingDefaults)

            // No more requests, whatever the trigger.
            await #expect(throws: RemoteLoadError.self) { try await loader.refresh() }
            await loader.refreshIfNeeded()
            #expect(fixture.server.requestCount == 1)
            #expect(fixture.clock.sleepingUntil.isEmpty)
        }
    }

    @Test func rateLimitedWithDelaySecondsWaitsForRetryAfter() async throws {
        try await Fixture.run(
            .respond(status: 429, headers: [("Retry-After", "120")]), .json(Payloads.appConfig())
        ) { fixture in
            let loader = fixture.loader()
            let start = fixture.clock.now
            await #expect(throws: RemoteLoadError.self) { try await loader.loadFlags() }
            #expect(loader.snapshot.lastError?.code == .rateLimited)
            #expect(loader.snapshot.nextRefreshAt == start.addingTimeInterval(120))

            // Nothing is sent before Retry-After.
            fixture.clock.advance(by: 119)
            let error = await #expect(throws: RemoteLoadError.self) { try await loader.refresh() }
            #expect(error?.code == .rateLimited)
            #expect(fixture.server.requestCount == 1)

            // At Retry-After the timer refreshes, and the values reach `updates()`.
            let updates = loader.updates()
            await fixture.clock.waitForSleeper(until: start.addingTimeInterval(120))
            fixture.clock.advance(to: start.addingTimeInterval(120))
            var iterator = updates.makeAsyncIterator()
            let values = await iterator.next()
            #expect(values?.values["cues.page_size"]?.value == 50)
            #expect(fixture.server.requestCount == 2)
            #expect(loader.status == .ready)
        }
    }

    @Test func rateLimitedWithAnHTTPDateWaitsUntilThatDate() async throws {
        let clock = ManualClock()
        let retryAt = clock.now.addingTimeInterval(3600)
        try await Fixture.run(.respond(status: 429, headers: [("Retry-After", RetryAfter.httpDate(retryAt))])) {
            fixture in
            let loader = fixture.loader()
            await #expect(throws: RemoteLoadError.self) { try await loader.loadFlags() }
            #expect(loader.snapshot.nextRefreshAt == retryAt)
            fixture.clock.advance(by: 1800)
            await #expect(throws: RemoteLoadError.self) { try await loader.refresh() }
            #expect(fixture.server.requestCount == 1)
        }
    }

    // MARK: - Failures and retries

    @Test func serverErrorsBackOffThenRecover() async throws {
        try await Fixture.run(
            .respond(status: 500), .respond(status: 503), .json(Payloads.appConfig())
        ) { fixture in
            let loader = fixture.loader()
            let updates = loader.updates()
            var iterator = updates.makeAsyncIterator()
            let start = fixture.clock.now

            let error = await #expect(throws: RemoteLoadError.self) { try await loader.loadFlags() }
            #expect(error?.code == .serverError)
            #expect(loader.status == .error(error!))
            #expect(loader.snapshot.notice?.kind == .usingDefaults)
            #expect(loader.snapshot.nextRefreshAt == start.addingTimeInterval(2))

            await fixture.clock.waitForSleeper(until: start.addingTimeInterval(2))
            fixture.clock.advance(to: start.addingTimeInterval(2))
            // Second failure: the wait doubles.
            await fixture.clock.waitForSleeper(until: start.addingTimeInterval(2 + 4))
            #expect(loader.snapshot.lastError?.statusCode == 503)
            fixture.clock.advance(to: start.addingTimeInterval(6))

            let values = await iterator.next()
            #expect(values?.values["chat_view_redesign"]?.value == true)
            #expect(loader.status == .ready)
            #expect(loader.snapshot.notice == nil)
            #expect(fixture.server.requestCount == 3)
        }
    }

    @Test func aSlowResponseTimesOutOnTheInjectedClock() async throws {
        let gate = Gate()
        try await Fixture.run(.gated(gate, then: ScriptedResponseBox(.json(Payloads.appConfig())))) { fixture in
            let loader = fixture.loader(timeout: 10)
            let start = fixture.clock.now
            let load = Task { try await loader.loadFlags() }
            await fixture.clock.waitForSleeper(until: start.addingTimeInterval(10))
            fixture.clock.advance(by: 10)
            let result = await load.result
            #expect(throws: RemoteLoadError.self) { try result.get() }
            #expect(loader.snapshot.lastError?.code == .timedOut)
            gate.open()
        }
    }

    @Test func aResponseCutOffMidBodyKeepsTheLastGoodValues() async throws {
        let body = Array(Payloads.appConfig(config: #"{"cues.page_size": 99}"#).utf8)
        try await Fixture.run(
            .json(Payloads.appConfig()),
            .truncated(status: 200, headers: [("Content-Type", "application/json")], body: body, sending: body.count / 2)
        ) { fixture in
            let loader = fixture.loader()
            let good = try await loader.loadFlags()
            let error = await #expect(throws: RemoteLoadError.self) { try await loader.refresh() }
            #expect([.connectionFailed, .invalidJSON].contains(error?.code))
            #expect(loader.snapshot.values == good)
            #expect(loader.status == .stale)
        }
    }

    @Test func aWrongContentTypeIsRejected() async throws {
        try await Fixture.run(
            .json(Payloads.appConfig()),
            .respond(status: 200, headers: [("Content-Type", "text/html")], body: Array("<html>Sign in to Wi-Fi</html>".utf8))
        ) { fixture in
            let loader = fixture.loader()
            let good = try await loader.loadFlags()
            let error = await #expect(throws: RemoteLoadError.self) { try await loader.refresh() }
            #expect(error?.code == .unexpectedContentType)
            #expect(loader.snapshot.values == good)
        }
    }

    @Test func aTenMegabytePayloadLoadsAndALimitRejectsIt() async throws {
        let padding = String(repeating: "x", count: 10 * 1024 * 1024)
        let payload = #"{"schemaVersion": 1, "notes": "\#(padding)", "config": {"cues.page_size": 70}}"#
        try await Fixture.run(.json(payload)) { fixture in
            let values = try await fixture.loader().loadFlags()
            #expect(values.values["cues.page_size"]?.value == 70)

            let limited = fixture.loader(cache: false, maximumPayloadSize: 1024 * 1024)
            let error = await #expect(throws: RemoteLoadError.self) { try await limited.loadFlags() }
            #expect(error?.code == .payloadTooLarge)
        }
    }

    @Test func invalidJSONIsRejectedWholeAndTheLastGoodValuesStay() async throws {
        try await Fixture.run(.json(Payloads.appConfig()), .json(#"{"schemaVersion": 1, "flags": {"#)) { fixture in
            let loader = fixture.loader()
            let good = try await loader.loadFlags()
            let error = await #expect(throws: RemoteLoadError.self) { try await loader.refresh() }
            #expect(error?.code == .invalidJSON)
            #expect(loader.snapshot.values == good)
            guard case .entry(let entry) = loader.cacheFile!.read(now: fixture.clock.now) else {
                Issue.record("The good cache entry is gone")
                return
            }
            #expect(String(decoding: entry.payload, as: UTF8.self) == Payloads.appConfig())
        }
    }

    @Test func wrongTypedAndUnknownKeysAreIgnoredByKeyAndTheRestApplies() async throws {
        let payload = Payloads.appConfig(
            flags: #"{"chat_view_redesign": true, "no_such_flag": true}"#,
            config: #"{"cues.page_size": "fifty", "support.contact": 12345, "auth.magic_link_resend_cooldown_seconds": 45}"#)
        try await Fixture.run(.json(payload)) { fixture in
            let loader = fixture.loader()
            let values = try await loader.loadFlags()
            #expect(Set(values.values.keys) == ["chat_view_redesign", "auth.magic_link_resend_cooldown_seconds"])
            #expect(
                loader.snapshot.ignored == [
                    IgnoredRemoteValue(key: "cues.page_size", reason: .typeMismatch(expected: .integer)),
                    IgnoredRemoteValue(key: "no_such_flag", reason: .unknownKey),
                    IgnoredRemoteValue(key: "support.contact", reason: .typeMismatch(expected: .string)),
                ])
            // Logs name the keys, never the values.
            let logs = fixture.logs.lines.joined(separator: "\n")
            #expect(logs.contains("no_such_flag"))
            #expect(logs.contains("cues.page_size"))
            #expect(!logs.contains("fifty"))
            #expect(!logs.contains("12345"))
        }
    }

    @Test func aPayloadInAnotherSchemaIsRejectedWhole() async throws {
        try await Fixture.run(
            .json(Payloads.appConfig()), .json(#"{"hello": "world"}"#), .json(#"{"schemaVersion": 2, "flags": {}}"#)
        ) { fixture in
            let loader = fixture.loader()
            let good = try await loader.loadFlags()
            let mismatch = await #expect(throws: RemoteLoadError.self) { try await loader.refresh() }
            #expect(mismatch?.code == .schemaMismatch)
            let version = await #expect(throws: RemoteLoadError.self) { try await loader.refresh(reason: .userInitiated) }
            #expect(version?.code == .unsupportedSchemaVersion)
            #expect(loader.snapshot.values == good)
        }
    }

    // MARK: - Cache

    @Test func coldStartFromTheCacheWithTheServerDown() async throws {
        try await Fixture.run(.json(Payloads.appConfig(ttl: 60), headers: [("ETag", "e1")])) { fixture in
            _ = try await fixture.loader().loadFlags()
            await fixture.server.shutdown()
            let down = fixture.server.baseURL

            // Within the TTL: cached values at once, and launch makes no request.
            let fresh = fixture.loader(baseURL: down)
            let cached = try #require(fresh.cachedFlags())
            #expect(cached.source == "cache")
            #expect(cached.values["cues.page_size"] == RemoteFlagValue(50, reason: .cached))
            #expect(fresh.status == .ready)
            #expect(try await fresh.loadFlags() == cached)

            // Past the TTL: stale values at once; the refresh fails and they stay.
            fixture.clock.advance(by: 61)
            let stale = fixture.loader(baseURL: down)
            let staleValues = try #require(stale.cachedFlags())
            #expect(staleValues.values["cues.page_size"] == RemoteFlagValue(50, reason: .stale))
            #expect(stale.status == .stale)
            #expect(try await stale.loadFlags() == staleValues)
            #expect(stale.status == .stale)
            #expect(stale.snapshot.lastError?.code == .connectionFailed)
            #expect(stale.snapshot.notice == nil)
        }
    }

    @Test func noCacheAndNoServerGivesDefaultsAndANotice() async throws {
        try await Fixture.run(.respond(status: 500)) { fixture in
            let loader = fixture.loader(baseURL: try await deadURL())
            let error = await #expect(throws: RemoteLoadError.self) { try await loader.loadFlags() }
            #expect(error?.code == .connectionFailed)
            #expect(loader.snapshot.values == .empty)
            #expect(loader.snapshot.notice?.kind == .usingDefaults)
            #expect(loader.snapshot.notice?.message.contains("built-in settings") == true)
        }
    }

    @Test(arguments: ["garbage without a header", #"{"version":1,"format":"app_config","cacheKey":"x","writtenAt":0,"ttlSeconds":60,"payloadLength":500}"# + "\n{\"schemaVersion\": 1"])
    func aCorruptCacheFileIsMovedAsideAndReported(contents: String) async throws {
        try await Fixture.run(.json(Payloads.appConfig())) { fixture in
            let loader = fixture.loader()
            let url = loader.cacheFile!.url
            try Data(contents.utf8).write(to: url)

            #expect(loader.cachedFlags() == nil)
            #expect(loader.snapshot.cacheProblem != nil)
            #expect(!FileManager.default.fileExists(atPath: url.path))
            let aside = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path)
                .filter { $0.contains(".corrupt-") }
            #expect(aside.count == 1)
            let moved = try Data(contentsOf: fixture.directory.appendingPathComponent(aside[0]))
            #expect(String(decoding: moved, as: UTF8.self) == contents)

            // The next good payload is cached anew; the moved file stays.
            _ = try await loader.loadFlags()
            #expect(FileManager.default.fileExists(atPath: url.path))
            #expect(FileManager.default.fileExists(atPath: fixture.directory.appendingPathComponent(aside[0]).path))
        }
    }

    // MARK: - Refresh triggers

    @Test func ttlExpiryRefreshesInTheBackground() async throws {
        try await Fixture.run(.json(Payloads.appConfig(ttl: 60))) { fixture in
            let loader = fixture.loader()
            _ = try await loader.loadFlags()
            let expiry = try #require(loader.snapshot.expiresAt)

            fixture.script.set(.json(Payloads.appConfig(config: #"{"cues.page_size": 75}"#, ttl: 60)))
            var updates = loader.updates().makeAsyncIterator()
            await fixture.clock.waitForSleeper(until: expiry)
            fixture.clock.advance(to: expiry)

            let values = await updates.next()
            #expect(values?.values["cues.page_size"]?.value == 75)
            #expect(fixture.server.requestCount == 2)
            #expect(loader.snapshot.expiresAt == expiry.addingTimeInterval(60))
        }
    }

    @Test func foregroundRefreshesOnlyWhenDue() async throws {
        try await Fixture.run(.respond(status: 500), .json(Payloads.appConfig(ttl: 60))) { fixture in
            let loader = fixture.loader()
            let start = fixture.clock.now
            _ = try? await loader.loadFlags()
            #expect(fixture.server.requestCount == 1)

            // A retry is pending, inside its backoff: coming to the foreground sends nothing.
            await loader.applicationWillEnterForeground().value
            #expect(fixture.server.requestCount == 1)

            // At the end of the backoff the timer retries.
            var updates = loader.updates().makeAsyncIterator()
            await fixture.clock.waitForSleeper(until: start.addingTimeInterval(2))
            fixture.clock.advance(to: start.addingTimeInterval(2))
            #expect(await updates.next()?.values["chat_view_redesign"]?.value == true)
            #expect(fixture.server.requestCount == 2)

            // Fresh values: the foreground does nothing.
            await loader.refreshIfNeeded()
            #expect(fixture.server.requestCount == 2)
        }
    }

    @Test func statusEventsAndSnapshotsFollowChanges() async throws {
        try await Fixture.run(.respond(status: 500), .json(Payloads.appConfig())) { fixture in
            let loader = fixture.loader()
            var statuses = loader.statusUpdates().makeAsyncIterator()
            var snapshots = loader.snapshots().makeAsyncIterator()
            #expect(await statuses.next() == .notReady)
            #expect(await snapshots.next()?.status == .notReady)

            _ = try? await loader.loadFlags()
            #expect(await statuses.next()?.name == "error")
            #expect(await snapshots.next()?.status.name == "error")

            _ = try await loader.refresh(reason: .userInitiated)
            #expect(await statuses.next() == .ready)
            var latest = await snapshots.next()
            while latest?.status != .ready { latest = await snapshots.next() }
            #expect(latest?.values.values["cues.page_size"]?.value == 50)
        }
    }
}
