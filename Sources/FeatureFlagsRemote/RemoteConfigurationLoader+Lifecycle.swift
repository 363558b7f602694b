import FeatureFlags

extension RemoteConfigurationLoader: FlagLifecycleResponder {
    /// ``applicationWillEnterForeground()``, waiting for the refresh it starts (if any).
    public func appWillEnterForeground() async {
        await applicationWillEnterForeground().value
    }

    /// ``applicationDidEnterBackground()``.
    public func appDidEnterBackground() {
        applicationDidEnterBackground()
    }
}
