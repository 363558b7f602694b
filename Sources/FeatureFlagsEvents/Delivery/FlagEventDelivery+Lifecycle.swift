import FeatureFlags

extension FlagEventDelivery: FlagLifecycleResponder {
    /// Nothing: the interval's loop goes on by itself.
    public nonisolated func appWillEnterForeground() async {}

    /// Sends what is queued (``flush()``) before the app is suspended. FeatureFlagsUI's
    /// `.refreshesFeatureFlags(delivery)` calls it from SwiftUI's scene phase.
    public nonisolated func appDidEnterBackground() {
        Task { await self.flush() }
    }
}
