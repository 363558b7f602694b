public import FlagEvaluation

/// One edit of the stored state. A ``ChangeSet`` applies a list of them atomically.
public enum StateChange: Sendable, Hashable {
    /// Creates an environment (every existing flag starts off there, on its first variant).
    case createEnvironment(String)
    /// Creates or replaces a flag's definition. `initialSettings` applies to environments where
    /// the flag does not exist yet.
    case putFlag(FlagRecord, initialSettings: FlagSettings)
    /// Deletes a flag from every environment.
    case deleteFlag(String)
    /// Archives a flag in every environment at once: its definition and settings are kept, it is
    /// no longer served, and it refuses changes until restored (``FlagRecord/archived``).
    case archiveFlag(String)
    /// Restores an archived flag exactly as it was archived.
    case restoreFlag(String)
    /// Replaces a flag's settings in one environment.
    case putSettings(environment: String, flag: String, FlagSettings)
    /// Creates or replaces a segment (shared rule) in one environment.
    case putSegment(environment: String, key: String, rule: JSONValue)
    /// Deletes a segment from one environment.
    case deleteSegment(environment: String, key: String)
    /// Lists the environments in this order (every environment once).
    case orderEnvironments([String])
}

/// A write: changes applied all together or not at all, based on known revisions.
public struct ChangeSet: Sendable, Hashable {
    /// Who writes: a token name or a user.
    public var actor: String
    /// Why, as the writer said.
    public var reason: String?
    /// The edits, applied in order.
    public var changes: [StateChange]
    /// The revision of each environment the write was computed from. The store refuses the write
    /// (``StoreError/staleRevision(environment:expected:actual:)``) if any has moved on, so two
    /// writers never lose each other's change.
    public var basedOn: [String: Int]
    /// Set when the write is a revert: the audit records its flag entries in that environment as
    /// a revert to that revision (``AuditEntry/revertedTo``), not as a plain change.
    public var revert: Revert?
    /// When the writer stops waiting: a store checks it inside the transaction, right before it
    /// commits, and rolls back past it (``StoreError/unavailable(_:)``), so a write its caller
    /// gave up on is never committed later. `nil`: no deadline.
    public var deadline: ContinuousClock.Instant?

    /// A revert's target: the environment and the revision whose state the write restores.
    public struct Revert: Sendable, Hashable {
        /// The environment reverted.
        public var environment: String
        /// The revision whose state the write restores.
        public var revision: Int

        /// The revert of `environment` to `revision`.
        public init(environment: String, revision: Int) {
            self.environment = environment
            self.revision = revision
        }
    }

    /// A write of `changes` by `actor`, refused by the store unless every environment is still at its `basedOn` revision.
    public init(
        actor: String, reason: String? = nil, changes: [StateChange], basedOn: [String: Int],
        revert: Revert? = nil, deadline: ContinuousClock.Instant? = nil
    ) {
        self.actor = actor
        self.reason = reason
        self.changes = changes
        self.basedOn = basedOn
        self.revert = revert
        self.deadline = deadline
    }

    /// The revision an audit entry of `draft` reverts to, if this write is a revert of it.
    public func revertedTo(_ draft: AuditDraft) -> Int? {
        guard let revert, draft.environment == revert.environment, draft.subject == .flag else { return nil }
        return revert.revision
    }

    /// Throws ``StoreError/unavailable(_:)`` if ``deadline`` has passed.
    package func checkDeadline() throws(StoreError) {
        try StoreError.checkDeadline(deadline)
    }
}

/// What a store must read to apply a list of changes: the rows they can touch, not the state.
public struct StateFootprint: Sendable, Hashable {
    /// Whether every flag definition is needed (a created environment gets settings for each).
    public var allFlags = false
    /// The flags whose definition and settings (in every environment) are needed.
    public var flags: Set<String> = []
    /// Per environment, the segments needed.
    public var segments: [String: Set<String>] = [:]

    /// The footprint of `changes`: applied to a state holding every environment (key, revision,
    /// position) and only these rows, they give the same next state for these rows and the same
    /// ``StateTransition`` as applied to the whole state.
    public init(_ changes: [StateChange]) {
        for change in changes {
            switch change {
            case .createEnvironment: allFlags = true
            case .putFlag(let flag, _): flags.insert(flag.key)
            case .deleteFlag(let key), .archiveFlag(let key), .restoreFlag(let key): flags.insert(key)
            case .putSettings(_, let flag, _): flags.insert(flag)
            case .putSegment(let environment, let key, _), .deleteSegment(let environment, let key):
                segments[environment, default: []].insert(key)
            case .orderEnvironments: break
            }
        }
    }
}
