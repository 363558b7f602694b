
/// A store that keeps values in memory only: for tests, previews and servers that want
/// overrides for the life of the process.
public final class InMemoryFlagStore: FlagValueStore {
    private let values: Locked<[String: FlagValue]>

    /// A store holding `values`.
    public init(_ values: [String: FlagValue] = [:]) {
        self.values = Locked(values)
    }

    /// The values held; never throws.
    public func load() throws(FlagStoreError) -> [String: FlagValue] {
        values.withLock { $0 }
    }

    /// Replaces the values held; never throws.
    public func save(_ newValues: [String: FlagValue]) throws(FlagStoreError) {
        values.withLock { $0 = newValues }
    }
}
