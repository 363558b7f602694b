public import Foundation

/// One committed write to an environment.
public struct RevisionRecord: Sendable, Hashable, Codable {
    /// The environment written.
    public var environment: String
    /// The revision the write produced (1 for an environment's first write).
    public var revision: Int
    /// When the write was committed.
    public var time: Date
    /// Who wrote: a token's name, a console user, or the server's own `scheduler` or `rollout`.
    public var actor: String
    /// The reason the writer gave, if any.
    public var reason: String?

    /// A revision as the store records it.
    public init(environment: String, revision: Int, time: Date, actor: String, reason: String?) {
        self.environment = environment
        self.revision = revision
        self.time = time
        self.actor = actor
        self.reason = reason
    }
}
