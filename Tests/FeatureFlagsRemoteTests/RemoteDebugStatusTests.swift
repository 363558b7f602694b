import FeatureFlags
import FeatureFlagsRemote
import Foundation
import Testing

/// What the debug menu learns from a `RemoteConfigurationLoader`.
struct RemoteDebugStatusTests {
    @Test func aLoadedLoaderReportsItsSourceAndLastFetch() async throws {
        try await Fixture.run(.json(Payloads.appConfig(ttl: 60))) { fixture in
            let loader = fixture.loader()
            #expect(loader.debugRemoteStatus == FlagDebugRemoteStatus(state: "notReady"))

            _ = try await loader.loadFlags()
            let status = loader.debugRemoteStatus
            #expect(status.state == "ready")
            #expect(status.source == "app_config")
            #expect(status.lastFetch == fixture.clock.now)
            #expect(status.error == nil)

            let flags = FeatureFlagManager<TestFlag>(FlagSetup(buildConfiguration: .debug, remoteProvider: loader))
            #expect(FlagDebugModel(flags, remote: loader).status.remote == status)
        }
    }

    @Test func aFailingLoaderReportsItsErrorAndNotice() async throws {
        try await Fixture.run(.respond(status: 500)) { fixture in
            let loader = fixture.loader()
            await #expect(throws: RemoteLoadError.self) { try await loader.loadFlags() }
            let status = loader.debugRemoteStatus
            #expect(status.state == "error")
            #expect(status.source == nil)
            #expect(status.lastFetch == nil)
            #expect(status.error == loader.snapshot.lastError.map { "\($0)" })
            #expect(status.error != nil)
            #expect(status.notice == loader.snapshot.notice?.message)
            #expect(status.notice != nil)
        }
    }
}
