import FeatureFlags
import Foundation
import RemoteTestSupport
import Testing

@testable import FeatureFlagsRemote

/// After a failure only the retry timer sends before the backoff ends; a user-initiated refresh
/// may skip the wait once per backoff step; nothing skips `Retry-After` or a stop.
struct RefreshBackoffTests {
    @Test func tenForegroundReturnsAndAppRefreshesDuringAnOutageSendNothingMore() async throws {
        try await Fixture.run(.respond(status: 503)) { fixture in
            let loader = fixture.loader()
            _ = try? await loader.loadFlags()
            #expect(fixture.server.requestCount == 1)
            for _ in 0..<10 { await loader.applicationWillEnterForeground().value }
            #expect(fixture.server.requestCount == 1)
            for _ in 0..<10 {
                let error = await #expect(throws: RemoteLoadError.self) { try await loader.refresh() }
                #expect(error?.code == .backingOff)
            }
            #expect(fixture.server.requestCount == 1)
            // The skipped attempts left the schedule alone.
            #expect(loader.snapshot.nextRefreshAt == fixture.clock.now.addingTimeInterval(2))
        }
    }

    @Test func aUserRefreshSkipsTheWaitOncePerBackoffStep() async throws {
        try await Fixture.run(.respond(status: 503)) { fixture in
            let loader = fixture.loader()
            let start = fixture.clock.now
            _ = try? await loader.loadFlags()

            // Ten taps: the first one is sent, the other nine wait.
            var codes: [RemoteLoadError.Code] = []
            for _ in 0..<10 {
                do {
                    _ = try await loader.refresh(reason: .userInitiated)
                } catch let error as RemoteLoadError {
                    codes.append(error.code)
                }
            }
            #expect(fixture.server.requestCount == 2)
            #expect(codes == [.serverError] + Array(repeating: .backingOff, count: 9))

            // The user's failure made the wait grow (2 s, then 4 s); the timer retries then,
            // which starts a new step with one early user refresh of its own.
            await fixture.clock.waitForSleeper(until: start.addingTimeInterval(4))
            fixture.clock.advance(to: start.addingTimeInterval(4))
            await fixture.clock.waitForSleeper(until: start.addingTimeInterval(4 + 8))
            #expect(fixture.server.requestCount == 3)
            for _ in 0..<3 { _ = try? await loader.refresh(reason: .userInitiated) }
            #expect(fixture.server.requestCount == 4)
        }
    }

    @Test func aUserRefreshDoesNotSkipRetryAfter() async throws {
        try await Fixture.run(.respond(status: 429, headers: [("Retry-After", "600")])) { fixture in
            let loader = fixture.loader()
            _ = try? await loader.loadFlags()
            let error = await #expect(throws: RemoteLoadError.self) {
                try await loader.refresh(reason: .userInitiated)
            }
            #expect(error?.code == .rateLimited)
            #expect(fixture.server.requestCount == 1)
        }
    }

    @Test func aUserRefreshWithoutAFailureIsSentAtOnce() async throws {
        try await Fixture.run(.json(Payloads.appConfig())) { fixture in
            let loader = fixture.loader()
            _ = try await loader.loadFlags()
            for _ in 0..<3 { _ = try await loader.refresh(reason: .userInitiated) }
            #expect(fixture.server.requestCount == 4)
        }
    }
}
