/// The seam through which remote values reach the remote layer: an HTTP `app_config` loader, an
/// OFREP client, a Firebase-like SDK, or local flag definitions evaluated for a context.
///
/// ```swift
/// struct StaticProvider: RemoteFlagProvider {
///     func loadFlags() async throws -> RemoteFlagValues {
///         RemoteFlagValues(values: ["offline_mode": true])
///     }
///     func refresh() async throws -> RemoteFlagValues { try await loadFlags() }
/// }
/// ```
public protocol RemoteFlagProvider: Sendable {
    /// Values available without waiting, such as an on-disk cache, read synchronously while the
    /// manager is configured so the first frame already has them. `nil` by default.
    func cachedFlags() -> RemoteFlagValues?

    /// Loads the provider's current values. Called once after the manager is configured.
    func loadFlags() async throws -> RemoteFlagValues

    /// Fetches fresh values (app foreground, pull to refresh, a timer).
    func refresh() async throws -> RemoteFlagValues

    /// Values the provider produces on its own (background refresh, a server push). The manager
    /// listens for as long as it is configured with this provider. Finishes at once by default.
    func updates() -> AsyncStream<RemoteFlagValues>
}

extension RemoteFlagProvider {
    /// No cached values.
    public func cachedFlags() -> RemoteFlagValues? { nil }

    /// A stream that finishes at once: no values of the provider's own.
    public func updates() -> AsyncStream<RemoteFlagValues> {
        AsyncStream { $0.finish() }
    }
}

/// A provider with no remote values: the remote layer stays empty. Use it for apps without a
/// backend, in tests, and as the starting point of a provider of your own.
public struct LocalFlagProvider: RemoteFlagProvider {
    /// A provider with no values.
    public init() {}

    /// No values.
    public func loadFlags() async throws -> RemoteFlagValues { .empty }

    /// No values.
    public func refresh() async throws -> RemoteFlagValues { .empty }
}

/// When newly loaded remote values take effect.
public enum RemoteApplyPolicy: Sendable, Hashable {
    /// As soon as they arrive.
    case immediately
    /// When the app calls ``FeatureFlagManager/applyPendingRemoteValues()`` at a point of its choosing
    /// (a screen change, a new session), so nothing changes under the user's eyes.
    case atSafePoint
    /// Only values available when the manager is configured (the provider's cache) apply; later
    /// values wait for the next launch.
    case nextLaunch
}
