public import FeatureFlags
import Testing

/// One body of checks that every ``FlagValueStore`` must pass: run it against your own store.
///
/// ```swift
/// @Test func myStoreIsCompatible() throws {
///     try FlagValueStoreCompatibilityTest(makeStore: { MyStore() }).run()
/// }
/// ```
public struct FlagValueStoreCompatibilityTest {
    /// Makes a new, empty store; called more than once, each time for a store over the *same*
    /// storage, so the test can check that values survive a new instance.
    public let makeStore: () -> any FlagValueStore

    /// A test of the stores `makeStore` makes, each over the same storage.
    public init(makeStore: @escaping () -> any FlagValueStore) {
        self.makeStore = makeStore
    }

    /// Runs every check, recording failures as test issues.
    public func run() throws {
        let store = makeStore()
        #expect(try store.load() == [:], "a new store is empty")

        let values: [String: FlagValue] = [
            "chat_view_redesign": true, "ideas_drawer": false, "page_size": 20, "stream_flush_interval": 0.25,
            "onboarding_variant": "guided \"quoted\" ünïcödé", "retry_policy": ["attempts": 5, "backoffSeconds": 2.5],
            "tags": ["a", "b"],
        ]
        try store.save(values)
        #expect(try store.load() == values, "values round-trip through the same instance")
        #expect(try makeStore().load() == values, "values survive a new instance over the same storage")

        try store.save(["chat_view_redesign": false])
        #expect(try makeStore().load() == ["chat_view_redesign": false], "saving replaces every value")

        try store.save([:])
        #expect(try makeStore().load() == [:], "saving nothing clears the store")
    }
}
