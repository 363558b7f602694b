import FlagEvaluation
import FlagServerModel
public import Foundation

/// Progressive rollouts over ``FlagAdmin`` (the one write path) and a ``RolloutStore``: what the
/// admin API and the ``RolloutExecutor`` call. Every change of a flag's serving is a revision
/// written through ``FlagAdmin/write(actor:reason:revert:approval:timeout:_:)``, audited with a
/// reason naming the plan and step; every change of a plan is kept in its history.
///
/// **Approvals.** Starting a plan is its author's write and passes the environment's approval
/// rule like any direct write (refused with ``AdminError/approvalRequired(_:)`` where a rule
/// covers settings). The steps, the finish and the rollbacks that follow are the server's own
/// actions within the started plan and pass as ``WriteApproval/changeRequest(_:)`` named
/// `rollout:<id>`: a started plan is its own approval, and a rollback must never wait for one.
public struct Rollouts: Sendable {
    /// The write path the rollouts' flag changes go through.
    public let admin: FlagAdmin
    /// Where plans and templates are kept.
    public let store: any RolloutStore
    /// Where the guardrails' counts come from; `nil`: no guardrail is evaluated.
    public let events: (any RolloutEventCounting)?
    /// Where experiment-metric guardrails' results are counted; `nil`: those guardrails find nothing.
    public let results: (any ExperimentResultsStore)?
    let now: @Sendable () -> Date

    /// The actor of the server's own actions (steps, finishes, rollbacks on a regression).
    public static let serverActor = "rollout"

    /// Rollouts over `admin` and `store`, reading guardrail counts from `events` and
    /// experiment-metric totals from `results` (`nil`: none).
    public init(
        admin: FlagAdmin, store: any RolloutStore, events: (any RolloutEventCounting)?, results: (any ExperimentResultsStore)?,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.admin = admin
        self.store = store
        self.events = events
        self.results = results
        self.now = now
    }

    // MARK: - Plans

    /// Stores a new draft plan after checking it and that its flag and variants exist.
    public func create(_ plan: RolloutPlan) async throws(AdminError) -> RolloutPlan {
        let problems = plan.problems
        guard problems.isEmpty else { throw .badRequest(problems.joined(separator: "; ")) }
        try await checkFlag(of: plan)
        try await checkMetricKeys(plan.guardrails)
        do { try await store.insertRolloutPlan(plan) } catch { throw AdminError(store: error) }
        return plan
    }

    /// The plan `id` of `environment`.
    /// - Throws: ``AdminError/notFound(_:)`` when there is none in that environment; the store's
    ///   failure as an ``AdminError``.
    public func plan(id: String, environment: String) async throws(AdminError) -> RolloutPlan {
        let found: RolloutPlan?
        do { found = try await store.rolloutPlan(id: id) } catch { throw AdminError(store: error) }
        guard let found, found.environment == environment else {
            throw .notFound("rollout plan \"\(id)\" does not exist in environment \"\(environment)\"")
        }
        return found
    }

    /// The newest `limit` plans of `environment` (of `flag` only, when given), newest first.
    /// - Throws: the store's failure as an ``AdminError``.
    public func plans(environment: String, flag: String?, limit: Int = 100) async throws(AdminError) -> [RolloutPlan] {
        do { return try await store.rolloutPlans(environment: environment, flag: flag, limit: limit) } catch {
            throw AdminError(store: error)
        }
    }

    /// Deletes a draft, finished or rolled-back plan (a running or paused one must be finished
    /// or rolled back first: it still owns the flag's serving rule).
    public func delete(id: String, environment: String) async throws(AdminError) {
        let plan = try await plan(id: id, environment: environment)
        guard plan.status != .running, plan.status != .paused else {
            throw .conflict("rollout plan \"\(id)\" is \(plan.status.rawValue): roll it back first")
        }
        do { _ = try await store.deleteRolloutPlan(id: id) } catch { throw AdminError(store: error) }
        await forgetMetricCounts(plan)
    }

