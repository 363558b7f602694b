import FeatureFlags
import Foundation

/// A rollout plan as the server's admin API answers it
/// (`/admin/v1/environments/{environment}/rollouts`), for `flags rollout`.
public struct ServerRolloutPlan: Sendable, Hashable, Decodable {
    /// One step: the new variant's share and how long it is held.
    public struct Step: Sendable, Hashable, Decodable {
        /// The share of units served the new variant, in percent.
        public var percent: Double
        /// Seconds the step is held before the next.
        public var durationSeconds: Int
    }

    /// A metric watched during the rollout.
    public struct Guardrail: Sendable, Hashable, Decodable {
        /// `crash_rate`, `error_rate`, `event_rate` or `experiment_metric`.
        public var metric: String
        /// The custom event's name, for `event_rate`.
        public var event: String?
        /// The harm tolerated, in the rate's units.
        public var tolerance: Double
        /// Which way is harmful: `increase` or `decrease`.
        public var direction: String
    }

    /// A guardrail's evaluation, with the numbers the server computed.
    public struct Finding: Sendable, Hashable, Decodable {
        /// The guardrail's name: `crash rate`, `event rate of "purchase"`, ….
        public var metric: String
        /// The variant served before the rollout.
        public var oldVariant: String
        /// The variant being rolled out.
        public var newVariant: String
        /// The old variant's trials (sessions, or units for an experiment metric) since the run started.
        public var oldTrials: Int
        /// The new variant's trials, counted as ``oldTrials`` is.
        public var newTrials: Int
        /// The old variant's numerator events.
        public var oldEvents: Int
        /// The new variant's numerator events.
        public var newEvents: Int
        /// The old variant's events per trial.
        public var oldRate: Double
        /// The new variant's events per trial.
        public var newRate: Double
        /// newRate − oldRate.
        public var difference: Double
        /// The lower end of the difference's always-valid (1 − α) interval.
        public var lower: Double
        /// The upper end of the difference's always-valid (1 − α) interval.
        public var upper: Double
        /// The sequential test's error rate.
        public var alpha: Double
        /// The harm tolerated, in the rate's units.
        public var tolerance: Double
        /// Which way is harmful: `increase` or `decrease`.
        public var direction: String
        /// Whether the interval lies entirely beyond the tolerance in the harmful direction.
        public var regression: Bool
    }

    /// One thing that happened to the plan.
    public struct Entry: Sendable, Hashable, Decodable {
        /// `created`, `edited`, `started`, `stepped`, `paused`, `resumed`, `regression`, `finished` or `rolled_back`.
        public var action: String
        /// Who did it: a token, a console user, or the server's rollout executor.
        public var actor: String
        /// When, as the server wrote it (ISO 8601).
        public var time: String
        /// The step index after the action.
        public var step: Int?
        /// The new variant's share after the action, in percent.
        public var percent: Double?
        /// The environment revision the action produced, when it wrote the flag.
        public var revision: Int?
        /// The comment given with the action, if any.
        public var comment: String?
        /// The guardrail result that caused the action (a regression).
        public var finding: Finding?
    }

    /// The plan's identifier (`ro-` and 16 hexadecimal digits).
    public var id: String
    /// The key of the flag being rolled out.
    public var flag: String
    /// The environment the plan runs in.
    public var environment: String
    /// The variant served before the rollout, and after a rollback.
    public var oldVariant: String
    /// The variant being rolled out.
    public var newVariant: String
    /// The shares served in order; the last is 100 %.
    public var steps: [Step]
    /// The metrics compared between the variants at each evaluation.
    public var guardrails: [Guardrail]
    /// The sequential test's error rate, per guardrail.
    public var alpha: Double
    /// How often the guardrails of a running plan are evaluated, in seconds.
    public var evaluationIntervalSeconds: Int
    /// What a regression does: `pause` or `rollback`.
    public var onRegression: String
    /// Which units get the new variant when a rolled-back plan starts again: `same_units` or `new_units`.
    public var restart: String
    /// The template the plan was made from, if any.
    public var template: String?
    /// `draft`, `running`, `paused`, `rolled_back` or `finished`.
    public var status: String
    /// The index of the step being served (from 0), while running or paused.
    public var currentStep: Int?
    /// When the current step started serving (ISO 8601).
    public var stepStartedAt: String?
    /// When the guardrails were last evaluated (ISO 8601).
    public var lastEvaluatedAt: String?
    /// What happened to the plan, oldest first.
    public var history: [Entry]

    /// The newest guardrail finding in the history, if the guardrails were evaluated.
    public var latestFinding: (entry: Entry, finding: Finding)? {
        for entry in history.reversed() {
            if let finding = entry.finding { return (entry, finding) }
        }
        return nil
    }
}

/// What `flags rollout` prints.
extension ServerRolloutPlan {
    /// A table of plans, one a line.
    ///
    /// ```text
    /// ID                   FLAG      ROLLOUT    STATUS   STEP
    /// ro-0123456789abcdef  checkout  off → on   running  2 of 5 (5 %)
    /// ```
    public static func table(_ plans: [ServerRolloutPlan]) -> String {
        guard !plans.isEmpty else { return "No rollout plans.\n" }
        let rows = plans.map { plan in
            [plan.id, plan.flag, "\(plan.oldVariant) → \(plan.newVariant)", plan.status, plan.stepText]
        }
        return TextColumns.render(header: ["ID", "FLAG", "ROLLOUT", "STATUS", "STEP"], rows: rows)
            + "\(plans.count) rollout plan\(plans.count == 1 ? "" : "s")\n"
    }

