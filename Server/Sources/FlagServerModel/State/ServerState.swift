/// Everything the server stores except history and tokens: flag definitions and every
/// environment's state.
public struct ServerState: Sendable, Hashable {
    /// Flag definitions by key.
    public var flags: [String: FlagRecord]
    /// Environments by key.
    public var environments: [String: EnvironmentState]

    /// A state of `flags` and `environments`; empty by default (a store before its first write).
    public init(flags: [String: FlagRecord] = [:], environments: [String: EnvironmentState] = [:]) {
        self.flags = flags
        self.environments = environments
    }

    /// The current revision of every environment, the precondition of a write based on this state.
    public var revisions: [String: Int] { environments.mapValues(\.revision) }

    /// The environments' keys in their listing order (``EnvironmentState/position``, then key):
    /// every list of environments the console and the admin API show uses it.
    public var orderedEnvironmentKeys: [String] {
        environments.values.sorted { ($0.position, $0.key) < ($1.position, $1.key) }.map(\.key)
    }
}
