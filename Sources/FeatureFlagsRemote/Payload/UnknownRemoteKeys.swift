import FeatureFlags

/// The keys of remote values this process's registries do not declare, remembered so that each
/// is reported once per process.
///
/// An app that shares a flag server with other apps receives their flags on every refresh: that
/// is normal, not a problem worth a warning each time. The loader reports a key the first time it
/// sees it, at debug level, and never again.
package final class UnknownRemoteKeys: Sendable {
    /// The one record of the process.
    package static let shared = UnknownRemoteKeys()

    /// The most keys remembered; past it, new keys are no longer reported (a server with more
    /// flags than this cannot grow the process's memory without bound).
    package static let capacity = 10_000

    private let seen = Locked<Set<String>>([])
    private let capacity: Int

    /// A record remembering at most `capacity` keys.
    package init(capacity: Int = UnknownRemoteKeys.capacity) {
        self.capacity = capacity
    }

    /// The keys of `keys` not seen before, in order, now remembered as seen.
    package func firstSightings(of keys: some Sequence<String>) -> [String] {
        seen.withLock { seen in
            var new: [String] = []
            for key in keys where seen.count < capacity && seen.insert(key).inserted {
                new.append(key)
            }
            return new
        }
    }
}
