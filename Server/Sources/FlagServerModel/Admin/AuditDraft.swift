import FlagEvaluation

/// An audit entry before the store numbers and stamps it.
///
/// A flag's entry refers to the states before and after the change (their dictionaries are
/// shared, not copied) and builds the flag's JSON as one environment sees it
/// (`{"flag": …, "settings": …}`, see ``ServerState/flagView(_:_:)``) each time ``before`` or
/// ``after`` is read: an import drafts one entry per flag and environment, and the store writes
/// them, and the import's answer lists them, one at a time. Two drafts are equal when their JSON
/// is, however each is held. Drafts live as long as a write: they keep its states alive.
public struct AuditDraft: Sendable, Hashable {
    /// The environment the entry is recorded in.
    public var environment: String
    /// What kind of thing changed.
    public var subject: AuditEntry.Subject
    /// The flag, segment or environment key.
    public var key: String
    var beforeValue: Value?
    var afterValue: Value?

    /// The subject before the change (`nil`: it did not exist), as stored in the audit entry.
    public var before: JSONValue? {
        get { json(beforeValue) }
        set { beforeValue = newValue.map(Value.json) }
    }

    /// The subject after the change (`nil`: it was deleted), as stored in the audit entry.
    public var after: JSONValue? {
        get { json(afterValue) }
        set { afterValue = newValue.map(Value.json) }
    }

    /// A draft holding `before` and `after` as JSON already built.
    public init(environment: String, subject: AuditEntry.Subject, key: String, before: JSONValue?, after: JSONValue?) {
        self.init(
            environment: environment, subject: subject, key: key, beforeValue: before.map(Value.json),
            afterValue: after.map(Value.json))
    }

    init(environment: String, subject: AuditEntry.Subject, key: String, beforeValue: Value?, afterValue: Value?) {
        self.environment = environment
        self.subject = subject
        self.key = key
        self.beforeValue = beforeValue
        self.afterValue = afterValue
    }

    /// Equal when environment, subject, key and the JSON before and after are.
    public static func == (lhs: AuditDraft, rhs: AuditDraft) -> Bool {
        lhs.environment == rhs.environment && lhs.subject == rhs.subject && lhs.key == rhs.key
            && lhs.before == rhs.before && lhs.after == rhs.after
    }

    /// Hashes what ``==`` compares, the JSON before and after included.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(environment)
        hasher.combine(subject)
        hasher.combine(key)
        hasher.combine(before)
        hasher.combine(after)
    }

    /// Whether the draft records a change: one side is missing, or their JSON differs (built
    /// only when both exist).
    var recordsAChange: Bool {
        if beforeValue == nil || afterValue == nil { return (beforeValue == nil) != (afterValue == nil) }
        return before != after
    }

    /// One side of a draft: JSON, or the draft's flag as a state holds it.
    enum Value: Sendable {
        case json(JSONValue)
        /// The draft's flag and its settings in the draft's environment, as `state` holds them
        /// (both exist there): a few words, not a copy of the flag.
        case flag(in: ServerState)
    }

    private func json(_ value: Value?) -> JSONValue? {
        switch value {
        case nil: nil
        case .json(let json): json
        case .flag(let state): state.flagView(state.flags[key], state.environments[environment]?.settings[key])
        }
    }
}
