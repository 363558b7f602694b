import FlagEvaluation
import FlagServerModel
public import Foundation

/// Approval rules, change requests and the break-glass kill switch, over ``FlagAdmin`` (the one
/// write path) and an ``ApprovalStore``. The admin API and the console both act through it.
public struct Approvals: Sendable {
    /// The write path every approved change and kill switch goes through.
    public let admin: FlagAdmin
    /// Where rules and change requests are kept.
    public let store: any ApprovalStore
    let now: @Sendable () -> Date

    /// Approvals over `admin` and `store`; `now` reads the clock (injected by tests).
    public init(admin: FlagAdmin, store: any ApprovalStore, now: @escaping @Sendable () -> Date = Date.init) {
        self.admin = admin
        self.store = store
        self.now = now
    }

    /// The longest reason or comment taken.
    static let maximumTextBytes = 1000

    // MARK: - Rules

    /// The rule of every environment that has one, by environment name.
    /// - Throws: ``AdminError`` when the store fails.
    public func rules() async throws(AdminError) -> [String: ApprovalRule] {
        do { return try await store.approvalRules() } catch { throw AdminError(store: error) }
    }

    /// Sets (or with `nil` removes) `environment`'s rule, audited in that environment.
    ///
    /// A rule that asks for at least as much as the current one (as many approvals or more, the
    /// same scopes or more) applies at once. One that asks for less (fewer approvals, fewer
    /// scopes, no rule) is a change the current rule governs: it needs a change request approved
    /// under the current rule (``AdminError/approvalRequired(_:)``), or the rule would be a
    /// loophole of itself (remove it, write directly, put it back).
    public func putRule(_ rule: ApprovalRule?, environment: String, actor: String, reason: String?) async throws(AdminError) {
        if let problem = rule?.problem { throw .badRequest(problem) }
        try Self.check(reason, "reason", required: false)
        let current = try await rules()[environment]
        if let current, !(rule?.isAtLeastAsStrict(as: current) ?? false) {
            throw .approvalRequired(
                "environment \"\(environment)\" has a rule of \(current.requiredApprovals) approval(s): asking for less needs a change request approved under it (POST /admin/v1/environments/\(environment)/change-requests with {\"change\": {\"approvalRule\": …}} or {\"change\": {\"removeApprovalRule\": true}})")
        }
        try await storeRule(rule, environment: environment, actor: actor, reason: reason)
    }

    private func storeRule(_ rule: ApprovalRule?, environment: String, actor: String, reason: String?) async throws(AdminError) {
        guard let revision = await admin.state.environments[environment]?.revision else {
            throw .notFound("environment \"\(environment)\" does not exist")
        }
        let current = try await rules()[environment]
        guard current != rule else { return }
        let audit = AuditEntry(
            environment: environment, revision: revision, time: now(), actor: actor, reason: reason, subject: .approvalRule,
            key: environment, before: current.map { JSONValue(encoding: $0) }, after: rule.map { JSONValue(encoding: $0) })
        do { try await store.putApprovalRule(rule, environment: environment, audit: audit) } catch { throw AdminError(store: error) }
    }

    // MARK: - Change requests

    /// The change requests of `environment`, newest first, at most `limit`.
    /// - Throws: ``AdminError`` when the store fails.
    public func changeRequests(environment: String, limit: Int = 100) async throws(AdminError) -> [ChangeRequest] {
        do { return try await store.changeRequests(environment: environment, limit: limit) } catch { throw AdminError(store: error) }
    }

    /// The change request `id` of `environment`.
    public func changeRequest(id: String, environment: String) async throws(AdminError) -> ChangeRequest {
        let found: ChangeRequest?
        do { found = try await store.changeRequest(id: id) } catch { throw AdminError(store: error) }
        guard let found, found.environment == environment else {
            throw .notFound("change request \"\(id)\" does not exist in environment \"\(environment)\"")
        }
        return found
    }

