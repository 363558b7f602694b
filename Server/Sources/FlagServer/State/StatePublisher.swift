import Atomics
public import FlagEvaluation
import FlagServerModel
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
    /// The `eventIngestion` member of every bulk evaluation (where apps send their events), or
    /// `nil` when the server takes no events.
    public let eventIngestion: JSONValue?

    /// A publisher serving no environment until the first publish; `ttlSeconds`, `bucketing` and
    /// `eventIngestion` apply to every state it compiles.
    public init(ttlSeconds: Int, bucketing: FractionalBucketing = .current, eventIngestion: JSONValue? = nil) {
        self.ttlSeconds = ttlSeconds
        self.bucketing = bucketing
        self.eventIngestion = eventIngestion
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
                state: server, environment: key, ttlSeconds: ttlSeconds, bucketing: bucketing, lastModified: modified[key],
                eventIngestion: eventIngestion)
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

    /// Publishes `server` after a write that touched `delta`: each environment whose revision
    /// changed is compiled from the one served, recompiling only the flags the write touched there
    /// (and, when it touched segments, the flags whose rules use segments); the others and the
    /// tokens are kept unless `tokens` are given. Returns the keys of the environments that changed.
    ///
    /// Call it from one writer at a time (the admin's write lock): it reads the served state,
    /// then replaces it.
    @discardableResult
    public func publish(_ server: ServerState, delta: StateDelta, modified: [String: Date], tokens: [TokenRecord]? = nil) -> [String] {
        let old = current
        var environments: [String: CompiledEnvironment] = [:]
        var changed: [String] = []
        for key in server.environments.keys {
            let previous = old.environments[key]
            if let previous, previous.revision == server.environments[key]?.revision {
                environments[key] = previous
                continue
            }
            let compiled: CompiledEnvironment?
            if let previous {
                compiled = CompiledEnvironment(
                    updating: previous, state: server, flags: delta.settings[key] ?? [],
                    segmentsChanged: !(delta.segments[key] ?? []).isEmpty, ttlSeconds: ttlSeconds, bucketing: bucketing,
                    lastModified: modified[key], eventIngestion: eventIngestion)
            } else {
                compiled = CompiledEnvironment(
                    state: server, environment: key, ttlSeconds: ttlSeconds, bucketing: bucketing, lastModified: modified[key],
                eventIngestion: eventIngestion)
            }
            if let compiled {
                environments[key] = compiled
                changed.append(key)
            }
        }
        let tokens = tokens.map { Dictionary($0.map { ($0.id, $0) }, uniquingKeysWith: { $1 }) } ?? old.tokens
        state.store(ServingState(environments: environments, tokens: tokens), ordering: .releasing)
        return changed.sorted()
    }
}
