/// Everything the server stores except history and tokens: flag definitions and every
/// environment's state.
public struct ServerState: Sendable, Hashable {
    /// Flag definitions by key.
    public var flags: [String: FlagRecord]
    /// Environments by key.
    public var environments: [String: EnvironmentState]

    public init(flags: [String: FlagRecord] = [:], environments: [String: EnvironmentState] = [:]) {
        self.flags = flags
        self.environments = environments
    }

    /// The current revision of every environment, the precondition of a write based on this state.
    public var revisions: [String: Int] { environments.mapValues(\.revision) }
}
