public import FeatureFlags

/// A remote provider a test controls: cached values at configuration, values for `loadFlags()`
/// and `refresh()`, pushed updates and injected failures.
///
/// ```swift
/// let provider = TestRemoteProvider(cached: RemoteFlagValues(values: ["offline_mode": true]))
/// let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .release, remoteProvider: provider))
/// provider.push(RemoteFlagValues(values: ["offline_mode": false]))
/// ```
public final class TestRemoteProvider: RemoteFlagProvider {
    private struct State {
        var cached: RemoteFlagValues?
        var loaded: RemoteFlagValues
        var failure: TestProviderFailure?
        var loadCount = 0
        var refreshCount = 0
    }

    private let state: Locked<State>
    private let stream: AsyncStream<RemoteFlagValues>
    private let continuation: AsyncStream<RemoteFlagValues>.Continuation

    /// - Parameters:
    ///   - cached: what `cachedFlags()` returns.
    ///   - loaded: what `loadFlags()` and `refresh()` return; the cached values when `nil`.
    public init(cached: RemoteFlagValues? = nil, loaded: RemoteFlagValues? = nil) {
        self.state = Locked(State(cached: cached, loaded: loaded ?? cached ?? .empty))
        (stream, continuation) = AsyncStream.makeStream(of: RemoteFlagValues.self)
    }

    /// Sets what the next `loadFlags()` and `refresh()` return.
    public func setLoaded(_ values: RemoteFlagValues) {
        state.withLock { $0.loaded = values }
    }

    /// Makes `loadFlags()` and `refresh()` throw until cleared with `nil`.
    public func setFailure(_ failure: TestProviderFailure?) {
        state.withLock { $0.failure = failure }
    }

    /// Delivers values as a background refresh would.
    public func push(_ values: RemoteFlagValues) {
        continuation.yield(values)
    }

    /// How often `loadFlags()` and `refresh()` were called.
    public var callCounts: (load: Int, refresh: Int) {
        state.withLock { ($0.loadCount, $0.refreshCount) }
    }

    /// The cached values the provider was made with.
    public func cachedFlags() -> RemoteFlagValues? {
        state.withLock { $0.cached }
    }

    /// The values set for loading (the cached ones unless set); throws the failure set, if any. Counted.
    public func loadFlags() async throws -> RemoteFlagValues {
        let (values, failure) = state.withLock { state in
            state.loadCount += 1
            return (state.loaded, state.failure)
        }
        if let failure { throw failure }
        return values
    }

    /// The values set for loading, as ``loadFlags()``; throws the failure set, if any. Counted.
    public func refresh() async throws -> RemoteFlagValues {
        let (values, failure) = state.withLock { state in
            state.refreshCount += 1
            return (state.loaded, state.failure)
        }
        if let failure { throw failure }
        return values
    }

    /// The stream ``push(_:)`` delivers to.
    public func updates() -> AsyncStream<RemoteFlagValues> {
        stream
    }
}

/// The error a ``TestRemoteProvider`` throws when told to fail.
public struct TestProviderFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the failure says.
    public let message: String

    /// A failure saying `message`.
    public init(_ message: String = "the test provider was told to fail") {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
