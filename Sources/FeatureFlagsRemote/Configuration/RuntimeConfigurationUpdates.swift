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
    public typealias Element = Configuration
    public typealias Failure = Never

    let snapshots: AsyncStream<FlagSnapshot<Key>>

    /// Reads configurations, skipping snapshots that leave the configuration as it was.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var snapshots: AsyncStream<FlagSnapshot<Key>>.Iterator
        var last: Configuration?

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

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(snapshots: snapshots.makeAsyncIterator(), last: nil)
    }
}
