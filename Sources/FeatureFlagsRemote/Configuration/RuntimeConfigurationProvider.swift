import FeatureFlags

/// The runtime configuration for features: a synchronous ``snapshot``, an `AsyncSequence` of
/// changes, and the remote status behind it.
///
/// ```swift
/// let configuration = RuntimeConfigurationProvider(flags: flags, loader: loader)
/// let cooldown = configuration.snapshot.auth.magicLinkResendCooldown
/// for await config in configuration.updates() { analytics.flushInterval = config.analytics.flushInterval }
/// ```
public final class RuntimeConfigurationProvider<Key: FeatureFlagKey>: Sendable {
    /// The flags the values resolve through (overrides and build defaults included).
    public let flags: FeatureFlagManager<Key>
    /// The loader feeding the remote layer, if any.
    public let loader: RemoteConfigurationLoader?

    public init(flags: FeatureFlagManager<Key>, loader: RemoteConfigurationLoader? = nil) {
        self.flags = flags
        self.loader = loader
    }

    /// The configuration now. A read of the flags' current table; no I/O.
    public var snapshot: RuntimeConfiguration { RuntimeConfiguration(flags.snapshot) }

    /// The configuration now, then once per change of any of its values.
    public func updates() -> AsyncStream<RuntimeConfiguration> {
        let snapshots = flags.updates()
        let (stream, continuation) = AsyncStream.makeStream(
            of: RuntimeConfiguration.self, bufferingPolicy: .bufferingNewest(1))
        let task = Task {
            var last: RuntimeConfiguration?
            for await snapshot in snapshots {
                let configuration = RuntimeConfiguration(snapshot)
                if configuration != last {
                    last = configuration
                    continuation.yield(configuration)
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The remote status; `ready` without a loader (the values are the build's own).
    public var status: RemoteStatus { loader?.status ?? .ready }

    /// Status events: the current status first, then one per change.
    public func statusUpdates() -> AsyncStream<RemoteStatus> {
        if let loader { return loader.statusUpdates() }
        return AsyncStream { continuation in
            continuation.yield(.ready)
            continuation.finish()
        }
    }

    /// A notice the app may show, when remote values could not be loaded.
    public var notice: RemoteNotice? { loader?.snapshot.notice }
}
