import FeatureFlags
import FeatureFlagsRemote
import FeatureFlagsTesting
import Foundation
import Logging
import RemoteTestSupport
import Testing

/// An app's own runtime configuration reaching features through `FeatureFlagManager` and the
/// configuration provider.
struct RuntimeConfigurationProviderTests {
    typealias Config = TestRuntimeConfiguration

    @Test func defaultsFollowTheBuildConfiguration() {
        let release = FeatureFlagManager<TestFlag>(buildConfiguration: .release).configuration(Config.self)
        #expect(release.auth.resendCooldown == .seconds(60))
        #expect(release.cues.pageSize == 20)
        #expect(release.analytics.flushInterval == .seconds(30))
        #expect(release.analytics.firstPartyEventsEnabled)
        #expect(!release.analytics.sessionReplayEnabled)
        #expect(!release.devTools.isDeveloperMenuAvailable)
        #expect(release.devTools.networkConsoleLogLimit == 500)

        let debug = FeatureFlagManager<TestFlag>(buildConfiguration: .debug).configuration(Config.self)
        #expect(debug.auth.resendCooldown == .seconds(5))
        #expect(debug.devTools.isDeveloperMenuAvailable)
    }

    @Test func snapshotsAndTheProviderReadTheOverrideLayer() {
        let flags = FeatureFlagManager<TestFlag>(buildConfiguration: .debug)
        let provider = RuntimeConfigurationProvider(Config.self, flags: flags)
        let before = flags.snapshot
        flags.setOverride(Config.cuesPageSize, to: 75)
        #expect(provider.snapshot.cues.pageSize == 75)
        #expect(flags.snapshot.configuration(Config.self).cues.pageSize == 75)
        // A snapshot taken earlier keeps its instant.
        #expect(before.configuration(Config.self).cues.pageSize == 20)
        #expect(provider.registrationProblems.isEmpty)
        #expect(provider.status == .ready)
    }

    @Test func updatesDeliverTheCurrentValueThenASecondChange() async {
        let flags = FeatureFlagManager<TestFlag>(buildConfiguration: .debug)
        let provider = RuntimeConfigurationProvider(Config.self, flags: flags)
        var updates = provider.updates().makeAsyncIterator()
        #expect(await updates.next()?.cues.pageSize == 20)

        flags.setOverride(Config.cuesPageSize, to: 30)
        #expect(await updates.next()?.cues.pageSize == 30)

        flags.setOverride(Config.resendCooldown, to: 9)
        let third = await updates.next()
        #expect(third?.auth.resendCooldown == .seconds(9))
        #expect(third?.cues.pageSize == 30)
    }

    @Test func changesOfFlagsTheConfigurationDoesNotReadAreSkipped() async {
        var flags: FeatureFlagManager<TestFlag>? = FeatureFlagManager(buildConfiguration: .debug)
        var updates = RuntimeConfigurationProvider(Config.self, flags: flags!).updates().makeAsyncIterator()
        #expect(await updates.next()?.cues.pageSize == 20)
        // The snapshot stream buffers this change, then finishes when the flags go away: the
        // configuration stream ends without repeating the configuration it already delivered.
        flags?.setOverride(.offlineMode, to: true)
        flags = nil
        #expect(await updates.next() == nil)
    }

    @Test func theSubscriptionEndsWhenTheConsumerGoesAway() async {
        let flags = FeatureFlagManager<TestFlag>(buildConfiguration: .debug)
        let provider = RuntimeConfigurationProvider(Config.self, flags: flags)
        #expect(flags.engine.subscriberCount == 0)
        do {
            var updates = provider.updates().makeAsyncIterator()
            _ = await updates.next()
            #expect(flags.engine.subscriberCount == 1)
        }
        #expect(flags.engine.subscriberCount == 0)

        let task = Task {
            for await _ in provider.updates() {}
        }
        task.cancel()
        await task.value
        #expect(flags.engine.subscriberCount == 0)
    }

    @Test func unregisteredOrMistypedFlagsAreReportedByKey() {
        let log = RecordingLogHandler()
        let flags = FeatureFlagManager<MistypedFlag>(buildConfiguration: .release)
        let provider = RuntimeConfigurationProvider(Config.self, flags: flags, logger: log.logger)
        let problems = provider.registrationProblems
        #expect(problems.count == Config.flags.count)   // six missing, one mistyped
        #expect(
            problems.contains(
                "TestRuntimeConfiguration reads 'cues.page_size' as integer, but MistypedFlag registers it as string, so it always reads as its default. Declare the flag once and share it."
            ))
        #expect(
            problems.contains(
                "TestRuntimeConfiguration reads 'auth.magic_link_resend_cooldown_seconds', which is not in MistypedFlag's registry, so it always reads as its default. Add TestRuntimeConfiguration.flags to MistypedFlag.typedFlags."
            ))
        #expect(log.messages(at: .warning) == problems)
        // The values still read: as their defaults.
        #expect(provider.snapshot.cues.pageSize == 20)
    }

    @Test func updatesReachSubscribersThroughTheLoader() async throws {
        try await Fixture.run(.json(Payloads.appConfig(ttl: 60))) { fixture in
            let loader = fixture.loader()
            let flags = FeatureFlagManager<TestFlag>(FlagSetup(buildConfiguration: .release, remoteProvider: loader))
            let provider = RuntimeConfigurationProvider(Config.self, flags: flags, loader: loader)

            // The launch load arrives.
            var values = flags.updates(of: Config.resendCooldown).makeAsyncIterator()
            var configurations = provider.updates().makeAsyncIterator()
            while let value = await values.next(), value != 30 {}
            #expect(flags.isEnabled(.chatViewRedesign))
            var configuration = await configurations.next()
            while configuration?.auth.resendCooldown != .seconds(30) { configuration = await configurations.next() }
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
            #expect(configuration?.auth.resendCooldown == .seconds(90))
            #expect(configuration?.cues.pageSize == 20)
            #expect(flags.details(Config.resendCooldown).layer == .remote)
        }
    }

    @Test func cachedValuesAreThereOnTheFirstRead() async throws {
        try await Fixture.run(.json(Payloads.appConfig(ttl: 600))) { fixture in
            _ = try await fixture.loader().loadFlags()
            await fixture.server.shutdown()

            let flags = FeatureFlagManager<TestFlag>(FlagSetup(buildConfiguration: .release, remoteProvider: fixture.loader()))
            // Synchronously, before any task ran: no flash of defaults.
            #expect(flags.configuration(Config.self).auth.resendCooldown == .seconds(30))
            #expect(flags.details(Config.resendCooldown).reason == .cached)
        }
    }
}

/// A registry that forgot the configuration's flags and declares one of its keys with another type.
enum MistypedFlag: String, CaseIterable, FeatureFlagKey {
    case offlineMode = "offline_mode"

    var metadata: FlagMetadata<MistypedFlag> { FlagMetadata("Offline mode") }

    static let typedFlags: [any FlagDefinitionConvertible] = [TypedFlag<String>("cues.page_size", default: "20")]
}
