import FeatureFlags
import FeatureFlagsTesting
import Foundation
import RemoteTestSupport
import Testing

@testable import FeatureFlagsRemote

/// A `Retry-After` outlives the process: it is kept in a small file beside the cache, so a
/// relaunch inside the window sends nothing, with or without a cached payload.
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

    @Test func aRelaunchInsideTheRetryAfterWindowSendsNothingEvenWithNothingCached() async throws {
        try await Fixture.run(
            .respond(status: 429, headers: [("Retry-After", "600")]),
            .json(Payloads.appConfig(config: #"{"cues.page_size": 75}"#, ttl: 60))
        ) { fixture in
            let notBefore = fixture.clock.now.addingTimeInterval(600)
            do {
                // The very first launch is rate limited: nothing is cached.
                let first = fixture.loader()
                await #expect(throws: RemoteLoadError.self) { try await first.loadFlags() }
                #expect(first.cachedFlags() == nil)
            }
            #expect(fixture.server.requestCount == 1)

            // Relaunch 100 s later: still nothing cached, yet nothing is sent.
            fixture.clock.advance(by: 100)
            let relaunched = fixture.loader()
            #expect(relaunched.cachedFlags() == nil)
            #expect(relaunched.snapshot.nextRefreshAt == notBefore)
            let error = await #expect(throws: RemoteLoadError.self) { try await relaunched.loadFlags() }
            #expect(error?.code == .rateLimited)
            await relaunched.refreshIfNeeded(.foreground)
            #expect(fixture.server.requestCount == 1)

            // At the Retry-After moment it requests on its own, and the success clears the file.
            var updates = relaunched.updates().makeAsyncIterator()
            await fixture.clock.waitForSleeper(until: notBefore)
            fixture.clock.advance(to: notBefore)
            #expect(await updates.next()?.values["cues.page_size"]?.value == 75)
            #expect(fixture.server.requestCount == 2)
            let file = RemoteRetryAfterFile(directory: fixture.directory, environment: .dev, format: .appConfig)
            #expect(!FileManager.default.fileExists(atPath: file.url.path))
        }
    }

    @Test func aRetryAfterFileMoreThanADayAwayIsIgnoredAndReported() async throws {
        try await Fixture.run(.json(Payloads.appConfig())) { fixture in
            let file = RemoteRetryAfterFile(directory: fixture.directory, environment: .dev, format: .appConfig)
            let notBefore = fixture.clock.now.timeIntervalSince1970 + 2 * 86_400
            try Data(#"{"version":1,"notBefore":\#(notBefore)}"#.utf8).write(to: file.url)
            let loader = fixture.loader()
            _ = try await loader.loadFlags()
            #expect(fixture.server.requestCount == 1)
            let warning = try #require(fixture.logs.recorded.first { $0.message.contains("Retry-After file") })
            #expect(warning.metadata["reason"]?.contains("'notBefore'") == true)
            #expect(warning.metadata["reason"]?.contains("86400 seconds") == true)
        }
    }

    @Test(arguments: ["not json", String(repeating: " ", count: 2_000) + #"{"version":1,"notBefore":1}"#, #"{"version":2,"notBefore":1}"#])
    func anUnreadableRetryAfterFileIsMovedAsideAndReported(_ contents: String) async throws {
        try await Fixture.run(.json(Payloads.appConfig())) { fixture in
            let file = RemoteRetryAfterFile(directory: fixture.directory, environment: .dev, format: .appConfig)
            try Data(contents.utf8).write(to: file.url)
            let loader = fixture.loader()
            _ = try await loader.loadFlags()
            #expect(fixture.server.requestCount == 1)
            #expect(fixture.logs.recorded.contains { $0.message.contains("Retry-After file") })
            let names = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path)
            let aside = try #require(names.first { $0.contains(".retry-after.corrupt-") })
            // Moved aside, not destroyed.
            #expect(try Data(contentsOf: fixture.directory.appendingPathComponent(aside)) == Data(contents.utf8))
        }
    }
}
