import FeatureFlags
import Foundation
import Testing

@testable import FeatureFlagsRemote

/// A `Retry-After` outlives the process: it is kept with the cache metadata, so a relaunch
/// inside the window sends nothing.
struct RetryAfterPersistenceTests {
    @Test func aRelaunchInsideTheRetryAfterWindowSendsNothing() async throws {
        try await Fixture.run(
            .json(Payloads.appConfig(ttl: 60)), .respond(status: 429, headers: [("Retry-After", "600")]),
            .json(Payloads.appConfig(config: #"{"cues.page_size": 75}"#, ttl: 60))
        ) { fixture in
            let notBefore = fixture.clock.now.addingTimeInterval(600)
            do {
                // The first launch; the process ends with the scope (and its timer with it).
                let first = fixture.loader()
                _ = try await first.loadFlags()
                await #expect(throws: RemoteLoadError.self) { try await first.refresh() }
                #expect(first.snapshot.nextRefreshAt == notBefore)
            }
            #expect(fixture.server.requestCount == 2)

            // Relaunch 100 s later: the cache is stale, yet launch sends nothing and waits.
            fixture.clock.advance(by: 100)
            let relaunched = fixture.loader()
            let cached = try #require(relaunched.cachedFlags())
            #expect(relaunched.snapshot.nextRefreshAt == notBefore)
            #expect(try await relaunched.loadFlags() == cached)
            await relaunched.refreshIfNeeded(.foreground)
            #expect(fixture.server.requestCount == 2)

            // At the Retry-After moment the relaunched loader refreshes on its own.
            var updates = relaunched.updates().makeAsyncIterator()
            await fixture.clock.waitForSleeper(until: notBefore)
            fixture.clock.advance(to: notBefore)
            #expect(await updates.next()?.values["cues.page_size"]?.value == 75)
            #expect(fixture.server.requestCount == 3)

            // A success clears it from the cache.
            guard case .entry(let entry) = relaunched.cacheFile!.read(now: fixture.clock.now) else {
                Issue.record("No cache entry")
                return
            }
            #expect(entry.notBefore == nil)
        }
    }

    @Test func aPersistedRetryAfterMoreThanADayAwayMakesTheCacheUnusable() async throws {
        try await Fixture.run(.json(Payloads.appConfig())) { fixture in
            let loader = fixture.loader()
            let notBefore = fixture.clock.now.timeIntervalSince1970 + 2 * 86_400
            let header =
                #"{"version":1,"format":"app_config","cacheKey":"k","writtenAt":1900000000,"ttlSeconds":60,"payloadLength":2,"notBefore":\#(notBefore)}"#
            try Data((header + "\n{}").utf8).write(to: loader.cacheFile!.url)
            #expect(loader.cachedFlags() == nil)
            #expect(loader.snapshot.cacheProblem?.contains("notBefore") == true)
            _ = try await loader.loadFlags()
            #expect(fixture.server.requestCount == 1)
        }
    }
}
