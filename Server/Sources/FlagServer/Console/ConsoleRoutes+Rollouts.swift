import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird

/// Progressive rollouts in the console (Server/Docs/Rollouts.md): an environment's plans, one
/// plan's steps, guardrails and history with its Start / Pause / Resume / Roll back forms, and the
/// form that creates a plan (``ConsoleRoutes/createRollout(_:_:environment:)``). Every action calls
/// ``Rollouts``, as the admin API does; every form is CSRF-checked by ``change(_:needs:_:)`` and
/// needs an editor; the console user is the actor (`user <name>`).
extension ConsoleRoutes {
    static let rolloutNotices = [
        "created": "Draft created: start it when ready.", "start": "Started: the first step is served.",
        "pause": "Paused: the current split holds until resumed.", "resume": "Resumed: the step's duration counts again from now.",
        "rollback": "Rolled back: the old variant is served to everyone.",
    ]

    func registerRollouts(on router: Router<BasicRequestContext>) {
        router.get("/console/environments/:environment/rollouts") { request, context in
            let environment = try context.parameters.require("environment")
            return try await page(request) { visitor in try await rolloutsPage(visitor, environment: environment) }
        }
        router.get("/console/environments/:environment/rollouts/new") { request, context in
            let environment = try context.parameters.require("environment")
            return try await page(request) { visitor in
                guard visitor.canEdit else {
                    return refusal(.forbidden, "Your role (\(visitor.user.role.rawValue)) cannot create rollouts; this needs editor.", visitor: visitor)
                }
                let flag = Self.query(of: request)["flag"] ?? ""
                return try await newRolloutPage(visitor, environment: environment, form: ConsoleForm(fields: ["flag": flag]))
            }
        }
        router.post("/console/environments/:environment/rollouts/new") { request, context in
            let environment = try context.parameters.require("environment")
            return try await change(request) { visitor, form in try await createRollout(visitor, form, environment: environment) }
        }
        router.get("/console/environments/:environment/rollouts/:id") { request, context in
            let environment = try context.parameters.require("environment")
            let id = try context.parameters.require("id")
            return try await page(request) { visitor in
                try await rolloutPage(visitor, environment: environment, id: id, notice: Self.query(of: request)["done"].flatMap { Self.rolloutNotices[$0] })
            }
        }
        for action in ["start", "pause", "resume", "rollback"] {
            router.post("/console/environments/:environment/rollouts/:id/\(action)") { request, context in
                let environment = try context.parameters.require("environment")
                let id = try context.parameters.require("id")
                return try await change(request) { visitor, form in
                    try await rolloutAction(visitor, form, action: action, environment: environment, id: id)
                }
            }
        }
    }

    /// The rollouts of the server's store (404 where it keeps none), as the admin API builds them.
    func consoleRollouts() throws -> Rollouts {
        guard let store = admin.store.capabilities.rollouts else { throw Self.notFound("rollout plans (this store keeps none)") }
        return Rollouts(admin: admin, store: store, events: eventStore?.capabilities.rolloutEvents,
            results: eventStore?.capabilities.experimentResults, now: now)
    }

    static func rolloutBase(_ environment: String) -> String { "/console/environments/\(escaped(environment))/rollouts" }

    func rolloutsPage(
        _ visitor: Visitor, environment: String, problems: [String] = [], status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        guard await admin.state.environments[environment] != nil else { throw Self.notFound("environment \"\(environment)\"") }
        let rollouts = try consoleRollouts()
        let plans: [RolloutPlan]
        do { plans = try await rollouts.plans(environment: environment, flag: nil, limit: 500) } catch { throw APIError(error) }
        var context = layout(visitor, title: "Rollouts in \(environment)", section: "flags")
        context["environment"] = environment
        context["base"] = Self.rolloutBase(environment)
        context["problems"] = problems
        context["hasProblems"] = !problems.isEmpty
        context["empty"] = plans.isEmpty
        context["plans"] = plans.map { plan -> [String: Any] in
            [
                "id": plan.id, "flag": plan.flag, "link": Self.rolloutBase(environment) + "/" + Self.escaped(plan.id),
                "flagLink": "/console/flags/\(Self.escaped(plan.flag))?environment=\(Self.escaped(environment))",
                "status": plan.status.rawValue, "step": Self.stepText(plan), "started": plan.runStartedAt.map(Self.shortTime) ?? "—",
                "verdict": Self.verdict(plan),
            ]
        }
        return renderer.page("rollouts", context, status: status)
    }

