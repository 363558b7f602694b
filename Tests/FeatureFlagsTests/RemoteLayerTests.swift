import ExampleFlags
import FeatureFlags
import FeatureFlagsTesting
import Testing

struct RemoteLayerTests {
    @Test func cachedValuesApplyBeforeTheFirstRead() {
        let provider = TestRemoteProvider(cached: RemoteFlagValues(values: ["ideas_drawer": true], reason: .cached, source: "cache"))
        let flags = FeatureFlags<AppFlag>(
            FlagSetup(buildConfiguration: .release, remoteProvider: provider, remoteApplyPolicy: .nextLaunch))
        #expect(flags.isEnabled(.ideasDrawer))
        #expect(flags.details(.ideasDrawer).reason == .cached)
        #expect(flags.manager.remoteSource == "cache")
    }

    @Test func immediatePolicyAppliesPushedValues() async {
        let provider = TestRemoteProvider()
        let flags = FeatureFlags<AppFlag>(FlagSetup(buildConfiguration: .release, remoteProvider: provider))
        var updates = flags.updates(of: .ideasDrawer).makeAsyncIterator()
        #expect(await next(&updates) == false)
        provider.push(RemoteFlagValues(values: ["ideas_drawer": true]))
        #expect(await next(&updates) == true)
    }

    @Test func safePointPolicyWaitsForTheApp() async {
        let flags = FeatureFlags<AppFlag>(
            FlagSetup(buildConfiguration: .release, remoteProvider: TestRemoteProvider(), remoteApplyPolicy: .atSafePoint))
        flags.manager.receiveRemoteValues(RemoteFlagValues(values: ["ideas_drawer": true]))
        #expect(flags.manager.hasPendingRemoteValues)
        #expect(!flags.isEnabled(.ideasDrawer))
        flags.applyPendingRemoteValues()
        #expect(flags.isEnabled(.ideasDrawer))
        #expect(!flags.manager.hasPendingRemoteValues)
    }

    @Test func nextLaunchPolicyKeepsTheLaunchValues() {
        let provider = TestRemoteProvider(cached: RemoteFlagValues(values: ["page_size": 70]))
        let flags = FeatureFlags<AppFlag>(
            FlagSetup(buildConfiguration: .release, remoteProvider: provider, remoteApplyPolicy: .nextLaunch))
        flags.manager.receiveRemoteValues(RemoteFlagValues(values: ["page_size": 90]))
        #expect(flags.value(AppConfig.pageSize) == 70)
    }

    @Test func refreshUsesTheProviderAndAFailureKeepsTheLastGoodValues() async {
        let provider = TestRemoteProvider(cached: RemoteFlagValues(values: ["page_size": 70]))
        let flags = FeatureFlags<AppFlag>(
            FlagSetup(buildConfiguration: .release, remoteProvider: provider, remoteApplyPolicy: .immediately))
        provider.setLoaded(RemoteFlagValues(values: ["page_size": 80]))
        await flags.refreshRemoteValues()
        #expect(flags.value(AppConfig.pageSize) == 80)

        provider.setFailure(TestProviderFailure("backend unavailable"))
        await flags.refreshRemoteValues()
        #expect(flags.value(AppConfig.pageSize) == 80)
        #expect(flags.manager.diagnostics.contains {
            $0.kind == .remoteProviderFailed && $0.message.contains("backend unavailable")
        })
        #expect(provider.callCounts.refresh == 2)
    }

    @Test func valuesForUnknownFlagsOrOfTheWrongTypeAreIgnoredByKey() {
        let flags = FeatureFlags<AppFlag>(FlagSetup(buildConfiguration: .release, remoteProvider: TestRemoteProvider()))
        flags.manager.receiveRemoteValues(
            RemoteFlagValues(values: ["page_size": "big", "ghost": true, "ideas_drawer": true, "stream_flush_interval": 1]))
        #expect(flags.isEnabled(.ideasDrawer))
        #expect(flags.value(AppConfig.pageSize) == 50)
        #expect(flags.value(AppConfig.streamFlushInterval) == 1.0)
        let ignored = flags.manager.diagnostics.filter { $0.kind == .ignoredRemoteValue }
        #expect(ignored.map(\.key) == ["ghost", "page_size"])
        #expect(ignored[1].message == "Ignored the remote value for 'page_size': expected integer, got \"big\".")
    }

    @Test func theLocalProviderLeavesTheRemoteLayerEmpty() async throws {
        let provider = LocalFlagProvider()
        #expect(try await provider.loadFlags() == .empty)
        #expect(try await provider.refresh() == .empty)
        #expect(provider.cachedFlags() == nil)
        let flags = FeatureFlags<AppFlag>(FlagSetup(buildConfiguration: .debug, remoteProvider: provider))
        #expect(flags.details(.chatViewRedesign).layer == .buildConfiguration)
    }
}
