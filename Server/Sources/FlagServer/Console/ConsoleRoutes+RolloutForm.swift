import FlagServerAPI
import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird

/// The console's form that creates a rollout plan: a template, or steps typed as percentages and
/// durations, with up to ``rolloutFormGuardrails`` guardrails. The fields become the admin API's
/// ``RolloutRequests/CreatePlan`` and go through the same ``Rollouts/createPlan(_:environment:actor:)``;
/// a refused form is shown again as typed, with the problems naming their fields.
extension ConsoleRoutes {
    /// How many guardrail rows the form offers.
    static let rolloutFormGuardrails = 3

    func newRolloutPage(
        _ visitor: Visitor, environment: String, form: ConsoleForm, problems: [String] = [], status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let state = await admin.state
        guard let settings = state.environments[environment]?.settings else { throw Self.notFound("environment \"\(environment)\"") }
        let rollouts = try consoleRollouts()
        let templates: [RolloutTemplate]
        do { templates = try await rollouts.templates() } catch { throw APIError(error) }
        func value(_ name: String, _ fallback: String = "") -> String { form[name] ?? fallback }
        func options(_ values: [(String, String)], selected: String) -> [[String: Any]] {
            values.map { ["value": $0.0, "label": $0.1, "selected": $0.0 == selected] }
        }
        var context = layout(visitor, title: "New rollout in \(environment)", section: "flags")
        context["environment"] = environment
        context["action"] = Self.rolloutBase(environment) + "/new"
        context["listLink"] = Self.rolloutBase(environment)
        context["problems"] = problems
        context["hasProblems"] = !problems.isEmpty
        context["flags"] = settings.keys.filter { state.flags[$0]?.archived == false }.sorted()
        context["fields"] = [
            "flag": value("flag"), "oldVariant": value("oldVariant"), "newVariant": value("newVariant"), "steps": value("steps"),
            "alpha": value("alpha"), "interval": value("interval"),
        ]
        context["templates"] = options(
            [("", "None: the steps below")] + templates.map { ($0.name, $0.name + ($0.description.map { ": " + $0 } ?? "")) },
            selected: value("template"))
        context["onRegression"] = options(
            [("", "As the template says (roll back without one)"), ("rollback", "Roll back"), ("pause", "Pause")], selected: value("onRegression"))
        context["restart"] = options(
            [("", "As the template says (the same units without one)"), ("same_units", "The same units"), ("new_units", "New units")],
            selected: value("restart"))
        context["guardrails"] = (1...Self.rolloutFormGuardrails).map { number -> [String: Any] in
            let prefix = "guardrail\(number)"
            return [
                "number": number, "prefix": prefix, "event": value(prefix + "-event"), "metricKey": value(prefix + "-metricKey"), "tolerance": value(prefix + "-tolerance"),
                "metrics": options(
                    [("", "None")] + RolloutGuardrail.Metric.allCases.map { ($0.rawValue, $0.rawValue.replacingOccurrences(of: "_", with: " ")) },
                    selected: value(prefix + "-metric")),
                "directions": options([("increase", "An increase is harmful"), ("decrease", "A decrease is harmful")], selected: value(prefix + "-direction", "increase")),
            ]
        }
        return renderer.page("rollout-new", context, status: status)
    }

    func createRollout(_ visitor: Visitor, _ form: ConsoleForm, environment: String) async throws -> Response {
        let rollouts = try consoleRollouts()
        let body: RolloutRequests.CreatePlan
        switch Self.createPlanRequest(from: form) {
        case .failure(let problems):
            return try await newRolloutPage(visitor, environment: environment, form: form, problems: problems.problems, status: .badRequest)
        case .success(let request): body = request
        }
        let plan: RolloutPlan
        do {
            plan = try await rollouts.createPlan(body, environment: environment, actor: "user \(visitor.user.name)")
        } catch {
            return try await newRolloutPage(
                visitor, environment: environment, form: form, problems: Self.problemTexts(error), status: APIError(error).status)
        }
        return Self.redirect(Self.rolloutBase(environment) + "/" + Self.escaped(plan.id) + "?done=created")
    }

    struct FormProblems: Error { var problems: [String] }

