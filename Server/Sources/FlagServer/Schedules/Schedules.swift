import FlagEvaluation
import FlagServerModel
public import Foundation

/// Scheduled changes, over ``FlagAdmin`` and a ``ScheduleStore``: scheduling, editing, cancelling
/// and listing (see `Server/Docs/ScheduledChanges.md`). ``ScheduledChangeExecutor`` runs them.
/// Every step is audited (subject `schedule`, key the change's id) and announced.
public struct Schedules: Sendable {
    /// The write path every scheduled change goes through when it runs.
    public let admin: FlagAdmin
    /// Where scheduled changes are kept.
    public let store: any ScheduleStore
    let now: @Sendable () -> Date

    /// Schedules over `admin` and `store`; `now` reads the clock (injected by tests).
    public init(admin: FlagAdmin, store: any ScheduleStore, now: @escaping @Sendable () -> Date = Date.init) {
        self.admin = admin
        self.store = store
        self.now = now
    }

    /// The longest reason taken.
    static let maximumReasonBytes = 1000
    /// How far ahead a change may be scheduled: ten years.
    static let maximumLead: TimeInterval = 10 * 366 * 86400
    /// The most scheduled changes one listing returns.
    public static let maximumListLimit = 1000

    /// What a client sends to schedule a change or replace a pending one.
    public struct Draft: Sendable, Hashable {
        /// What the change does to the flag.
        public var change: ScheduledChange.Change
        /// When it is due: in the future, at most ten years ahead.
        public var runAt: Date
        /// Why, audited with the scheduling and with the write that runs it; required, at most 1,000 bytes.
        public var reason: String
        /// The revision the client based the change on; `nil`: the flag's revision now.
        public var basedOnRevision: Int?

        /// A draft; `basedOnRevision` defaults to the flag's revision when it is scheduled.
        public init(change: ScheduledChange.Change, runAt: Date, reason: String, basedOnRevision: Int? = nil) {
            self.change = change
            self.runAt = runAt
            self.reason = reason
            self.basedOnRevision = basedOnRevision
        }
    }

    // MARK: - Reading

    /// The scheduled changes of `environment`, of `flag` and due in `from ..< to` where given, earliest
    /// first, at most `limit` (1 to ``maximumListLimit``).
    /// - Throws: ``AdminError/notFound(_:)`` for an unknown environment or flag; the store's failure
    ///   as an ``AdminError``.
    public func list(environment: String, flag: String? = nil, from: Date? = nil, to: Date? = nil, limit: Int = 100) async throws(AdminError) -> [ScheduledChange] {
        guard await admin.state.environments[environment] != nil else { throw .notFound("environment \"\(environment)\" does not exist") }
        if let flag, await admin.state.flags[flag] == nil { throw .notFound("flag \"\(flag)\" does not exist") }
        let limit = max(1, min(limit, Self.maximumListLimit))
        do { return try await store.schedules(environment: environment, flag: flag, from: from, to: to, limit: limit) } catch {
            throw AdminError(store: error)
        }
    }

