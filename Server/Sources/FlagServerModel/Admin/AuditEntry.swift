public import FlagEvaluation
public import Foundation

/// One append-only history record: what changed in an environment at a revision.
public struct AuditEntry: Sendable, Hashable, Codable {
    /// What kind of thing changed.
    public enum Subject: String, Sendable, Hashable, Codable {
        /// A flag's definition or settings, a segment, or an environment (created, reordered).
        case flag, segment, environment
        /// A console user (created, role changed, disabled, enabled, password reset), recorded
        /// under the environment `*` at revision 0: users belong to no environment. Never holds
        /// a password or its hash.
        case user
        /// An environment's approval rule (created, changed, removed), recorded in that
        /// environment at its current revision: a rule is no part of the served state and
        /// makes no revision of its own.
        case approvalRule
        /// A webhook endpoint (created, changed, secret rotated, deleted), recorded under the
        /// environment `*` at revision 0. Never holds the endpoint's secret.
        case webhook
        /// A scheduled change (created, edited, cancelled, run, held, missed, failed), recorded
        /// in its environment at its current revision under the change's id: a schedule makes
        /// no revision of its own (a run's write is audited as the flag's change).
        case schedule
    }

    /// The environment the change was recorded in (`*` for changes of no environment).
    public var environment: String
    /// The environment revision the change produced.
    public var revision: Int
    /// When the change was committed.
    public var time: Date
    /// Who made it: a token's name, a console user, or the server's own `scheduler` or `rollout`.
    public var actor: String
    /// The reason the writer gave, if any.
    public var reason: String?
    /// What kind of thing changed.
    public var subject: Subject
    /// The flag, segment or environment key.
    public var key: String
    /// The state before the change (`nil` when created). For flags: `{"flag": …, "settings": …}`.
    public var before: JSONValue?
    /// The state after the change (`nil` when deleted).
    public var after: JSONValue?
    /// The environment under which changes that belong to no environment (console users) are
    /// recorded.
    public static let accountsEnvironment = "*"

    /// Set when the change was a revert: the revision of this environment whose state it restored.
    public var revertedTo: Int?

    /// An entry as the store records it.
    public init(
        environment: String, revision: Int, time: Date, actor: String, reason: String?, subject: Subject, key: String,
        before: JSONValue?, after: JSONValue?, revertedTo: Int? = nil
    ) {
        self.revertedTo = revertedTo
        self.environment = environment
        self.revision = revision
        self.time = time
        self.actor = actor
        self.reason = reason
        self.subject = subject
        self.key = key
        self.before = before
        self.after = after
    }
}