    /// "step 2 of 4 (25 %)", "not started", "100 %".
    static func stepText(_ plan: RolloutPlan) -> String {
        guard let index = plan.currentStep, plan.steps.indices.contains(index) else { return "not started" }
        let share = Rollouts.percent(plan.steps[index].percent)
        switch plan.status {
        case .running, .paused, .finished: return "step \(index + 1) of \(plan.steps.count) (\(share))"
        case .draft, .rolledBack: return "step \(index + 1) of \(plan.steps.count) (\(share)), now serving 0 %"
        }
    }

    /// The last guardrail verdict the plan records: the regression that stopped it in its current
    /// run, or that none was proven by its last evaluation (the executor stores a guardrail's
    /// numbers only when they prove a regression).
    static func verdict(_ plan: RolloutPlan) -> String {
        if plan.guardrails.isEmpty { return "no guardrails" }
        if let entry = plan.history.last(where: { $0.finding != nil }), let finding = entry.finding,
            plan.runStartedAt.map({ entry.time >= $0 }) ?? true
        {
            return "regression: \(finding.metric) (\(shortTime(entry.time)))"
        }
        if let evaluated = plan.lastEvaluatedAt { return "no regression proven (\(shortTime(evaluated)))" }
        return "not evaluated yet"
    }

    /// "90 s", "30 min", "1 h", "2 d", "1 h 30 min".
    static func durationText(_ seconds: Int) -> String {
        var parts: [String] = []
        var rest = seconds
        for (unit, size) in [("d", 86_400), ("h", 3600), ("min", 60)] where rest >= size {
            parts.append("\(rest / size) \(unit)")
            rest %= size
        }
        if rest > 0 || parts.isEmpty { parts.append("\(rest) s") }
        return parts.joined(separator: " ")
    }

    func rolloutPage(
        _ visitor: Visitor, environment: String, id: String, notice: String? = nil, problems: [String] = [], reason: String = "",
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let rollouts = try consoleRollouts()
        let plan: RolloutPlan
        do { plan = try await rollouts.plan(id: id, environment: environment) } catch { throw APIError(error) }
        let base = Self.rolloutBase(environment) + "/" + Self.escaped(plan.id)
        let history = "/console/history?flag=\(Self.escaped(plan.flag))&environment=\(Self.escaped(environment))"
        var context = layout(visitor, title: "Rollout of \(plan.flag) in \(environment)", section: "flags")
        context["environment"] = environment
        context["listLink"] = Self.rolloutBase(environment)
        context["notice"] = notice
        context["problems"] = problems
        context["hasProblems"] = !problems.isEmpty
        context["reason"] = reason
        let serving = plan.status == .running || plan.status == .paused
        let flagOff = await rollouts.isFlagOff(plan)
        context["plan"] = [
            "id": plan.id, "flag": plan.flag, "base": base, "status": plan.status.rawValue,
            "flagLink": "/console/flags/\(Self.escaped(plan.flag))?environment=\(Self.escaped(environment))",
            "oldVariant": plan.oldVariant, "newVariant": plan.newVariant, "template": plan.template ?? "—",
            "step": Self.stepText(plan), "percent": Rollouts.percent(plan.currentPercent),
            "started": plan.runStartedAt.map(Self.shortTime) ?? "—", "stepStarted": plan.stepStartedAt.map(Self.shortTime) ?? "—",
            "evaluated": plan.lastEvaluatedAt.map(Self.shortTime) ?? "—", "verdict": Self.verdict(plan),
            "alpha": String(format: "%g", plan.alpha), "interval": Self.durationText(plan.evaluationIntervalSeconds),
            "onRegression": plan.onRegression == .pause ? "pause" : "roll back",
            "restart": plan.restart == .sameUnits ? "the same units" : "new units", "historyLink": history,
            "startable": plan.status == .draft || plan.status == .rolledBack, "pausable": plan.status == .running,
            "resumable": plan.status == .paused, "rollbackable": serving,
            "startLabel": plan.status == .rolledBack ? "Start again" : "Start",
        ] as [String: Any]
        if plan.status == .paused, let paused = plan.history.last(where: { $0.action == .paused }) {
            context["pausedBecause"] = "\(paused.comment ?? "no reason given") (\(paused.actor), \(Self.shortTime(paused.time)))"
        }
        if flagOff {
            let note: String? =
                switch plan.status {
                case .draft, .rolledBack: "The flag is off in \(environment): every unit is served DISABLED, so the plan cannot start until the flag is switched on."
                case .running: "The flag is off in \(environment): every unit is served DISABLED; the plan pauses at the executor's next look."
                case .paused: "The flag is off in \(environment): every unit is served DISABLED; switch it on before resuming."
                case .finished: nil
                }
            if let note { context["flagOffNote"] = note }
        }
        context["steps"] = plan.steps.enumerated().map { index, step -> [String: Any] in
            let current = plan.currentStep == index && (serving || plan.status == .finished)
            return [
                "number": index + 1, "percent": Rollouts.percent(step.percent), "current": current,
                // The last step (100 %) finishes the plan when reached: its duration is not used.
                "duration": step.percent >= 100 && index == plan.steps.count - 1 ? "— (finishes the plan)" : Self.durationText(step.durationSeconds),
            ]
        }
        context["guardrails"] = plan.guardrails.enumerated().map { index, guardrail -> [String: Any] in
            let finding = plan.history.last { $0.finding?.metric == guardrail.name }?.finding
            let chart = GuardrailChart(guardrail: guardrail, evaluations: plan.evaluations ?? [], id: "guardrail-\(index + 1)-chart")
            return Self.omittingEmpty([
                "id": "guardrail-\(index + 1)", "name": guardrail.name, "direction": guardrail.direction == .increase ? "an increase" : "a decrease",
                "tolerance": Self.toleranceText(guardrail), "finding": finding.map(Self.findingContext) ?? "",
                "chart": chart.points.isEmpty ? "" : chart.svg, "chartSummary": chart.summary,
            ], ["finding", "chart"])
        }
        context["noGuardrails"] = plan.guardrails.isEmpty
        if let evidence = await evidenceText(plan) { context["evidence"] = evidence }
        context["history"] = plan.history.reversed().map { entry -> [String: Any] in
            Self.omittingEmpty([
                "action": entry.action.rawValue.replacingOccurrences(of: "_", with: " "), "actor": entry.actor,
                "time": Self.shortTime(entry.time), "step": entry.step.map { "\($0 + 1)" } ?? "—",
                "percent": entry.percent.map(Rollouts.percent) ?? "—", "comment": entry.comment ?? "",
                "revision": entry.revision.map { "\($0)" } ?? "",
                "revisionLink": entry.revision.map { "\(history)#change-\(Self.escaped(environment))-\($0)-\(Self.escaped(plan.flag))" } ?? "",
            ], ["comment", "revision", "revisionLink"])
        }
        return renderer.page("rollout", context, status: status)
    }

