public import FlagEvaluation

/// One environment's stored state at a revision.
public struct EnvironmentState: Sendable, Hashable, Codable {
    /// The environment key (`development`, `staging`, `production`, ...).
    public var key: String
    /// Bumped by every write that changes what the environment serves.
    public var revision: Int
    /// Per flag key, what the flag does here. Every flag of ``ServerState/flags`` has an entry.
    public var settings: [String: FlagSettings]
    /// Shared rules (flagd `$evaluators`), shown to users as segments.
    public var segments: [String: JSONValue]
    /// Where the environment is listed (``ServerState/orderedEnvironmentKeys``): lower first,
    /// ties by key. New environments go last; the first start lists development, staging,
    /// production in that order.
    public var position: Int

    /// An environment's state; a new environment has revision 0 and no settings or segments.
    public init(
        key: String, revision: Int = 0, settings: [String: FlagSettings] = [:], segments: [String: JSONValue] = [:],
        position: Int = 0
    ) {
        self.key = key
        self.revision = revision
        self.settings = settings
        self.segments = segments
        self.position = position
    }
}
