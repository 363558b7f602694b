import FeatureFlags
import Logging

/// An app's ``RuntimeConfiguration`` over its flags: a synchronous ``snapshot``, an
/// `AsyncSequence` of changes, and the remote status behind the values.
///
/// ```swift
/// let configuration = RuntimeConfigurationProvider(AppRuntimeConfiguration.self, flags: flags, loader: loader)
/// let cooldown = configuration.snapshot.auth.resendCooldown
/// for await config in configuration.updates() { uploader.interval = config.analytics.flushInterval }
/// ```
///
/// When it is created, the provider checks that every flag the configuration reads is in the
/// flags' registry with the same type, and logs a warning for each that is not (such a value
/// would always read as its declared default); the problems stay in ``registrationProblems``.
public struct RuntimeConfigurationProvider<Key: FeatureFlagKey, Configuration: RuntimeConfiguration>: Sendable {
    /// The flags the values resolve through (overrides and build defaults included).
    public let flags: FeatureFlagManager<Key>
    /// The loader feeding the remote layer, if any.
    public let loader: RemoteConfigurationLoader?
    /// Flags the configuration reads that the registry lacks or declares with another type, one
    /// sentence each, quoting the key. Empty when the configuration is registered correctly.
    public let registrationProblems: [String]

    /// Creates the provider and reports registration problems through `logger`.
    public init(
        _ configuration: Configuration.Type = Configuration.self,
        flags: FeatureFlagManager<Key>,
        loader: RemoteConfigurationLoader? = nil,
        logger: Logger = Logger(label: "feature-flags")
    ) {
        self.flags = flags
        self.loader = loader
        self.registrationProblems = Self.registrationProblems(in: flags.engine.registry)
        for problem in registrationProblems {
            logger.warning("\(problem)")
        }
    }

    /// Problems with how `registry` carries the configuration's flags.
    static func registrationProblems(in registry: FlagRegistry) -> [String] {
        let name = "\(Configuration.self)"
        return Configuration.flags.map(\.definition).compactMap { declared in
            guard let registered = registry.definition(forKey: declared.key) else {
                return
                    "\(name) reads '\(declared.key)', which is not in \(Key.self)'s registry, so it always reads as its default. Add \(name).flags to \(Key.self).typedFlags."
            }
            guard registered.type == declared.type else {
                return
                    "\(name) reads '\(declared.key)' as \(declared.type), but \(Key.self) registers it as \(registered.type), so it always reads as its default. Declare the flag once and share it."
            }
            return nil
        }
    }

    /// The configuration now: one read of the flags' current values; no I/O.
    public var snapshot: Configuration { flags.configuration(Configuration.self) }

    /// The configuration now, then once per change of any of its values (changes of other flags
    /// are skipped). A slow consumer gets the newest; the subscription ends when the consumer
    /// stops iterating.
    public func updates() -> RuntimeConfigurationUpdates<Key, Configuration> {
        RuntimeConfigurationUpdates(snapshots: flags.updates())
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