    private func checkFlag(of plan: RolloutPlan) async throws(AdminError) {
        let state = await admin.state
        guard state.environments[plan.environment] != nil else {
            throw .notFound("environment \"\(plan.environment)\" does not exist")
        }
        guard let flag = state.flags[plan.flag], state.environments[plan.environment]?.settings[plan.flag] != nil else {
            throw .notFound("flag \"\(plan.flag)\" does not exist in environment \"\(plan.environment)\"")
        }
        for variant in [plan.oldVariant, plan.newVariant] where flag.variants[variant] == nil {
            throw .badRequest("variant \"\(variant)\" is not a variant of flag \"\(plan.flag)\" (\(flag.variants.keys.sorted().joined(separator: ", ")))")
        }
    }

    // MARK: - Actions

    /// Starts a draft plan, or a rolled-back one again (with the same salt or a new one, as its
    /// ``RolloutPlan/restart`` says): serves its first step.
    ///
    /// - Throws: ``AdminError/conflict(_:)`` when the plan is not a draft or rolled back, the flag
    ///   is off in the environment (everyone would be served `DISABLED` whatever the step), or the
    ///   flag has targeting that is not this plan's split (a rollout replaces the serving rule);
    ///   ``AdminError/approvalRequired(_:)`` where the environment's approval rule covers settings.
    @discardableResult
    public func start(id: String, environment: String, actor: String) async throws(AdminError) -> RolloutPlan {
        var plan = try await plan(id: id, environment: environment)
        guard plan.status == .draft || plan.status == .rolledBack else {
            throw .conflict("rollout plan \"\(id)\" is \(plan.status.rawValue); only a draft or rolled-back plan starts")
        }
        try await checkFlag(of: plan)
        let restarting = plan.status == .rolledBack
        if restarting, plan.restart == .newUnits { plan.salt = RolloutPlan.makeSalt() }
        let current = await admin.state.environments[environment]?.settings[plan.flag]
        if let current, !current.enabled { throw .conflict(Self.flagOffMessage(plan, doing: "starting")) }
        if let current, !plan.owns(current) {
            throw .conflict(
                "flag \"\(plan.flag)\" has targeting in \"\(environment)\": a rollout replaces the serving rule; remove the targeting first")
        }
        let time = now()
        let revision = try await serve(
            plan, step: 0, actor: actor, approval: .required, whileOn: "starting",
            reason: "rollout \(plan.id): \(restarting ? "started again" : "started") at \(Self.percent(plan.steps[0].percent)) "
                + "of units on \"\(plan.newVariant)\" (step 1 of \(plan.steps.count))")
        plan.currentStep = 0
        plan.stepStartedAt = time
        plan.runStartedAt = time
        plan.evaluations = nil
        plan.lastEvaluatedAt = nil
        plan.status = plan.steps[0].percent >= 100 ? .finished : .running
        plan.record(.init(
            action: .started, actor: actor, time: time, step: 0, percent: plan.steps[0].percent, revision: revision,
            comment: restarting ? (plan.restart == .newUnits ? "new units (new salt)" : "same units (same salt)") : nil))
        try await save(&plan)
        notify(.rolloutStepped, plan, actor: actor, revision: revision, summary: "\(plan.flag): rollout started at \(Self.percent(plan.currentPercent))")
        return plan
    }

    /// Holds the current split: no step, no evaluation until resumed.
    @discardableResult
    public func pause(id: String, environment: String, actor: String, comment: String? = nil) async throws(AdminError) -> RolloutPlan {
        let plan = try await update(id: id, environment: environment) { plan throws(AdminError) in
            guard plan.status == .running else { throw .conflict("rollout plan \"\(id)\" is \(plan.status.rawValue); only a running plan pauses") }
            plan.status = .paused
            plan.lease = nil
            plan.record(.init(action: .paused, actor: actor, time: now(), step: plan.currentStep, percent: plan.currentPercent, comment: comment))
        }
        notify(.rolloutPaused, plan, actor: actor, revision: nil, summary: "\(plan.flag): rollout paused at \(Self.percent(plan.currentPercent))")
        return plan
    }