    /// The plan's evidence in a sentence (``RolloutAttribution``): the sessions and crashes
    /// received since its run started and those without a variant of its flag; `nil` before its
    /// first start or on a server that keeps no events.
    func evidenceText(_ plan: RolloutPlan) async -> String? {
        guard plan.runStartedAt != nil, let events = eventStore?.capabilities.rolloutAttribution else { return nil }
        do {
            return Self.evidenceText(try await RolloutAttribution.read(plan, from: events))
        } catch {
            return "Evidence: the sessions and crashes could not be counted (\(error))."
        }
    }

    /// "Evidence: 3,120 sessions and 61 crashes since the run started; 12 sessions and 4 crashes
    /// came without a variant of this flag (not counted)."
    static func evidenceText(_ attribution: RolloutAttribution) -> String {
        func count(_ value: Int, _ noun: String) -> String {
            InsightsChart.number(value) + " " + noun + (value == 1 ? "" : (noun.hasSuffix("sh") ? "es" : "s"))
        }
        let total = "Evidence: \(count(attribution.sessions, "session")) and \(count(attribution.crashes, "crash")) since the run started"
        if attribution.sessions == 0 && attribution.crashes == 0 { return total + "." }
        if attribution.sessionsWithoutVariant == 0 && attribution.crashesWithoutVariant == 0 {
            return total + "; every one came with a variant of this flag."
        }
        return total + "; \(count(attribution.sessionsWithoutVariant, "session")) and \(count(attribution.crashesWithoutVariant, "crash"))"
            + " came without a variant of this flag (not counted)."
    }

    /// A rate difference in percentage points: "+0.50".
    static func points(_ value: Double, signed: Bool = true) -> String {
        (signed && value >= 0 ? "+" : "") + String(format: "%.2f", value * 100)
    }

