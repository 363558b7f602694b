import Synchronization

/// Flag checks that do not register Observation access: for hot loops and request handlers
/// that no SwiftUI view or `withObservationTracking` needs to redraw from.
///
/// ```swift
/// for item in items where flags.untracked.isEnabled(.offlineMode) { … }
/// ```
///
/// The tracked ``FeatureFlagManager/isEnabled(_:)`` is the default because a view body that reads
/// a flag must redraw when it changes; registering that access costs a few nanoseconds per check
/// (`ObservationRegistrar.access` is not inlinable and reads a thread-local). These reads cost
/// what an atomic word load costs and allocate nothing.
public struct UntrackedFlagReads<Key: FeatureFlagKey>: Sendable {
    @usableFromInline
    let manager: FeatureFlagManager<Key>

    @usableFromInline
    init(manager: FeatureFlagManager<Key>) { self.manager = manager }

    /// Whether a flag is on; a lock-free, allocation-free read that Observation does not see.
    @inlinable
    public func isEnabled(_ flag: Key) -> Bool {
        manager.engine.readWord(at: manager.caseIndex.index(of: flag)) != 0
    }

    /// Whether a flag is on: `flags.untracked[.offlineMode]`.
    @inlinable
    public subscript(flag: Key) -> Bool { isEnabled(flag) }
}

extension FeatureFlagManager {
    /// Checks that Observation does not track (see ``UntrackedFlagReads``).
    @inlinable
    public var untracked: UntrackedFlagReads<Key> { UntrackedFlagReads(manager: self) }
}

/// Reads by key that Observation does not see (``FlagEngine/untracked``): the same values,
/// counts and exposures as ``FlagEngine/value(forKey:)``.
public struct UntrackedEngineReads: Sendable {
    let engine: FlagEngine

    /// The resolved value of `key`, or `nil` when the registry has no such flag; lock-free and
    /// not observed.
    public func value(forKey key: String) -> FlagValue? {
        engine.value(forKey: key, tracked: false)
    }
}