    /// The admin API's request body of the new-plan form, or what is wrong with its fields.
    static func createPlanRequest(from form: ConsoleForm) -> Result<RolloutRequests.CreatePlan, FormProblems> {
        func text(_ name: String) -> String { (form[name] ?? "").trimmingCharacters(in: .whitespacesAndNewlines) }
        var problems: [String] = []
        for (name, label) in [("flag", "flag"), ("oldVariant", "old variant"), ("newVariant", "new variant")] where text(name).isEmpty {
            problems.append("\(label): required")
        }
        let template = text("template")
        var steps: [RolloutPlan.Step]?
        if !text("steps").isEmpty {
            switch parseSteps(text("steps")) {
            case .success(let parsed): steps = parsed
            case .failure(let failure): problems += failure.problems
            }
        } else if template.isEmpty {
            problems.append("steps: give steps (like \"5 1h, 25 1h, 50 1d, 100\") or choose a template")
        }
        var guardrails: [RolloutGuardrail] = []
        for number in 1...rolloutFormGuardrails {
            let prefix = "guardrail\(number)"
            let metricText = text(prefix + "-metric")
            guard !metricText.isEmpty else { continue }
            guard let metric = RolloutGuardrail.Metric(rawValue: metricText) else {
                problems.append("guardrail \(number) metric: one of \(RolloutGuardrail.Metric.allCases.map(\.rawValue).joined(separator: ", "))")
                continue
            }
            let toleranceText = text(prefix + "-tolerance")
            var tolerance = 0.0
            if !toleranceText.isEmpty {
                if let value = Double(toleranceText), value.isFinite { tolerance = value } else {
                    problems.append("guardrail \(number) tolerance: expected a number like 0.005, got \"\(toleranceText)\"")
                }
            }
            let direction = RolloutGuardrail.Direction(rawValue: text(prefix + "-direction")) ?? .increase
            let event = text(prefix + "-event")
            let metricKey = text(prefix + "-metricKey")
            guardrails.append(RolloutGuardrail(
                metric: metric, event: metric == .eventRate ? event : (event.isEmpty ? nil : event),
                metricKey: metric == .experimentMetric ? metricKey : (metricKey.isEmpty ? nil : metricKey), tolerance: tolerance,
                direction: direction))
        }
        var alpha: Double?
        if !text("alpha").isEmpty {
            if let value = Double(text("alpha")), value.isFinite { alpha = value } else {
                problems.append("α: expected a number like 0.05, got \"\(text("alpha"))\"")
            }
        }
        var interval: Int?
        if !text("interval").isEmpty {
            if let seconds = parseDuration(text("interval")) { interval = seconds } else {
                problems.append("evaluation interval: expected a duration like 300, 5m or 1h, got \"\(text("interval"))\"")
            }
        }
        guard problems.isEmpty else { return .failure(FormProblems(problems: problems)) }
        // A template's guardrails hold unless the form names some.
        return .success(RolloutRequests.CreatePlan(
            flag: text("flag"), oldVariant: text("oldVariant"), newVariant: text("newVariant"), template: template.isEmpty ? nil : template,
            steps: steps, guardrails: guardrails.isEmpty && !template.isEmpty ? nil : guardrails, alpha: alpha,
            evaluationIntervalSeconds: interval, onRegression: RolloutPlan.RegressionAction(rawValue: text("onRegression")),
            restart: RolloutPlan.Restart(rawValue: text("restart"))))
    }

    /// The most steps the form reads: the plan's own bound (``RolloutStepRules/maximumSteps``),
    /// so the form refuses what the admin API would, with the limit it says.
    static let maximumFormSteps = RolloutStepRules.maximumSteps

    /// Steps typed as `percent duration`, separated by commas or new lines: `5 1h, 25% 30m, 100`.
    /// A duration is seconds, or a number with `s`, `m`, `min`, `h` or `d`; the last step may omit
    /// it when it is 100 % (its duration is not used: reaching it finishes the plan).
    static func parseSteps(_ text: String) -> Result<[RolloutPlan.Step], FormProblems> {
        let items = text.split(whereSeparator: { $0 == "," || $0 == "\n" || $0 == ";" })
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        guard items.count <= maximumFormSteps else { return .failure(FormProblems(problems: ["steps: at most \(maximumFormSteps) steps"])) }
        var steps: [RolloutPlan.Step] = []
        var problems: [String] = []
        for (index, item) in items.enumerated() {
            let parts = item.split(whereSeparator: \.isWhitespace).map(String.init)
            let shown = item.count > 40 ? String(item.prefix(40)) + "…" : item
            let percentText = parts.first.map { $0.hasSuffix("%") ? String($0.dropLast()) : $0 } ?? ""
            guard parts.count <= 2, let percent = Double(percentText), percent.isFinite else {
                problems.append("steps: step \(index + 1) \"\(shown)\": expected a percentage and a duration, like \"25 1h\"")
                continue
            }
            let last = index == items.count - 1
            if parts.count == 1 {
                guard last, percent == 100 else {
                    problems.append("steps: step \(index + 1) \"\(shown)\": give its duration, like \"\(percentText) 1h\"")
                    continue
                }
                steps.append(.init(percent: percent, durationSeconds: RolloutStepRules.finalStepSeconds))
            } else if let seconds = parseDuration(parts[1]) {
                steps.append(.init(percent: percent, durationSeconds: seconds))
            } else {
                problems.append("steps: step \(index + 1) \"\(shown)\": the duration \"\(parts[1])\" is not like 90, 30m, 1h or 2d")
            }
        }
        return problems.isEmpty ? .success(steps) : .failure(FormProblems(problems: problems))
    }

    /// Seconds of `90`, `90s`, `30m`, `30min`, `1h`, `2d`, `1h30m` (``DurationGrammar``, shared with
    /// `flags`, plus plain seconds); `nil`: not a duration, or above a year.
    static func parseDuration(_ text: String) -> Int? {
        try? DurationGrammar.seconds(text, allowingPlainSeconds: true, maximum: 366 * 86_400)
    }
}
