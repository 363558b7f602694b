import FlagEvaluation
import FlagServerAPI
import FlagServerModel
import Foundation

extension RolloutPlan {
    /// The split is written in basis points: 10,000 in total, so 0.01 % steps are exact.
    static let splitTotal = 10_000

    /// The bucketing value of the split: the plan's salt followed by the unit's targeting key.
    var bucketingExpression: JSONValue {
        .object(["cat": .array([.string(salt), .object(["var": .string("targetingKey")])])])
    }

    /// The serving rule of a step serving the new variant to `percent` % of units:
    /// `{"fractional": [{"cat": [salt, {"var": "targetingKey"}]}, [new, p], [old, 10000 − p]]}`.
    ///
    /// `fractional` hashes the bucketing value once and walks the buckets in order, so a unit
    /// whose hash falls in the first p basis points is served the new variant at every share of
    /// at least p: units stay as the share grows (sticky), as long as the salt stays.
    func targeting(percent: Double) -> JSONValue {
        let weight = Self.weight(percent)
        return .object([
            "fractional": .array([
                bucketingExpression,
                .array([.string(newVariant), .int(weight)]),
                .array([.string(oldVariant), .int(Self.splitTotal - weight)]),
            ])
        ])
    }

    static func weight(_ percent: Double) -> Int { min(splitTotal, max(0, Int((percent * 100).rounded()))) }

    /// The settings serving step `index` (the flag's on/off state kept: a kill switch holds).
    func settings(step index: Int, from current: FlagSettings) -> FlagSettings {
        let percent = steps[index].percent
        if percent >= 100 { return FlagSettings(enabled: current.enabled, defaultVariant: newVariant, targeting: nil) }
        return FlagSettings(enabled: current.enabled, defaultVariant: oldVariant, targeting: targeting(percent: percent))
    }

    /// The settings serving the old variant to everyone (a rollback).
    func rolledBackSettings(from current: FlagSettings) -> FlagSettings {
        FlagSettings(enabled: current.enabled, defaultVariant: oldVariant, targeting: nil)
    }

    /// Whether `settings` are a split this plan wrote (any share, this salt): a plan only takes
    /// over a flag without targeting or with its own split.
    func owns(_ settings: FlagSettings) -> Bool {
        guard let targeting = settings.targeting else { return true }
        guard case .object(let object) = targeting, case .array(let arguments)? = object["fractional"], arguments.count == 3
        else { return false }
        return arguments[0] == bucketingExpression
    }

    /// A new random salt.
    static func makeSalt() -> String {
        String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16))
    }

    /// Why the plan cannot be stored, field by field (empty: it can).
    var problems: [String] {
        var problems: [String] = []
        if let problem = StateValidator.keyProblem(flag) { problems.append("flag: \(problem)") }
        if let problem = StateValidator.keyProblem(environment) { problems.append("environment: \(problem)") }
        if oldVariant == newVariant { problems.append("newVariant: must differ from oldVariant") }
        problems += Self.problems(steps: steps, guardrails: guardrails, alpha: alpha, interval: evaluationIntervalSeconds)
        if let minimumUnits, !(2...1_000_000_000).contains(minimumUnits) { problems.append("minimumUnits: 2 to 1000000000") }
        if salt.isEmpty || salt.utf8.count > 64 { problems.append("salt: 1 to 64 characters") }
        return problems
    }

    /// The most steps a plan has (``RolloutStepRules/maximumSteps``, shared with the console and `flags`).
    static let maximumSteps = RolloutStepRules.maximumSteps
    static let maximumGuardrails = 10
    /// The longest a step is held (``RolloutStepRules/maximumDurationSeconds``).
    static let maximumDurationSeconds = RolloutStepRules.maximumDurationSeconds

    static func problems(steps: [Step], guardrails: [RolloutGuardrail], alpha: Double, interval: Int) -> [String] {
        var problems = RolloutStepRules.problems(steps: steps.map { ($0.percent, $0.durationSeconds) })
        if guardrails.count > maximumGuardrails { problems.append("guardrails: at most \(maximumGuardrails)") }
        for (index, guardrail) in guardrails.enumerated() {
            if !(guardrail.tolerance >= 0 && guardrail.tolerance <= 1) { problems.append("guardrails[\(index)].tolerance: 0 to 1") }
            switch guardrail.metric {
            case .eventRate:
                if let event = guardrail.event, !event.isEmpty, event.utf8.count <= 128 { break }
                problems.append("guardrails[\(index)].event: the tracked event's name (1 to 128 characters) for event_rate")
            case .crashRate, .errorRate:
                if guardrail.event != nil { problems.append("guardrails[\(index)].event: only for event_rate") }
            case .experimentMetric:
                if guardrail.event != nil { problems.append("guardrails[\(index)].event: only for event_rate") }
                if let key = guardrail.metricKey, Experiment.isKey(key) { break }
                problems.append("guardrails[\(index)].metricKey: the stored experiment metric's key (letters, digits, \".\", \"_\" and \"-\", 1 to 128 characters) for experiment_metric")
            }
            if guardrail.metric != .experimentMetric, guardrail.metricKey != nil {
                problems.append("guardrails[\(index)].metricKey: only for experiment_metric")
            }
        }
        if !(alpha >= 0.001 && alpha <= 0.2) { problems.append("alpha: 0.001 to 0.2") }
        if interval < 1 || interval > 86_400 { problems.append("evaluationIntervalSeconds: 1 to 86400") }
        return problems
    }
}

extension RolloutTemplate {
    var problems: [String] {
        var problems: [String] = []
        if let problem = StateValidator.keyProblem(name) { problems.append("name: \(problem)") }
        if let description, description.utf8.count > 1000 { problems.append("description: at most 1000 characters") }
        problems += RolloutPlan.problems(steps: steps, guardrails: guardrails, alpha: alpha, interval: evaluationIntervalSeconds)
        return problems
    }
}