    /// Resumes a paused plan at its step (the same units keep the new variant); the step's
    /// duration counts again from now.
    ///
    /// - Throws: ``AdminError/conflict(_:)`` when the plan is not paused or its flag is off.
    @discardableResult
    public func resume(id: String, environment: String, actor: String) async throws(AdminError) -> RolloutPlan {
        let state = await admin.state
        return try await update(id: id, environment: environment) { plan throws(AdminError) in
            guard plan.status == .paused else { throw .conflict("rollout plan \"\(id)\" is \(plan.status.rawValue); only a paused plan resumes") }
            if state.environments[environment]?.settings[plan.flag]?.enabled == false {
                throw .conflict(Self.flagOffMessage(plan, doing: "resuming"))
            }
            let time = now()
            plan.status = .running
            plan.stepStartedAt = time
            plan.record(.init(action: .resumed, actor: actor, time: time, step: plan.currentStep, percent: plan.currentPercent))
        }
    }

    /// Reads the plan, applies `change` and saves it. When another writer saved the plan first
    /// (the executor's lease on a running plan is a new version at each evaluation), reads it
    /// again and applies `change` to that version, which may refuse it now: a person's pause is
    /// not answered 409 because a tick fell between its read and its save.
    private func update(
        id: String, environment: String, _ change: (inout RolloutPlan) throws(AdminError) -> Void
    ) async throws(AdminError) -> RolloutPlan {
        var attempt = 1
        while true {
            var plan = try await plan(id: id, environment: environment)
            try change(&plan)
            do {
                try await save(&plan)
                return plan
            } catch {
                guard case .conflict = error, attempt < Self.saveAttempts else { throw error }
                attempt += 1
            }
        }
    }

    /// Serves the old variant to everyone (a person's decision, or a regression's `finding`).
    @discardableResult
    public func rollback(
        id: String, environment: String, actor: String, comment: String? = nil, finding: GuardrailFinding? = nil
    ) async throws(AdminError) -> RolloutPlan {
        var plan = try await plan(id: id, environment: environment)
        guard plan.status == .running || plan.status == .paused else {
            throw .conflict("rollout plan \"\(id)\" is \(plan.status.rawValue); only a running or paused plan rolls back")
        }
        return try await rollBack(&plan, actor: actor, comment: comment, finding: finding)
    }

    func rollBack(_ plan: inout RolloutPlan, actor: String, comment: String?, finding: GuardrailFinding?) async throws(AdminError) -> RolloutPlan {
        let cause = finding.map { "regression: " + $0.summary } ?? comment ?? "by \(actor)"
        let percent = plan.currentPercent
        let snapshot = plan
        let revision = try await write(plan.environment, plan.flag, actor: actor, approval: .changeRequest("rollout:\(plan.id)"),
            reason: Self.bounded("rollout \(plan.id): rolled back at \(Self.percent(percent)); \"\(plan.oldVariant)\" for everyone (\(cause))")
        ) { current in snapshot.rolledBackSettings(from: current) }
        // The flag is rolled back: record it on the plan even when another writer saved the plan
        // meanwhile (the executor's lease on a running plan is a new version), instead of
        // answering a conflict for a rollback that was applied.
        for attempt in 1...Self.saveAttempts {
            var next = plan
            next.status = .rolledBack
            next.lease = nil
            next.record(.init(
                action: .rolledBack, actor: actor, time: now(), step: next.currentStep, percent: percent, revision: revision,
                comment: comment, finding: finding))
            do {
                try await save(&next)
                plan = next
                break
            } catch {
                guard case .conflict = error, attempt < Self.saveAttempts else { throw error }
                plan = try await self.plan(id: plan.id, environment: plan.environment)
                guard plan.status == .running || plan.status == .paused else { throw error }
            }
        }
        await forgetMetricCounts(plan)
        notify(
            .rolloutRolledBack, plan, actor: actor, revision: revision,
            summary: "\(plan.flag): rollout rolled back at \(Self.percent(percent)) (\(cause))", finding: finding)
        return plan
    }

