import FlagEvaluation

/// An audit entry before the store numbers and stamps it.
///
/// A flag's entry holds the flag and its settings as the model and builds their JSON
/// (`{"flag": …, "settings": …}`, see ``ServerState/flagView(_:_:)``) each time ``before`` or
/// ``after`` is read: an import drafts one entry per flag and environment, and the store writes
/// them, and the import's answer lists them, one at a time. Two drafts are equal when their JSON
/// is, however each is held.
public struct AuditDraft: Sendable, Hashable {
    public var environment: String
    public var subject: AuditEntry.Subject
    public var key: String
    var beforeValue: Value?
    var afterValue: Value?

    /// The subject before the change (`nil`: it did not exist), as stored in the audit entry.
    public var before: JSONValue? {
        get { beforeValue?.json }
        set { beforeValue = newValue.map(Value.json) }
    }

    /// The subject after the change (`nil`: it was deleted), as stored in the audit entry.
    public var after: JSONValue? {
        get { afterValue?.json }
        set { afterValue = newValue.map(Value.json) }
    }

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

    public static func == (lhs: AuditDraft, rhs: AuditDraft) -> Bool {
        lhs.environment == rhs.environment && lhs.subject == rhs.subject && lhs.key == rhs.key
            && Value.same(lhs.beforeValue, rhs.beforeValue) && Value.same(lhs.afterValue, rhs.afterValue)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(environment)
        hasher.combine(subject)
        hasher.combine(key)
        hasher.combine(before)
        hasher.combine(after)
    }

    /// One side of a draft: JSON, or a flag as one environment sees it, built as JSON when read.
    enum Value: Sendable {
        case json(JSONValue)
        /// Boxed: a draft stays a few words wide in the arrays that hold thousands.
        indirect case flag(FlagRecord, FlagSettings)

        /// A flag and its settings in one environment; `nil` when either is missing (as
        /// ``ServerState/flagView(_:_:)``).
        init?(flag: FlagRecord?, settings: FlagSettings?) {
            guard let flag, let settings else { return nil }
            self = .flag(flag, settings)
        }

        var json: JSONValue {
            switch self {
            case .json(let value): value
            case .flag(let flag, let settings): .object(["flag": flag.jsonValue, "settings": settings.jsonValue])
            }
        }

        /// Whether two sides hold the same JSON (built only when both exist).
        static func same(_ lhs: Value?, _ rhs: Value?) -> Bool {
            switch (lhs, rhs) {
            case (nil, nil): true
            case (nil, _), (_, nil): false
            case (let lhs?, let rhs?): lhs.json == rhs.json
            }
        }

        /// Whether a flag's entry records a change: its JSON differs.
        static func differ(_ lhs: Value?, _ rhs: Value?) -> Bool { !same(lhs, rhs) }
    }
}
