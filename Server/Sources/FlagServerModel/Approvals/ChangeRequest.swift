public import FlagEvaluation
public import Foundation

/// A proposed change to one environment, waiting for the approvals its rule asks for (see
/// `Server/Docs/Approvals.md`). Every step is kept in ``history`` with its actor and time.
public struct ChangeRequest: Sendable, Hashable, Codable {
    /// Where the request is: open until rejected or applied.
    public enum Status: String, Sendable, Hashable, Codable {
        /// Collecting approvals (or approved and not applied yet).
        case open
        /// Closed by a rejection; it can no longer change.
        case rejected
        /// Applied: ``appliedRevision`` is the revision it produced.
        case applied
    }

    /// The proposed change, in the forms of the direct admin API: exactly one of
    /// - `flag` with `settings` (as `PUT …/flags/{key}/settings`), `patch` (a JSON Merge Patch
    ///   as `PATCH …/settings`) or `definition` (as `PUT /admin/v1/flags/{key}`);
    /// - `segment` with `rule` (as `PUT …/segments/{key}`) or `"delete": true`;
    /// - `approvalRule` (the environment's new rule) or `"removeApprovalRule": true`.
    public struct Proposal: Sendable, Hashable, Codable {
        /// The flag the change is to; `nil` for a segment or approval-rule change.
        public var flag: String?
        /// The flag's whole new settings in the environment.
        public var settings: FlagSettings?
        /// A JSON Merge Patch (RFC 7396) to the flag's settings in the environment.
        public var patch: JSONValue?
        /// The flag's whole new definition (every environment's settings).
        public var definition: JSONValue?
        /// The segment the change is to; `nil` for a flag or approval-rule change.
        public var segment: String?
        /// The segment's new targeting rule (JSON Logic).
        public var rule: JSONValue?
        /// `true` to delete the segment.
        public var delete: Bool?
        /// The environment's new approval rule.
        public var approvalRule: ApprovalRule?
        /// `true` to remove the environment's approval rule.
        public var removeApprovalRule: Bool?

        /// A proposal; give the fields of exactly one of the forms listed on the type.
        public init(
            flag: String? = nil, settings: FlagSettings? = nil, patch: JSONValue? = nil, definition: JSONValue? = nil,
            segment: String? = nil, rule: JSONValue? = nil, delete: Bool? = nil, approvalRule: ApprovalRule? = nil,
            removeApprovalRule: Bool? = nil
        ) {
            self.flag = flag
            self.settings = settings
            self.patch = patch
            self.definition = definition
            self.segment = segment
            self.rule = rule
            self.delete = delete
            self.approvalRule = approvalRule
            self.removeApprovalRule = removeApprovalRule
        }
    }

    /// One subject's state before and after the change, as the audit would record it.
    public struct Difference: Sendable, Hashable, Codable {
        /// The environment the subject lives in.
        public var environment: String
        /// What kind of thing changes (flag, segment or environment).
        public var subject: AuditEntry.Subject
        /// The flag's or segment's key, or the environment's name.
        public var key: String
        /// The subject's state before the change; `nil` when it does not exist yet.
        public var before: JSONValue?
        /// The subject's state after the change; `nil` when the change deletes it.
        public var after: JSONValue?

        /// The difference of `key` (a `subject`) in `environment`, from `before` to `after`.
        package init(
            environment: String, subject: AuditEntry.Subject, key: String, before: JSONValue? = nil,
            after: JSONValue? = nil
        ) {
            self.environment = environment
            self.subject = subject
            self.key = key
            self.before = before
            self.after = after
        }
    }

    /// One approval given to the request.
    public struct Approval: Sendable, Hashable, Codable {
        /// Who approved.
        public var approver: ApprovalIdentity
        /// When they approved.
        public var time: Date
        /// What they wrote with it, if anything.
        public var comment: String?

        /// An approval by `approver` at `time`, with its `comment`.
        package init(approver: ApprovalIdentity, time: Date, comment: String? = nil) {
            self.approver = approver
            self.time = time
            self.comment = comment
        }
    }