    /// A guardrail's tolerance: a rate's in percentage points, an experiment metric's as given
    /// (in the metric's units per unit: 0.01 of a conversion is one point).
    static func toleranceText(_ guardrail: RolloutGuardrail) -> String {
        guardrail.metric == .experimentMetric
            ? String(format: "%g", guardrail.tolerance) + " (the metric's units per unit)"
            : Self.points(guardrail.tolerance, signed: false) + " points"
    }

    static func findingContext(_ finding: GuardrailFinding) -> [String: Any] {
        // A mean's or count's numbers are plain values per unit; rates and conversions are shares.
        let plain = finding.kind == "mean" || finding.kind == "count"
        func rate(_ value: Double) -> String { plain ? String(format: "%.4g", value) : String(format: "%.2f %%", value * 100) }
        func difference(_ value: Double) -> String { plain ? (value >= 0 ? "+" : "") + String(format: "%.4g", value) : points(value) }
        return [
            "variants": [
                ["variant": finding.oldVariant, "trials": finding.oldTrials, "events": finding.oldEvents, "rate": rate(finding.oldRate)],
                ["variant": finding.newVariant, "trials": finding.newTrials, "events": finding.newEvents, "rate": rate(finding.newRate)],
            ],
            "trialsLabel": finding.kind == nil ? "Sessions" : "Units",
            "eventsLabel": finding.kind == nil ? "Events" : (finding.kind == "conversion" ? "Converted units" : "Sum"),
            "rateLabel": finding.kind == nil ? "Rate" : (plain ? "Mean per unit" : "Conversion"),
            "differenceUnit": plain ? "" : " points",
            "difference": difference(finding.difference), "lower": difference(finding.lower), "upper": difference(finding.upper),
            "level": String(format: "%g", (1 - finding.alpha) * 100), "bound": difference(finding.bound),
            "boundName": finding.direction == .increase ? "lower bound" : "upper bound",
            "verdict": finding.regression ? "regression" : "no regression proven", "regression": finding.regression,
        ]
    }

    func rolloutAction(_ visitor: Visitor, _ form: ConsoleForm, action: String, environment: String, id: String) async throws -> Response {
        let rollouts = try consoleRollouts()
        let actor = "user \(visitor.user.name)"
        let reason = (form["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let comment = reason.isEmpty ? nil : reason
        if action == "rollback", comment == nil {
            return try await rolloutPage(
                visitor, environment: environment, id: id, problems: ["reason: give a reason for the rollback (it is kept in the plan's history and the audit)"],
                status: .badRequest)
        }
        if let comment, comment.utf8.count > 1000 {
            return try await rolloutPage(
                visitor, environment: environment, id: id, problems: ["reason: at most 1000 characters"], reason: String(comment.prefix(1000)),
                status: .badRequest)
        }
        do {
            switch action {
            case "start": try await rollouts.start(id: id, environment: environment, actor: actor)
            case "pause": try await rollouts.pause(id: id, environment: environment, actor: actor, comment: comment)
            case "resume": try await rollouts.resume(id: id, environment: environment, actor: actor)
            default: try await rollouts.rollback(id: id, environment: environment, actor: actor, comment: comment)
            }
        } catch {
            if case .notFound = error { throw APIError(error) }
            return try await rolloutPage(
                visitor, environment: environment, id: id, problems: Self.problemTexts(error), reason: reason, status: APIError(error).status)
        }
        return Self.redirect(Self.rolloutBase(environment) + "/" + Self.escaped(id) + "?done=\(action)")
    }

    /// The flag page's rollouts of `flag` in `environment`: its active plan (running or paused),
    /// if any (`nil` without a store that keeps plans).
    func flagRolloutsContext(_ visitor: Visitor, flag: String, environment: String) async -> [String: Any]? {
        guard let rollouts = try? consoleRollouts(), let plans = try? await rollouts.plans(environment: environment, flag: flag, limit: 50)
        else { return nil }
        let active = plans.first { $0.status == .running || $0.status == .paused }
        var context: [String: Any] = [
            "environment": environment, "list": Self.rolloutBase(environment), "count": plans.count,
            "new": Self.rolloutBase(environment) + "/new?flag=" + Self.escaped(flag),
        ]
        if let active {
            context["active"] = [
                "link": Self.rolloutBase(environment) + "/" + Self.escaped(active.id), "id": active.id, "status": active.status.rawValue,
                "step": Self.stepText(active), "verdict": Self.verdict(active),
            ]
        }
        return context
    }
}
