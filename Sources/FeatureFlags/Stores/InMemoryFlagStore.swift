
/// A store that keeps values in memory only: for tests, previews and servers that want
/// overrides for the life of the process.
public final class InMemoryFlagStore: FlagValueStore {
    private let values: Locked<[String: FlagValue]>

    public init(_ values: [String: FlagValue] = [:]) {
        self.values = Locked(values)
    }

    public func load() throws(FlagStoreError) -> [String: FlagValue] {
        values.withLock { $0 }
    }

    public func save(_ newValues: [String: FlagValue]) throws(FlagStoreError) {
        values.withLock { $0 = newValues }
    }
}
