import FlagEvaluation

/// An environment's approval rule: which changes there need a change request approved by how
/// many people other than its author (see `Server/Docs/Approvals.md`).
///
/// Kept beside the served state, not in it: a rule changes no revision and nothing an app
/// receives. ``FlagAdmin/write(actor:reason:revert:approval:timeout:_:)`` reads the rules of
/// the environments a write touches and refuses a direct write a rule covers.
public struct ApprovalRule: Sendable, Hashable, Codable {
    /// What kind of change a rule covers.
    public enum Scope: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
        /// A flag's settings in the environment: on/off, default variant, targeting, and a flag
        /// deleted while it had settings there. A flag created off there is not covered (it
        /// serves nothing new).
        case settings
        /// The environment's segments (shared rules), which change what targeting serves.
        case segments
        /// A flag's definition (type, variants, metadata, archived, deleted) for a flag that
        /// exists in the environment: a definition is shared by every environment, so a rule
        /// covering it in one environment governs it everywhere.
        case definitions

        /// Orders scopes by name, so that a rule's scopes encode in a stable order.
        public static func < (lhs: Scope, rhs: Scope) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// How many identities other than the author must approve; at least 1, at most
    /// ``maximumApprovals``.
    public var requiredApprovals: Int
    /// The kinds of change the rule covers; ``defaultScopes`` (all of them) when the JSON leaves it out.
    public var appliesTo: Set<Scope>

    /// The most approvals a rule may ask for.
    public static let maximumApprovals = 10
    /// What a rule covers when it does not say: everything what the environment serves depends
    /// on (a definition's variant values are served too).
    public static let defaultScopes: Set<Scope> = Set(Scope.allCases)

    /// A rule asking `requiredApprovals` approvals for the changes of `appliesTo`; not validated here.
    public init(requiredApprovals: Int, appliesTo: Set<Scope> = ApprovalRule.defaultScopes) {
        self.requiredApprovals = requiredApprovals
        self.appliesTo = appliesTo
    }

    enum CodingKeys: String, CodingKey { case requiredApprovals, appliesTo }

    /// Decodes a rule; a missing `appliesTo` means every scope.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        requiredApprovals = try container.decode(Int.self, forKey: .requiredApprovals)
        appliesTo = Set(try container.decodeIfPresent([Scope].self, forKey: .appliesTo) ?? Array(Self.defaultScopes))
    }

    /// Encodes a rule with its scopes sorted by name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(requiredApprovals, forKey: .requiredApprovals)
        try container.encode(appliesTo.sorted(), forKey: .appliesTo)
    }

    /// The problem with the rule, if any.
    package var problem: String? {
        if requiredApprovals < 1 || requiredApprovals > Self.maximumApprovals {
            return "requiredApprovals: must be 1 to \(Self.maximumApprovals), got \(requiredApprovals) (delete the rule to need no approval)"
        }
        if appliesTo.isEmpty { return "appliesTo: name at least one of settings, segments, definitions" }
        return nil
    }

    /// Whether `other` asks for no more than this rule: fewer or as many approvals, over fewer
    /// or the same scopes. `nil` (no rule) asks for nothing.
    package func isAtLeastAsStrict(as other: ApprovalRule?) -> Bool {
        guard let other else { return true }
        return requiredApprovals >= other.requiredApprovals && appliesTo.isSuperset(of: other.appliesTo)
    }

    /// What of `draft` (one environment's audit draft of a write) a rule can cover.
    package static func scopes(of draft: AuditDraft) -> Set<Scope> {
        switch draft.subject {
        case .segment: return [.segments]
        case .environment, .user, .approvalRule, .webhook, .schedule: return []
        case .flag:
            var scopes: Set<Scope> = []
            let beforeFlag = draft.before?["flag"], afterFlag = draft.after?["flag"]
            let beforeSettings = draft.before?["settings"], afterSettings = draft.after?["settings"]
            // A flag new to the environment serves nothing while it is off: only creating it on
            // is a change there (an import can).
            if beforeFlag == nil {
                return afterSettings?["enabled"] == .bool(true) ? [.settings] : []
            }
            if beforeFlag != afterFlag { scopes.insert(.definitions) }
            if beforeSettings != afterSettings { scopes.insert(.settings) }
            return scopes
        }
    }

    /// Whether `draft` only turns a flag off: its definition kept, its settings the same but
    /// for `enabled`, which goes from `true` to `false` (the break-glass kill switch).
    package static func isTurningOff(_ draft: AuditDraft) -> Bool {
        guard draft.subject == .flag, let before = draft.before, let after = draft.after,
            before["flag"] == after["flag"], case .object(var was) = before["settings"] ?? .null,
            case .object(var will) = after["settings"] ?? .null,
            was["enabled"] == .bool(true), will["enabled"] == .bool(false)
        else { return false }
        was["enabled"] = nil
        will["enabled"] = nil
        return was == will
    }
}

/// Who approves: an admin token (by name) or a console user. The author of a change request
/// cannot approve it; each identity approves once.
public struct ApprovalIdentity: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What kind of identity it is.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// An admin token (named as when issued) or a console user (by user name).
        case token, user
        /// The server itself: the scheduler applying an approved change request at its time.
        case server
    }
    /// What kind of identity it is.
    public var kind: Kind
    /// The token's or user's name.
    public var name: String

    /// The identity of `kind` named `name`.
    public init(kind: Kind, name: String) {
        self.kind = kind
        self.name = name
    }

    /// "token ci-bot", "user alice".
    public var description: String { "\(kind.rawValue) \(name)" }
}

/// How a write through ``FlagAdmin`` stands with the approval rules of the environments it
/// touches.
public enum WriteApproval: Sendable, Hashable {
    /// A direct write: refused (``AdminError/approvalRequired(_:)``) where a rule covers it.
    case required
    /// The break-glass kill switch: passes every rule, but may only turn flags off.
    case killSwitch
    /// The application of an approved change request (its id): the change request checked the
    /// approvals.
    case changeRequest(String)
}
