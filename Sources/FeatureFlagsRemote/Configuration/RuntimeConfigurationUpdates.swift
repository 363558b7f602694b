import FeatureFlags

/// The configurations of ``RuntimeConfigurationProvider/updates()``: the current one first, then
/// one per change of its values.
///
/// Built over the flags' snapshot stream, which buffers only the newest snapshot, so a slow
/// consumer skips to the latest configuration. Dropping the iterator (or cancelling the task
/// iterating) ends the subscription.
public struct RuntimeConfigurationUpdates<Key: FeatureFlagKey, Configuration: RuntimeConfiguration>: AsyncSequence,
    Sendable
{
    /// Each element is a whole configuration.
    public typealias Element = Configuration
    /// The sequence never throws.
    public typealias Failure = Never

    let snapshots: AsyncStream<FlagSnapshot<Key>>

    /// Reads configurations, skipping snapshots that leave the configuration as it was.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var snapshots: AsyncStream<FlagSnapshot<Key>>.Iterator
        var last: Configuration?

        /// The next configuration that differs from the last one given; `nil` when the flags stop.
        public mutating func next() async -> Configuration? {
            while let snapshot = await snapshots.next() {
                let configuration = Configuration(reading: snapshot)
                if configuration != last {
                    last = configuration
                    return configuration
                }
            }
            return nil
        }

        /// The next configuration that differs from the last one given, on `actor`; `nil` when the flags stop.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Configuration? {
            while let snapshot = await snapshots.next(isolation: actor) {
                let configuration = Configuration(reading: snapshot)
                if configuration != last {
                    last = configuration
                    return configuration
                }
            }
            return nil
        }
    }

    /// An iterator starting with the current configuration.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(snapshots: snapshots.makeAsyncIterator(), last: nil)
    }
}
