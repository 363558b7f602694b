import FeatureFlags
import FeatureFlagsRemote
import Foundation
import Testing

/// Remote values reaching features through `FeatureFlagManager` and the configuration provider.
struct RuntimeConfigurationProviderTests {
    @Test func defaultsFollowTheBuildConfiguration() {
        let release = FeatureFlagManager<TestFlag>(buildConfiguration: .release).runtimeConfiguration
        #expect(release.auth.magicLinkResendCooldown == .seconds(60))
        #expect(release.cues.pageSize == 20)
        #expect(release.analytics.flushInterval == .seconds(30))
        #expect(release.analytics.firstPartyEventsEnabled)
        #expect(!release.analytics.sessionReplayEnabled)
        #expect(!release.devTools.isDeveloperMenuAvailable)
        #expect(release.devTools.networkConsoleLogLimit == 500)

        let debug = FeatureFlagManager<TestFlag>(buildConfiguration: .debug).runtimeConfiguration
        #expect(debug.auth.magicLinkResendCooldown == .seconds(5))
        #expect(debug.devTools.isDeveloperMenuAvailable)
    }

    @Test func updatesReachSubscribersThroughFeatureFlags() async throws {
        try await Fixture.run(.json(Payloads.appConfig(ttl: 60))) { fixture in
            let loader = fixture.loader()
            let flags = FeatureFlagManager<TestFlag>(FlagSetup(buildConfiguration: .release, remoteProvider: loader))
            let provider = RuntimeConfigurationProvider(flags: flags, loader: loader)
            let cooldown = RuntimeConfigurationFlags.magicLinkResendCooldown

            // The launch load arrives.
            var values = flags.updates(of: cooldown).makeAsyncIterator()
            var configurations = provider.updates().makeAsyncIterator()
            while let value = await values.next(), value != 30 {}
            #expect(flags.isEnabled(.chatViewRedesign))
            var configuration = await configurations.next()
            while configuration?.auth.magicLinkResendCooldown != .seconds(30) { configuration = await configurations.next() }
            #expect(provider.snapshot.cues.pageSize == 50)
            #expect(provider.status == .ready)

            // A second change arrives after the TTL, through the provider's background refresh.
            fixture.script.set(
                .json(Payloads.appConfig(config: #"{"auth.magic_link_resend_cooldown_seconds": 90}"#, ttl: 60)))
            let expiry = try #require(loader.snapshot.expiresAt)
            await fixture.clock.waitForSleeper(until: expiry)
            fixture.clock.advance(to: expiry)
            #expect(await values.next() == 90)
            configuration = await configurations.next()
            #expect(configuration?.auth.magicLinkResendCooldown == .seconds(90))
            #expect(configuration?.cues.pageSize == 20)
            #expect(flags.details(cooldown).layer == .remote)
        }
    }

    @Test func cachedValuesAreThereOnTheFirstRead() async throws {
        try await Fixture.run(.json(Payloads.appConfig(ttl: 600))) { fixture in
            _ = try await fixture.loader().loadFlags()
            await fixture.server.shutdown()

            let flags = FeatureFlagManager<TestFlag>(FlagSetup(buildConfiguration: .release, remoteProvider: fixture.loader()))
            // Synchronously, before any task ran: no flash of defaults.
            #expect(flags.value(RuntimeConfigurationFlags.magicLinkResendCooldown) == 30)
            #expect(flags.details(RuntimeConfigurationFlags.magicLinkResendCooldown).reason == .cached)
        }
    }
}