    /// `2 of 5 (5 %)`, or `-` before the plan starts.
    var stepText: String {
        guard let currentStep, steps.indices.contains(currentStep), status != "draft" else { return "-" }
        return "\(currentStep + 1) of \(steps.count) (\(RolloutSpecification.format(steps[currentStep].percent)) %)"
    }

    /// The plan: its steps with the current one marked (`>`), status, guardrails and the
    /// latest guardrail numbers.
    public var details: String {
        var text = "\(id): \(flag) in \(environment), \"\(oldVariant)\" → \"\(newVariant)\", \(status)"
        if let template { text += " (template \(template))" }
        text += "\nSteps:\n"
        let marked = status == "running" || status == "paused" ? currentStep : nil
        for (index, step) in steps.enumerated() {
            let held = index == steps.count - 1 ? "finishes" : "held \(DurationText.text(seconds: step.durationSeconds))"
            text += "\(index == marked ? ">" : " ") \(index + 1). \(RolloutSpecification.format(step.percent)) %, \(held)"
            if index == marked, let stepStartedAt { text += " (since \(stepStartedAt))" }
            text += "\n"
        }
        text += "On regression: \(onRegression); restart: \(restart); α \(Self.number(alpha)); evaluated every \(DurationText.text(seconds: evaluationIntervalSeconds))\n"
        if guardrails.isEmpty {
            text += "Guardrails: none\n"
        } else {
            text += "Guardrails:\n"
            for guardrail in guardrails {
                text += "  \(guardrail.metric)\(guardrail.event.map { " (\($0))" } ?? ""): tolerance \(Self.number(guardrail.tolerance)), harmful \(guardrail.direction)\n"
            }
        }
        if let (entry, finding) = latestFinding {
            text += "Latest guardrail evaluation (\(entry.time)):\n  " + Self.describe(finding) + "\n"
        } else if let lastEvaluatedAt {
            text += "Last evaluated \(lastEvaluatedAt): no finding recorded yet.\n"
        } else {
            text += "Guardrails not evaluated yet.\n"
        }
        if let last = history.last {
            text += "Last action: \(last.action) by \(last.actor) at \(last.time)\(last.comment.map { ": \($0)" } ?? "")\n"
        }
        return text
    }

    /// `crash_rate: "on" 82/2322 = 0.035314, "off" 461/21678 = 0.021266; difference +0.014048,
    /// interval [+0.002, +0.026] (α 0.05), tolerance 0, harmful increase: regression`.
    public static func describe(_ finding: Finding) -> String {
        func signed(_ value: Double) -> String { (value >= 0 ? "+" : "") + number(value) }
        return "\(finding.metric): \"\(finding.newVariant)\" \(finding.newEvents)/\(finding.newTrials) = \(number(finding.newRate)), "
            + "\"\(finding.oldVariant)\" \(finding.oldEvents)/\(finding.oldTrials) = \(number(finding.oldRate)); "
            + "difference \(signed(finding.difference)), interval [\(signed(finding.lower)), \(signed(finding.upper))] (α \(number(finding.alpha))), "
            + "tolerance \(number(finding.tolerance)), harmful \(finding.direction): \(finding.regression ? "regression" : "held")"
    }

    /// Up to six significant digits, without trailing zeros.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(format: "%.6g", value)
    }
}

/// A rollout template as the server answers it (`/admin/v1/rollout-templates`).
public struct ServerRolloutTemplate: Sendable, Hashable, Decodable {
    /// The template's name.
    public var name: String
    /// What the template is for; `nil` when not given.
    public var description: String?
    /// The steps a plan made from it takes.
    public var steps: [ServerRolloutPlan.Step]
    /// The guardrails a plan made from it watches.
    public var guardrails: [ServerRolloutPlan.Guardrail]
    /// The sequential test's error rate per guardrail.
    public var alpha: Double
    /// How often a plan's guardrails are evaluated, in seconds.
    public var evaluationIntervalSeconds: Int
    /// What a regression does: `pause` or `rollback`.
    public var onRegression: String
    /// Which units get the new variant again after a rollback: `same_units` or `new_units`.
    public var restart: String
    /// Bumped on every stored change; an edit names the version it is based on.
    public var version: Int

    /// `1:1h,5:1h,25:2h,50:2h,100`, as `--steps` takes it.
    public var stepsText: String {
        steps.enumerated().map { index, step in
            RolloutSpecification.format(step.percent)
                + (index == steps.count - 1 && step.percent == 100 ? "" : ":\(DurationText.text(seconds: step.durationSeconds))")
        }.joined(separator: ",")
    }

    /// A table of templates.
    public static func table(_ templates: [ServerRolloutTemplate]) -> String {
        guard !templates.isEmpty else { return "No rollout templates.\n" }
        let rows = templates.map { [$0.name, $0.stepsText, "\($0.guardrails.count)", $0.onRegression, $0.description ?? ""] }
        return TextColumns.render(header: ["NAME", "STEPS", "GUARDRAILS", "ON REGRESSION", "DESCRIPTION"], rows: rows)
    }

    /// Every field of the template.
    public var details: String {
        var text = "\(name) (version \(version))\(description.map { ": \($0)" } ?? "")\n"
        text += "Steps: \(stepsText)\n"
        text += "On regression: \(onRegression); restart: \(restart); α \(ServerRolloutPlan.number(alpha)); evaluated every \(DurationText.text(seconds: evaluationIntervalSeconds))\n"
        for guardrail in guardrails {
            text += "Guardrail: \(guardrail.metric)\(guardrail.event.map { " (\($0))" } ?? ""): tolerance \(ServerRolloutPlan.number(guardrail.tolerance)), harmful \(guardrail.direction)\n"
        }
        return text
    }
}