    /// One step of the request's life.
    public struct Step: Sendable, Hashable, Codable {
        /// What a step did.
        public enum Action: String, Sendable, Hashable, Codable {
            /// Opened, edited, approved, rejected or applied by the step's actor.
            case opened, edited, approved, rejected, applied
            /// An edit withdrew these approvals (named in the comment).
            case approvalsWithdrawn = "approvals_withdrawn"
        }
        /// What the step did.
        public var action: Action
        /// Who took the step.
        public var actor: ApprovalIdentity
        /// When the step was taken.
        public var time: Date
        /// The comment given with the step, if any.
        public var comment: String?
        /// The revision an application produced.
        public var revision: Int?

        /// A step: `action` by `actor` at `time`, with its `comment` and, for an application, the `revision`.
        package init(
            action: Action, actor: ApprovalIdentity, time: Date, comment: String? = nil, revision: Int? = nil
        ) {
            self.action = action
            self.actor = actor
            self.time = time
            self.comment = comment
            self.revision = revision
        }
    }

    /// The request's identifier.
    public var id: String
    /// The environment the change applies to.
    public var environment: String
    /// Where the request is.
    public var status: Status
    /// Who opened the request (an author cannot approve their own request).
    public var author: ApprovalIdentity
    /// Why the change is wanted, as the author wrote it.
    public var reason: String
    /// The change proposed.
    public var proposal: Proposal
    /// The revision of the environment at which the changed subject (flag, segment) last changed
    /// when the request was opened or last edited (0: never). It applies only at that revision.
    public var basedOnRevision: Int
    /// The exact change: computed when the request is opened and on every edit.
    public var diff: [Difference]
    /// The approvals given and still standing (an edit may withdraw them).
    public var approvals: [Approval]
    /// Every step of the request, oldest first.
    public var history: [Step]
    /// Not applied before this time (a scheduled application).
    public var applyAt: Date?
    /// The environment revision the application produced; `nil` until applied.
    public var appliedRevision: Int?
    /// When the request was opened.
    public var createdAt: Date
    /// When the request last changed.
    public var updatedAt: Date
    /// Bumped on every stored change: an update based on an older version is refused.
    public var version: Int

    /// A request with every field given (its history, approvals and version included), as a store reads it back or a writer opens it.
    package init(
        id: String, environment: String, status: Status, author: ApprovalIdentity, reason: String, proposal: Proposal,
        basedOnRevision: Int, diff: [Difference], approvals: [Approval], history: [Step], applyAt: Date? = nil,
        appliedRevision: Int? = nil, createdAt: Date, updatedAt: Date, version: Int
    ) {
        self.id = id
        self.environment = environment
        self.status = status
        self.author = author
        self.reason = reason
        self.proposal = proposal
        self.basedOnRevision = basedOnRevision
        self.diff = diff
        self.approvals = approvals
        self.history = history
        self.applyAt = applyAt
        self.appliedRevision = appliedRevision
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
    }
}

extension ChangeRequest.Proposal {
    /// What the change is about: the flag, segment or the environment's rule (`nil`: the proposal
    /// names none or several).
    package func subject(in environment: String) -> (AuditEntry.Subject, String)? {
        let flagForms = [settings != nil, patch != nil, definition != nil].filter { $0 }.count
        let segmentForms = [rule != nil, delete == true].filter { $0 }.count
        let ruleForms = [approvalRule != nil, removeApprovalRule == true].filter { $0 }.count
        if let flag, segment == nil, flagForms == 1, segmentForms == 0, ruleForms == 0 { return (.flag, flag) }
        if let segment, flag == nil, flagForms == 0, segmentForms == 1, ruleForms == 0 { return (.segment, segment) }
        if flag == nil, segment == nil, flagForms == 0, segmentForms == 0, ruleForms == 1 { return (.approvalRule, environment) }
        return nil
    }
}
