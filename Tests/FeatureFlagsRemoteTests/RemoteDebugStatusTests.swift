import FeatureFlags
import FeatureFlagsRemote
import Foundation
import Observation
import RemoteTestSupport
import Synchronization
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

    /// The debug menu's status section redraws from Observation: a fetch, a failure and a
    /// status change each tell a view that read `debugRemoteStatus`.
    @Test func everyChangeOfTheLoaderIsObserved() async throws {
        try await Fixture.run(.json(Payloads.appConfig(ttl: 60))) { fixture in
            let loader = fixture.loader()
            let fired = Atomic<Int>(0)
            withObservationTracking { _ = loader.debugRemoteStatus } onChange: { fired.add(1, ordering: .relaxed) }
            _ = try await loader.loadFlags()
            #expect(fired.load(ordering: .relaxed) == 1)
            #expect(loader.debugRemoteStatus.state == "ready")
        }
        try await Fixture.run(.respond(status: 500)) { fixture in
            let loader = fixture.loader()
            let fired = Atomic<Int>(0)
            withObservationTracking { _ = loader.debugRemoteStatus } onChange: { fired.add(1, ordering: .relaxed) }
            await #expect(throws: RemoteLoadError.self) { try await loader.loadFlags() }
            #expect(fired.load(ordering: .relaxed) == 1)
            #expect(loader.debugRemoteStatus.error != nil)
        }
    }
}

struct AppEnvironmentsDebugSwitcherTests {
    @Test func theSwitcherOffersEveryEnvironmentWithItsURLAndHandsBackTheChosenOne() throws {
        let environments = AppEnvironments(
            dev: URL(string: "https://dev.example.com")!, stage: URL(string: "https://stage.example.com")!,
            prod: URL(string: "https://example.com")!, bundleIdentifier: "com.example", appVersion: "1.0", build: "1")
        let chosen = Mutex<AppEnvironment?>(nil)
        let switcher = environments.debugSwitcher(current: .prod) { environment in chosen.withLock { $0 = environment } }
        #expect(switcher.current == "prod")
        #expect(switcher.options.map(\.name) == ["dev", "stage", "prod"])
        #expect(switcher.options.map(\.detail) == ["https://dev.example.com", "https://stage.example.com", "https://example.com"])
        try switcher.select("stage", from: "prod")
        #expect(chosen.withLock { $0 } == environments.stage)
    }
}
