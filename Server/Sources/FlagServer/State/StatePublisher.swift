import Atomics
public import FlagEvaluation
public import Foundation

/// Holds the current ``ServingState`` and swaps it atomically after each committed write.
///
/// Readers call ``current`` (one atomic load, no lock, no database); the writer compiles the new
/// state first and publishes it whole, so a request sees one revision or the next, never a mix.
public final class StatePublisher: Sendable {
    private let state: ManagedAtomic<ServingState>
    /// The `ttlSeconds` `app_config` advertises.
    public let ttlSeconds: Int
    /// How `fractional` assigns buckets in every environment.
    public let bucketing: FractionalBucketing

    public init(ttlSeconds: Int, bucketing: FractionalBucketing = .current) {
        self.ttlSeconds = ttlSeconds
        self.bucketing = bucketing
        state = ManagedAtomic(ServingState(environments: [:], tokens: [:]))
    }

    /// The state requests read.
    public var current: ServingState { state.load(ordering: .acquiring) }

    /// Publishes `server`'s environments and `tokens`, recompiling only environments whose
    /// revision changed (`modified` says when each new revision was committed). Returns the keys
    /// of the environments that changed.
    @discardableResult
    public func publish(_ server: ServerState, tokens: [TokenRecord], modified: [String: Date] = [:]) -> [String] {
        let old = current
        var environments: [String: CompiledEnvironment] = [:]
        var changed: [String] = []
        for key in server.environments.keys {
            if let compiled = old.environments[key], compiled.revision == server.environments[key]?.revision {
                environments[key] = compiled
            } else if let compiled = CompiledEnvironment(
                state: server, environment: key, ttlSeconds: ttlSeconds, bucketing: bucketing, lastModified: modified[key])
            {
                environments[key] = compiled
                changed.append(key)
            }
        }
        let next = ServingState(
            environments: environments, tokens: Dictionary(tokens.map { ($0.id, $0) }, uniquingKeysWith: { $1 }))
        state.store(next, ordering: .releasing)
        return changed.sorted()
    }
}