    /// Serves step `index` (the server's own step or, with `.required`, a start). With
    /// `whileOn` (what is being done, for the message), the write is refused with
    /// ``AdminError/conflict(_:)`` when the flag is off as it is written.
    @discardableResult
    func serve(
        _ plan: RolloutPlan, step index: Int, actor: String, approval: WriteApproval, whileOn doing: String? = nil, reason: String
    ) async throws(AdminError) -> Int? {
        let refusal = doing.map { Self.flagOffMessage(plan, doing: $0) }
        return try await write(plan.environment, plan.flag, actor: actor, approval: approval, reason: Self.bounded(reason), refusingOff: refusal) {
            current in plan.settings(step: index, from: current)
        }
    }

    /// Why a plan does not start, resume or step while its flag is off.
    static func flagOffMessage(_ plan: RolloutPlan, doing: String) -> String {
        "flag \"\(plan.flag)\" is off in \"\(plan.environment)\": every unit is served DISABLED whatever the rollout's share, so "
            + "\(doing) rollout plan \"\(plan.id)\" is refused; switch the flag on first"
    }

    /// Whether `plan`'s flag is off in its environment now.
    func isFlagOff(_ plan: RolloutPlan) async -> Bool {
        await admin.state.environments[plan.environment]?.settings[plan.flag]?.enabled == false
    }

    /// Writes the flag's settings in `environment`; the new revision (`nil`: nothing changed).
    /// With `refusingOff`, a flag found off is refused with that conflict instead.
    private func write(
        _ environment: String, _ flag: String, actor: String, approval: WriteApproval, reason: String, refusingOff: String? = nil,
        _ settings: @escaping @Sendable (FlagSettings) -> FlagSettings
    ) async throws(AdminError) -> Int? {
        let revisions = try await admin.write(actor: actor, reason: reason, approval: approval) { state throws(AdminError) in
            guard let current = state.environments[environment]?.settings[flag] else {
                throw .notFound("flag \"\(flag)\" does not exist in environment \"\(environment)\"")
            }
            if let refusingOff, !current.enabled { throw .conflict(refusingOff) }
            let next = settings(current)
            return next == current ? [] : [.putSettings(environment: environment, flag: flag, next)]
        }
        return revisions[environment]
    }

    /// How often a rollback, pause or resume re-reads its plan when another writer saved it first.
    static let saveAttempts = 4

    /// Stores `plan` as the next version.
    func save(_ plan: inout RolloutPlan) async throws(AdminError) {
        plan.version += 1
        plan.updatedAt = now()
        do { try await store.updateRolloutPlan(plan) } catch { throw AdminError(store: error) }
    }

    func notify(
        _ kind: ServerNotification.Kind, _ plan: RolloutPlan, actor: String, revision: Int?, summary: String,
        finding: GuardrailFinding? = nil
    ) {
        var details: [String: JSONValue] = [
            "plan": .string(plan.id), "percent": .double(plan.currentPercent), "status": .string(plan.status.rawValue),
        ]
        if let step = plan.currentStep { details["step"] = .int(step) }
        if let finding { details["finding"] = JSONValue(encoding: finding) }
        admin.notifications.notify(ServerNotification(
            kind: kind, time: now(), actor: actor, environment: plan.environment, flag: plan.flag, revision: revision,
            summary: summary, details: details))
    }

    static func percent(_ value: Double) -> String { String(format: "%g %%", value) }

    /// Audit reasons are bounded; a long finding is cut.
    static func bounded(_ reason: String) -> String { reason.count <= 1000 ? reason : String(reason.prefix(997)) + "…" }
}
