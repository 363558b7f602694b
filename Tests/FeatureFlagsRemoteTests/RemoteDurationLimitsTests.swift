import FeatureFlags
import Foundation
import RemoteTestSupport
import Testing

@testable import FeatureFlagsRemote

/// Durations from outside (TTL, `Retry-After`, backoff, the cache header) are held to
/// ``RemoteDurationLimits`` where they enter.
struct RemoteDurationLimitsTests {
    static let week: TimeInterval = 7 * 86_400
    static let day: TimeInterval = 86_400

    @Test func aHugeTTLInAPayloadIsHeldToSevenDays() throws {
        let decoded = try RemotePayloadDecoder.decode(
            Data(#"{"schemaVersion": 1, "flags": {}, "ttlSeconds": 1e16}"#.utf8), format: .appConfig,
            registry: testRegistry)
        #expect(decoded.ttl == Self.week)
    }

    @Test func aHugeTTLFromTheServerIsCachedAndScheduledAsSevenDays() async throws {
        try await Fixture.run(.json(#"{"schemaVersion": 1, "flags": {}, "ttlSeconds": 1e16}"#)) { fixture in
            let loader = fixture.loader()
            let start = fixture.clock.now
            _ = try await loader.loadFlags()
            #expect(loader.snapshot.expiresAt == start.addingTimeInterval(Self.week))
            // The refresh is scheduled by a task of its own: wait until it sleeps, then check
            // that it is the only sleeper.
            await fixture.clock.waitForSleeper(until: start.addingTimeInterval(Self.week))
            #expect(fixture.clock.sleepingUntil == [start.addingTimeInterval(Self.week)])
            guard case .entry(let entry) = loader.cacheFile!.read(now: start) else {
                Issue.record("No cache entry was written")
                return
            }
            #expect(entry.ttl == Self.week)
        }
    }

    @Test func aDefaultTTLBeyondTheRangeIsHeldToIt() async throws {
        try await Fixture.run(.json(#"{"schemaVersion": 1, "flags": {}}"#)) { fixture in
            let loader = fixture.loader(defaultTTL: .infinity)
            _ = try await loader.loadFlags()
            #expect(loader.snapshot.expiresAt == fixture.clock.now.addingTimeInterval(Self.week))
        }
    }

    @Test(arguments: [
        #"{"version":1,"format":"app_config","cacheKey":"k","writtenAt":1900000000,"ttlSeconds":1e16,"payloadLength":2}"#,
        #"{"version":1,"format":"app_config","cacheKey":"k","writtenAt":1e300,"ttlSeconds":60,"payloadLength":2}"#,
    ])
    func aCacheFileWithAnOutOfRangeDurationIsMovedAsideAndReported(header: String) async throws {
        try await Fixture.run(.json(Payloads.appConfig())) { fixture in
            let loader = fixture.loader()
            let url = loader.cacheFile!.url
            try Data((header + "\n{}").utf8).write(to: url)

            #expect(loader.cachedFlags() == nil)
            let problem = try #require(loader.snapshot.cacheProblem)
            #expect(problem.contains("ttlSeconds") || problem.contains("writtenAt"))
            #expect(!FileManager.default.fileExists(atPath: url.path))
            let aside = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path)
                .filter { $0.contains(".corrupt-") }
            #expect(aside.count == 1)
        }
    }

    @Test(arguments: ["9223372036854775807", "99999999999999999999999999", "86401"])
    func aHugeRetryAfterIsHeldToADay(value: String) async throws {
        try await Fixture.run(.respond(status: 429, headers: [("Retry-After", value)])) { fixture in
            let loader = fixture.loader()
            let start = fixture.clock.now
            await #expect(throws: RemoteLoadError.self) { try await loader.loadFlags() }
            #expect(loader.snapshot.nextRefreshAt == start.addingTimeInterval(Self.day))
            // The refresh is scheduled by a task of its own: wait until it sleeps, then check
            // that it is the only sleeper.
            await fixture.clock.waitForSleeper(until: start.addingTimeInterval(Self.day))
            #expect(fixture.clock.sleepingUntil == [start.addingTimeInterval(Self.day)])
        }
    }

    @Test func retryAfterDatesAreHeldBetweenNowAndADayLater() {
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        let nextYear = RetryAfter.httpDate(now.addingTimeInterval(365 * Self.day))
        #expect(RetryAfter.date(from: nextYear, now: now) == now.addingTimeInterval(Self.day))
        #expect(RetryAfter.date(from: "9999-12-31T23:59:59Z", now: now) == now.addingTimeInterval(Self.day))
        #expect(RetryAfter.date(from: "Wed, 21 Oct 2015 07:28:00 GMT", now: now) == now)
        #expect(RetryAfter.date(from: "120", now: now) == now.addingTimeInterval(120))
    }

    @Test func backoffIsCappedWhateverThePolicySays() {
        let policy = RefreshRetryPolicy(
            initialDelay: 1e300, multiplier: 1e300, maximumDelay: .infinity, jitter: 0, random: { .nan })
        #expect(policy.delay(afterFailures: 1) == RemoteDurationLimits.backoff.upperBound)
        #expect(policy.delay(afterFailures: Int.max) == RemoteDurationLimits.backoff.upperBound)
        let nan = RefreshRetryPolicy(initialDelay: .nan, jitter: 0)
        #expect(RemoteDurationLimits.backoff.contains(nan.delay(afterFailures: 3)))
    }

    @Test func theSystemClockSleepsUntilAnyDeadlineWithoutOverflowing() async {
        // Cancelled at once: what is tested is that a deadline this far away does not overflow.
        let sleeper = Task { try await SystemRefreshClock().sleep(until: Date(timeIntervalSinceNow: 1e16)) }  // on purpose
        sleeper.cancel()
        let result = await sleeper.result
        #expect(throws: CancellationError.self) { try result.get() }
    }
}
