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
    }

    /// One approval given to the request.
    public struct Approval: Sendable, Hashable, Codable {
        /// Who approved.
        public var approver: ApprovalIdentity
        /// When they approved.
        public var time: Date
        /// What they wrote with it, if anything.
        public var comment: String?
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
}

extension ChangeRequest.Proposal {
    /// What the change is about: the flag, segment or the environment's rule (`nil`: the proposal
    /// names none or several).
    func subject(in environment: String) -> (AuditEntry.Subject, String)? {
        let flagForms = [settings != nil, patch != nil, definition != nil].filter { $0 }.count
        let segmentForms = [rule != nil, delete == true].filter { $0 }.count
        let ruleForms = [approvalRule != nil, removeApprovalRule == true].filter { $0 }.count
        if let flag, segment == nil, flagForms == 1, segmentForms == 0, ruleForms == 0 { return (.flag, flag) }
        if let segment, flag == nil, flagForms == 0, segmentForms == 1, ruleForms == 0 { return (.segment, segment) }
        if flag == nil, segment == nil, flagForms == 0, segmentForms == 0, ruleForms == 1 { return (.approvalRule, environment) }
        return nil
    }

    /// The state changes the proposal makes in `environment` of `state` (none for a rule).
    func changes(in environment: String, of state: ServerState) throws(AdminError) -> [StateChange] {
        guard let (kind, key) = subject(in: environment) else {
            throw .badRequest(
                "change: propose one thing: a flag with settings, patch or definition; a segment with rule or \"delete\": true; or approvalRule or \"removeApprovalRule\": true")
        }
        guard state.environments[environment] != nil else { throw .notFound("environment \"\(environment)\" does not exist") }
        switch kind {
        case .flag:
            if let definition {
                let body: AdminRequests.PutFlag
                do { body = try definition.decoded(as: AdminRequests.PutFlag.self) } catch {
                    throw .badRequest("change.definition: not a flag definition (type, variants, metadata, defaultVariant)")
                }
                return [body.change(key: key, current: state.flags[key])]
            }
            guard let current = state.environments[environment]?.settings[key] else {
                throw .notFound("flag \"\(key)\" does not exist in environment \"\(environment)\"")
            }
            if let settings { return [.putSettings(environment: environment, flag: key, settings)] }
            let body: SettingsPatch
            do { body = try (patch ?? .object([:])).decoded(as: SettingsPatch.self) } catch {
                throw .badRequest("change.patch: a merge patch of settings is an object")
            }
            return [.putSettings(environment: environment, flag: key, try body.applied(to: current))]
        case .segment:
            if let rule { return [.putSegment(environment: environment, key: key, rule: rule)] }
            return [.deleteSegment(environment: environment, key: key)]
        case .environment, .user, .approvalRule, .webhook, .schedule:
            return []
        }
    }

    /// The exact change the proposal makes to `state` (and to `rule`, the environment's rule).
    func diff(in environment: String, of state: ServerState, rule: ApprovalRule?) throws(AdminError) -> [ChangeRequest.Difference] {
        if approvalRule != nil || removeApprovalRule == true {
            guard subject(in: environment) != nil else { _ = try changes(in: environment, of: state); return [] }
            if let approvalRule, let problem = approvalRule.problem { throw .badRequest("change.approvalRule." + problem) }
            let after = removeApprovalRule == true ? nil : approvalRule
            return [.init(
                environment: environment, subject: .approvalRule, key: environment, before: rule.map { JSONValue(encoding: $0) },
                after: after.map { JSONValue(encoding: $0) })]
        }
        let changes = try changes(in: environment, of: state)
        let transition: StateTransition
        do { transition = try state.transition(applying: changes) } catch { throw AdminError(store: error) }
        let problems = StateValidator.problems(in: transition.state, changedBy: transition.delta, missingVariants: .addedSince(state))
        guard problems.isEmpty else { throw .invalid(problems) }
        return transition.audit.map {
            .init(environment: $0.environment, subject: $0.subject, key: $0.key, before: $0.before, after: $0.after)
        }
    }
}