    /// The scheduled change `id` of `flag` (any flag when `nil`) in `environment`.
    public func schedule(id: String, environment: String, flag: String? = nil) async throws(AdminError) -> ScheduledChange {
        let found: ScheduledChange?
        do { found = try await store.schedule(id: id) } catch { throw AdminError(store: error) }
        guard let found, found.environment == environment, flag == nil || found.flag == flag else {
            throw .notFound("scheduled change \"\(id)\" does not exist for \(flag.map { "flag \"\($0)\" in " } ?? "")environment \"\(environment)\"")
        }
        return found
    }

    // MARK: - Writing

    /// Schedules `draft` for `flag` in `environment`, based on the flag's revision now (or the
    /// one the draft names, which must be the current one).
    ///
    /// - Throws: ``AdminError/approvalRequired(_:)`` when the environment's approval rule covers
    ///   the change: schedule it as a change request with `applyAt` instead;
    ///   ``AdminError/conflict(_:)`` when the draft's revision is not the flag's.
    public func create(environment: String, flag: String, draft: Draft, actor: String) async throws(AdminError) -> ScheduledChange {
        let time = now()
        let basedOn = try await check(draft, environment: environment, flag: flag, at: time)
        var schedule = ScheduledChange(
            id: "sc-" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16), environment: environment,
            flag: flag, change: draft.change, runAt: draft.runAt, basedOnRevision: basedOn, actor: actor, reason: draft.reason,
            createdAt: time)
        schedule.updatedAt = time
        let audit = await auditEntry(before: nil, after: schedule, actor: actor, reason: draft.reason, at: time)
        do { try await store.insertSchedule(schedule, audit: audit) } catch { throw AdminError(store: error) }
        notify(.scheduleCreated, schedule, actor: actor, summary: "\(flag): change scheduled in \(environment) for \(schedule.runAt.formatted(.iso8601)) (\(draft.reason))")
        return schedule
    }

    /// Replaces a pending change with `draft` (based again on the flag's revision now); `version`,
    /// when given, must be the stored one.
    public func edit(
        id: String, environment: String, flag: String, draft: Draft, version: Int? = nil, actor: String
    ) async throws(AdminError) -> ScheduledChange {
        let time = now()
        let current = try await pending(id: id, environment: environment, flag: flag, version: version, at: time)
        guard current.changeRequest == nil else {
            throw .conflict("scheduled change \"\(id)\" applies change request \(current.changeRequest ?? ""): edit the change request instead")
        }
        let basedOn = try await check(draft, environment: environment, flag: flag, at: time)
        var edited = current
        edited.change = draft.change
        edited.runAt = draft.runAt
        edited.reason = draft.reason
        edited.basedOnRevision = basedOn
        edited.version += 1
        edited.updatedAt = time
        let audit = await auditEntry(before: current, after: edited, actor: actor, reason: draft.reason, at: time)
        do { try await store.updateSchedule(edited, audit: audit) } catch { throw AdminError(store: error) }
        notify(.scheduleUpdated, edited, actor: actor, summary: "\(flag): scheduled change \(id) in \(environment) now for \(edited.runAt.formatted(.iso8601)) (\(draft.reason))")
        return edited
    }

    /// Cancels a pending change; it is kept with the status `cancelled`.
    public func cancel(id: String, environment: String, flag: String? = nil, reason: String?, actor: String) async throws(AdminError) -> ScheduledChange {
        try Self.check(reason, "reason", required: false)
        let time = now()
        let current = try await pending(id: id, environment: environment, flag: flag, version: nil, at: time)
        var cancelled = current
        cancelled.status = .cancelled
        cancelled.outcome = "cancelled by \(actor)" + (reason.map { ": \($0)" } ?? "")
        cancelled.version += 1
        cancelled.updatedAt = time
        let audit = await auditEntry(before: current, after: cancelled, actor: actor, reason: reason, at: time)
        do { try await store.updateSchedule(cancelled, audit: audit) } catch { throw AdminError(store: error) }
        notify(.scheduleCancelled, cancelled, actor: actor, summary: "\(current.flag): scheduled change \(id) in \(environment) cancelled")
        return cancelled
    }

    // MARK: - Helpers

    /// The change `id` while it is pending and no server runs it.
    private func pending(id: String, environment: String, flag: String?, version: Int?, at time: Date) async throws(AdminError) -> ScheduledChange {
        let current = try await schedule(id: id, environment: environment, flag: flag)
        guard current.status == .pending else {
            throw .conflict("scheduled change \"\(id)\" is \(current.status.rawValue): only a pending change can be edited or cancelled")
        }
        if let until = current.claimedUntil, until > time {
            throw .conflict("scheduled change \"\(id)\" is running now: it can no longer be edited or cancelled")
        }
        if let version, version != current.version {
            throw .conflict("scheduled change \"\(id)\" is at version \(current.version), not \(version): read it again")
        }
        return current
    }

    /// Checks `draft` against the current state and the approval rules; returns the revision it
    /// is based on.
    private func check(_ draft: Draft, environment: String, flag: String, at time: Date) async throws(AdminError) -> Int {
        try Self.check(draft.reason, "reason", required: true)
        guard draft.runAt > time else { throw .badRequest("runAt: \(draft.runAt.formatted(.iso8601)) is not in the future") }
        guard draft.runAt.timeIntervalSince(time) <= Self.maximumLead else { throw .badRequest("runAt: more than ten years ahead") }
        let state = await admin.state
        guard state.environments[environment] != nil else { throw .notFound("environment \"\(environment)\" does not exist") }
        guard state.environments[environment]?.settings[flag] != nil else {
            throw .notFound("flag \"\(flag)\" does not exist in environment \"\(environment)\"")
        }
        let forms = [draft.change.patch != nil, draft.change.settings != nil, draft.change.definition != nil].filter { $0 }.count
        guard forms == 1 else { throw .badRequest("change: give exactly one of patch, settings, definition") }
        let proposal = ChangeRequest.Proposal(
            flag: flag, settings: draft.change.settings, patch: draft.change.patch, definition: draft.change.definition)
        let diff = try proposal.diff(in: environment, of: state, rule: nil)
        guard diff.contains(where: { $0.before != $0.after }) else {
            throw .badRequest("change: it changes nothing in environment \"\(environment)\" now")
        }
        try await checkApprovalRules(diff)
        let current = try await Self.revision(of: flag, in: environment, store: admin.store)
        if let given = draft.basedOnRevision, given != current {
            throw .conflict("basedOnRevision: flag \"\(flag)\" last changed at revision \(current) of \(environment), not \(given): read it again")
        }
        return current
    }

    /// Refuses a change an approval rule covers: it must be scheduled as a change request with
    /// `applyAt`, approved, so that the approval's revision check holds when it runs.
    private func checkApprovalRules(_ diff: [ChangeRequest.Difference]) async throws(AdminError) {
        guard let approvals = admin.store.capabilities.approvals else { return }
        let rules: [String: ApprovalRule]
        do { rules = try await approvals.approvalRules() } catch { throw AdminError(store: error) }
        for difference in diff {
            guard let rule = rules[difference.environment] else { continue }
            let draft = AuditDraft(
                environment: difference.environment, subject: difference.subject, key: difference.key, before: difference.before,
                after: difference.after)
            guard let scope = ApprovalRule.scopes(of: draft).intersection(rule.appliesTo).min() else { continue }
            throw .approvalRequired(
                "environment \"\(difference.environment)\" needs \(rule.requiredApprovals) approval(s) for \(scope.rawValue) changes: schedule it as a change request with applyAt (POST /admin/v1/environments/\(difference.environment)/change-requests)")
        }
    }

    /// The revision of `environment` at which `flag` last changed (0: never).
    static func revision(of flag: String, in environment: String, store: any FlagStore) async throws(AdminError) -> Int {
        do {
            return try await store.audit(environment: environment, key: flag, limit: 100).first { $0.subject == .flag }?.revision ?? 0
        } catch {
            throw AdminError(store: error)
        }
    }

    private func auditEntry(before: ScheduledChange?, after: ScheduledChange, actor: String, reason: String?, at time: Date) async -> AuditEntry {
        await Self.auditEntry(admin: admin, before: before, after: after, actor: actor, reason: reason, at: time)
    }

    /// The audit entry of a step: in the change's environment at its current revision.
    static func auditEntry(admin: FlagAdmin, before: ScheduledChange?, after: ScheduledChange, actor: String, reason: String?, at time: Date) async -> AuditEntry {
        let revision = await admin.state.environments[after.environment]?.revision ?? 0
        return AuditEntry(
            environment: after.environment, revision: revision, time: time, actor: actor, reason: reason, subject: .schedule,
            key: after.id, before: before.map(\.audited), after: after.audited)
    }

    private func notify(_ kind: ServerNotification.Kind, _ schedule: ScheduledChange, actor: String, summary: String) {
        Self.notify(admin: admin, kind, schedule, actor: actor, summary: summary, at: now())
    }

    static func notify(admin: FlagAdmin, _ kind: ServerNotification.Kind, _ schedule: ScheduledChange, actor: String, summary: String, at time: Date) {
        var details: [String: JSONValue] = [
            "schedule": .string(schedule.id), "status": .string(schedule.status.rawValue),
            "runAt": .string(schedule.runAt.formatted(.iso8601)), "basedOnRevision": .int(schedule.basedOnRevision),
        ]
        if let outcome = schedule.outcome { details["outcome"] = .string(outcome) }
        if let request = schedule.changeRequest { details["changeRequest"] = .string(request) }
        admin.notifications.notify(ServerNotification(
            kind: kind, time: time, actor: actor, environment: schedule.environment, flag: schedule.flag, revision: schedule.revision,
            summary: summary, details: details))
    }

    static func check(_ text: String?, _ field: String, required: Bool) throws(AdminError) {
        if required, (text ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw .badRequest("\(field): say why; it is required")
        }
        if let text, text.utf8.count > maximumReasonBytes { throw .badRequest("\(field): longer than \(maximumReasonBytes) bytes") }
    }
}

extension ScheduledChange {
    /// The change as the audit records it: everything but the lease.
    var audited: JSONValue {
        var shown = self
        shown.claimedBy = nil
        shown.claimedUntil = nil
        return JSONValue(encoding: shown)
    }
}
