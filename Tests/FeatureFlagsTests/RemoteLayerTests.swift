import ExampleFlags
import FeatureFlags
import FeatureFlagsTesting
import Testing

struct RemoteLayerTests {
    @Test func cachedValuesApplyBeforeTheFirstRead() {
        let provider = TestRemoteProvider(cached: RemoteFlagValues(values: ["ideas_drawer": true], reason: .cached, source: "cache"))
        let flags = FeatureFlagManager<AppFlag>(
            FlagSetup(buildConfiguration: .release, remoteProvider: provider, remoteApplyPolicy: .nextLaunch))
        #expect(flags.isEnabled(.ideasDrawer))
        #expect(flags.details(.ideasDrawer).reason == .cached)
        #expect(flags.engine.remoteSource == "cache")
    }

    @Test func immediatePolicyAppliesPushedValues() async {
        let provider = TestRemoteProvider()
        let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .release, remoteProvider: provider))
        var updates = flags.updates(of: .ideasDrawer).makeAsyncIterator()
        #expect(await next(&updates) == false)
        provider.push(RemoteFlagValues(values: ["ideas_drawer": true]))
        #expect(await next(&updates) == true)
    }

    @Test func safePointPolicyWaitsForTheApp() async {
        let flags = FeatureFlagManager<AppFlag>(
            FlagSetup(buildConfiguration: .release, remoteProvider: TestRemoteProvider(), remoteApplyPolicy: .atSafePoint))
        flags.engine.receiveRemoteValues(RemoteFlagValues(values: ["ideas_drawer": true]))
        #expect(flags.engine.hasPendingRemoteValues)
        #expect(!flags.isEnabled(.ideasDrawer))
        flags.applyPendingRemoteValues()
        #expect(flags.isEnabled(.ideasDrawer))
        #expect(!flags.engine.hasPendingRemoteValues)
    }

    @Test func nextLaunchPolicyKeepsTheLaunchValues() {
        let provider = TestRemoteProvider(cached: RemoteFlagValues(values: ["page_size": 70]))
        let flags = FeatureFlagManager<AppFlag>(
            FlagSetup(buildConfiguration: .release, remoteProvider: provider, remoteApplyPolicy: .nextLaunch))
        flags.engine.receiveRemoteValues(RemoteFlagValues(values: ["page_size": 90]))
        #expect(flags.value(AppConfig.pageSize) == 70)
    }

    @Test func refreshUsesTheProviderAndAFailureKeepsTheLastGoodValues() async {
        let provider = TestRemoteProvider(cached: RemoteFlagValues(values: ["page_size": 70]))
        let flags = FeatureFlagManager<AppFlag>(
            FlagSetup(buildConfiguration: .release, remoteProvider: provider, remoteApplyPolicy: .immediately))
        provider.setLoaded(RemoteFlagValues(values: ["page_size": 80]))
        await flags.refreshRemoteValues()
        #expect(flags.value(AppConfig.pageSize) == 80)

        provider.setFailure(TestProviderFailure("backend unavailable"))
        await flags.refreshRemoteValues()
        #expect(flags.value(AppConfig.pageSize) == 80)
        #expect(flags.engine.diagnostics.contains {
            $0.kind == .remoteProviderFailed && $0.message.contains("backend unavailable")
        })
        #expect(provider.callCounts.refresh == 2)
    }

    @Test func valuesForUnknownFlagsOrOfTheWrongTypeAreIgnoredByKey() {
        let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .release, remoteProvider: TestRemoteProvider()))
        flags.engine.receiveRemoteValues(
            RemoteFlagValues(values: ["page_size": "big", "ghost": true, "ideas_drawer": true, "stream_flush_interval": 1]))
        #expect(flags.isEnabled(.ideasDrawer))
        #expect(flags.value(AppConfig.pageSize) == 50)
        #expect(flags.value(AppConfig.streamFlushInterval) == 1.0)
        let ignored = flags.engine.diagnostics.filter { $0.kind == .ignoredRemoteValue }
        #expect(ignored.map(\.key) == ["ghost", "page_size"])
        #expect(ignored[1].message == "Ignored the remote value for 'page_size': expected integer, got \"big\".")
    }

    @Test func theLocalProviderLeavesTheRemoteLayerEmpty() async throws {
        let provider = LocalFlagProvider()
        #expect(try await provider.loadFlags() == .empty)
        #expect(try await provider.refresh() == .empty)
        #expect(provider.cachedFlags() == nil)
        let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .debug, remoteProvider: provider))
        #expect(flags.details(.chatViewRedesign).layer == .buildConfiguration)
    }
}
