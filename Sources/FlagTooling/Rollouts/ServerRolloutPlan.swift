import FeatureFlags
import Foundation

/// A rollout plan as the server's admin API answers it
/// (`/admin/v1/environments/{environment}/rollouts`), for `flags rollout`.
public struct ServerRolloutPlan: Sendable, Hashable, Decodable {
    public struct Step: Sendable, Hashable, Decodable {
        public var percent: Double
        public var durationSeconds: Int
    }

    public struct Guardrail: Sendable, Hashable, Decodable {
        public var metric: String
        public var event: String?
        public var tolerance: Double
        public var direction: String
    }

    /// A guardrail's evaluation, with the numbers the server computed.
    public struct Finding: Sendable, Hashable, Decodable {
        public var metric: String
        public var oldVariant: String
        public var newVariant: String
        public var oldTrials: Int
        public var newTrials: Int
        public var oldEvents: Int
        public var newEvents: Int
        public var oldRate: Double
        public var newRate: Double
        public var difference: Double
        public var lower: Double
        public var upper: Double
        public var alpha: Double
        public var tolerance: Double
        public var direction: String
        public var regression: Bool
    }

    public struct Entry: Sendable, Hashable, Decodable {
        public var action: String
        public var actor: String
        public var time: String
        public var step: Int?
        public var percent: Double?
        public var revision: Int?
        public var comment: String?
        public var finding: Finding?
    }

    public var id: String
    public var flag: String
    public var environment: String
    public var oldVariant: String
    public var newVariant: String
    public var steps: [Step]
    public var guardrails: [Guardrail]
    public var alpha: Double
    public var evaluationIntervalSeconds: Int
    public var onRegression: String
    public var restart: String
    public var template: String?
    public var status: String
    /// The index of the step being served (from 0), while running or paused.
    public var currentStep: Int?
    public var stepStartedAt: String?
    public var lastEvaluatedAt: String?
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
    public var name: String
    public var description: String?
    public var steps: [ServerRolloutPlan.Step]
    public var guardrails: [ServerRolloutPlan.Guardrail]
    public var alpha: Double
    public var evaluationIntervalSeconds: Int
    public var onRegression: String
    public var restart: String
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