    /// Opens a change request: its exact diff and the revision it is based on are computed now.
    public func open(
        environment: String, proposal: ChangeRequest.Proposal, reason: String, applyAt: Date?, by author: ApprovalIdentity
    ) async throws(AdminError) -> ChangeRequest {
        try Self.check(reason, "reason", required: true)
        let (diff, basedOn) = try await plan(proposal, in: environment)
        let time = now()
        let request = ChangeRequest(
            id: "cr-" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16), environment: environment,
            status: .open, author: author, reason: reason, proposal: proposal, basedOnRevision: basedOn, diff: diff,
            approvals: [], history: [.init(action: .opened, actor: author, time: time, comment: reason)], applyAt: applyAt,
            appliedRevision: nil, createdAt: time, updatedAt: time, version: 1)
        do { try await store.insertChangeRequest(request) } catch { throw AdminError(store: error) }
        notify(.changeRequestOpened, request, actor: author, summary: "change request \(request.id) opened in \(environment): \(reason)")
        return request
    }

    /// Replaces the proposal (its author only): the diff and the revision are computed again and
    /// every approval is withdrawn (recorded in the history).
    public func edit(
        id: String, environment: String, proposal: ChangeRequest.Proposal, reason: String, applyAt: Date?,
        by editor: ApprovalIdentity
    ) async throws(AdminError) -> ChangeRequest {
        try Self.check(reason, "reason", required: true)
        var request = try await open(id: id, environment: environment)
        guard request.author == editor else {
            throw .conflict("change request \"\(id)\" is \(request.author)'s: only its author edits it (open another one)")
        }
        let (diff, basedOn) = try await plan(proposal, in: environment)
        let time = now()
        if !request.approvals.isEmpty {
            request.history.append(.init(
                action: .approvalsWithdrawn, actor: editor, time: time,
                comment: "edited after approval by " + request.approvals.map(\.approver.description).joined(separator: ", ")))
        }
        request.approvals = []
        request.history.append(.init(action: .edited, actor: editor, time: time, comment: reason))
        request.proposal = proposal
        request.reason = reason
        request.applyAt = applyAt
        request.diff = diff
        request.basedOnRevision = basedOn
        return try await update(request, at: time)
    }

    /// Approves as `approver`: not the author, once per identity.
    public func approve(id: String, environment: String, by approver: ApprovalIdentity, comment: String?) async throws(AdminError) -> ChangeRequest {
        try Self.check(comment, "comment", required: false)
        var request = try await open(id: id, environment: environment)
        guard request.author != approver else {
            throw .conflict("change request \"\(id)\": its author (\(approver)) cannot approve it; someone else must")
        }
        guard !request.approvals.contains(where: { $0.approver == approver }) else {
            throw .conflict("change request \"\(id)\": \(approver) approved it already (each identity approves once)")
        }
        let time = now()
        request.approvals.append(.init(approver: approver, time: time, comment: comment))
        request.history.append(.init(action: .approved, actor: approver, time: time, comment: comment))
        let updated = try await update(request, at: time)
        notify(.changeRequestApproved, updated, actor: approver, summary: "change request \(id) in \(environment) approved by \(approver)")
        return updated
    }

    /// Rejects (closes) the request; its author may reject it too (withdrawing it).
    public func reject(id: String, environment: String, by reviewer: ApprovalIdentity, comment: String?) async throws(AdminError) -> ChangeRequest {
        try Self.check(comment, "comment", required: false)
        var request = try await open(id: id, environment: environment)
        let time = now()
        request.status = .rejected
        request.history.append(.init(action: .rejected, actor: reviewer, time: time, comment: comment))
        let updated = try await update(request, at: time)
        notify(.changeRequestRejected, updated, actor: reviewer, summary: "change request \(id) in \(environment) rejected by \(reviewer)")
        return updated
    }

    /// Applies an approved request through ``FlagAdmin`` (audited with a reason naming the request
    /// and its approvers), only with the approvals the environment's rule asks for now, after its
    /// `applyAt`, and only while its subject is still at the revision that was approved and the
    /// change is still exactly the approved diff.
    ///
    /// - Throws: ``AdminError/approvalRequired(_:)`` when approvals are missing or the subject
    ///   moved (edit the request to base it on the current state, and have it approved again).
    public func apply(id: String, environment: String, by applier: ApprovalIdentity, actor: String) async throws(AdminError) -> ChangeRequest {
        var request = try await open(id: id, environment: environment)
        let required = try await rules()[environment]?.requiredApprovals ?? 0
        guard request.approvals.count >= required else {
            throw .approvalRequired(
                "change request \"\(id)\" has \(request.approvals.count) of the \(required) approval(s) environment \"\(environment)\" asks for")
        }
        let time = now()
        if let applyAt = request.applyAt, time < applyAt {
            throw .conflict("change request \"\(id)\" is scheduled for \(applyAt.formatted(.iso8601)): apply it after that")
        }
        guard let (subject, key) = request.proposal.subject(in: environment) else { throw .internalFailure("change request \(id) proposes nothing") }
        let current = try await revision(of: subject, key: key, in: environment)
        guard current == request.basedOnRevision else {
            throw .approvalRequired(
                "change request \"\(id)\" was approved for \(subject.rawValue) \"\(key)\" at revision \(request.basedOnRevision), which changed since (revision \(current)): edit the request to base it on the current state and have it approved again")
        }
        let approvers = request.approvals.map(\.approver.description).joined(separator: ", ")
        let reason = "change request \(id) (approved by \(approvers.isEmpty ? "nobody: no rule asked" : approvers)): \(request.reason)"
        let proposal = request.proposal
        let approved = request.diff
        var revision: Int?
        if subject == .approvalRule {
            let rule = try await rules()[environment]
            guard approved.first?.before == rule.map({ JSONValue(encoding: $0) }) else {
                throw .approvalRequired("change request \"\(id)\": the rule changed since it was approved; edit it and have it approved again")
            }
            try await storeRule(proposal.removeApprovalRule == true ? nil : proposal.approvalRule, environment: environment, actor: actor, reason: reason)
        } else {
            let revisions = try await admin.write(actor: actor, reason: reason, approval: .changeRequest(id)) { state throws(AdminError) in
                guard try proposal.diff(in: environment, of: state, rule: nil) == approved else {
                    throw .approvalRequired(
                        "change request \"\(id)\": the change would now differ from the approved diff; edit it and have it approved again")
                }
                return try proposal.changes(in: environment, of: state)
            }
            revision = revisions[environment]
        }
        request.status = .applied
        request.appliedRevision = revision
        request.history.append(.init(action: .applied, actor: applier, time: time, comment: nil, revision: revision))
        let updated: ChangeRequest
        do { updated = try await update(request, at: time) } catch {
            throw .internalFailure("change request \"\(id)\" was applied (revision \(revision.map(String.init) ?? "none")) but recording it failed: \(error)")
        }
        notify(.changeRequestApplied, updated, actor: applier, summary: "change request \(id) applied in \(environment) by \(applier)")
        return updated
    }

    // MARK: - Kill switch

    /// Turns `flag` off in `environment` at once, whatever the approval rule: audited with the
    /// reason "kill switch: …" and announced as ``ServerNotification/Kind/killSwitch``. A flag
    /// already off is left alone (no revision, no announcement).
    ///
    /// - Returns: The new revisions (empty when the flag was off already).
    public func kill(flag: String, environment: String, reason: String, actor: String) async throws(AdminError) -> [String: Int] {
        try Self.check(reason, "reason", required: true)
        let revisions = try await admin.write(actor: actor, reason: "kill switch: " + reason, approval: .killSwitch) { state throws(AdminError) in
            guard state.environments[environment] != nil else { throw .notFound("environment \"\(environment)\" does not exist") }
            guard var settings = state.environments[environment]?.settings[flag] else { throw .notFound("flag \"\(flag)\" does not exist") }
            guard settings.enabled else { return [] }
            settings.enabled = false
            return [.putSettings(environment: environment, flag: flag, settings)]
        }
        if let revision = revisions[environment] {
            admin.notifications.notify(ServerNotification(
                kind: .killSwitch, time: now(), actor: actor, environment: environment, flag: flag, revision: revision,
                summary: "\(flag): turned off in \(environment) with the kill switch (\(reason))", details: ["reason": .string(reason)]))
        }
        return revisions
    }

    // MARK: - Helpers

    /// The request `id` while it is open.
    private func open(id: String, environment: String) async throws(AdminError) -> ChangeRequest {
        let request = try await changeRequest(id: id, environment: environment)
        switch request.status {
        case .open: return request
        case .rejected: throw .conflict("change request \"\(id)\" was rejected; open a new one")
        case .applied: throw .conflict("change request \"\(id)\" was applied already (revision \(request.appliedRevision.map(String.init) ?? "none"))")
        }
    }

    private func update(_ request: ChangeRequest, at time: Date) async throws(AdminError) -> ChangeRequest {
        var request = request
        request.version += 1
        request.updatedAt = time
        do { try await store.updateChangeRequest(request) } catch { throw AdminError(store: error) }
        return request
    }

    /// The exact diff of `proposal` now and the revision of its subject.
    private func plan(_ proposal: ChangeRequest.Proposal, in environment: String) async throws(AdminError) -> ([ChangeRequest.Difference], Int) {
        let state = await admin.state
        guard state.environments[environment] != nil else { throw .notFound("environment \"\(environment)\" does not exist") }
        let diff = try proposal.diff(in: environment, of: state, rule: try await rules()[environment])
        guard !diff.isEmpty, diff.contains(where: { $0.before != $0.after }) else {
            throw .badRequest("change: it changes nothing in environment \"\(environment)\"")
        }
        guard let (subject, key) = proposal.subject(in: environment) else { throw .badRequest("change: propose one thing") }
        return (diff, try await revision(of: subject, key: key, in: environment))
    }

    /// The revision of `environment` at which `subject` `key` last changed (0: never).
    private func revision(of subject: AuditEntry.Subject, key: String, in environment: String) async throws(AdminError) -> Int {
        do {
            return try await admin.store.audit(environment: environment, key: key, limit: 100).first { $0.subject == subject }?.revision ?? 0
        } catch {
            throw AdminError(store: error)
        }
    }

    private func notify(_ kind: ServerNotification.Kind, _ request: ChangeRequest, actor: ApprovalIdentity, summary: String) {
        var details: [String: JSONValue] = ["changeRequest": .string(request.id), "status": .string(request.status.rawValue)]
        if let revision = request.appliedRevision { details["appliedRevision"] = .int(revision) }
        let flag = request.proposal.flag
        admin.notifications.notify(ServerNotification(
            kind: kind, time: now(), actor: actor.description, environment: request.environment, flag: flag,
            revision: request.appliedRevision, summary: summary, details: details))
    }

    static func check(_ text: String?, _ field: String, required: Bool) throws(AdminError) {
        if required, (text ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw .badRequest("\(field): say why; it is required")
        }
        if let text, text.utf8.count > maximumTextBytes { throw .badRequest("\(field): longer than \(maximumTextBytes) bytes") }
    }
}
