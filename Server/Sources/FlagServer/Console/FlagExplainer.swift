import FlagEvaluation
import FlagServerModel
import Foundation

/// Evaluates every flag of an environment for one context, as OFREP would, and explains each
/// result step by step: off, no rule, or each condition of the rule with what it gave.
///
/// The admin API (`POST /admin/v1/environments/{env}/evaluate`) and the console's Evaluate page
/// both call ``explain(environment:state:context:bucketing:now:)``.
enum FlagExplainer {
    /// One step of an explanation.
    struct Step: Encodable, Hashable {
        /// The rule or condition, as JSON text (or a sentence for the flag's switch).
        var rule: String
        /// What it gave, as JSON text.
        var result: String
        /// Whether this step decided the result.
        var decided: Bool
    }

    /// One flag's evaluation and why.
    struct Explanation: Encodable {
        var key: String
        var value: JSONValue?
        var variant: String?
        var reason: String
        var errorCode: String?
        var errorMessage: String?
        var steps: [Step]
    }

    /// Every flag of `environment` in `state` evaluated for `context` (a JSON object with an
    /// optional string `targetingKey`) with the server's `bucketing`, or `nil` when the
    /// environment does not exist.
    static func explain(
        environment: String, state: ServerState, context: JSONValue, bucketing: FractionalBucketing, now: Date
    ) -> [Explanation]? {
        guard let evaluator = CompiledEnvironment.evaluatorOfEveryFlag(state: state, environment: environment, bucketing: bucketing)
        else { return nil }
        return explain(environment: environment, state: state, evaluator: evaluator, context: context, now: now)
    }

    /// The context of an evaluate request: a JSON object whose `targetingKey`, if any, is a string.
    static func checkedContext(_ context: JSONValue) throws(AdminError) -> JSONValue {
        guard case .object(let members) = context else {
            throw .badRequest("context: must be an object, got \(context.typeName)")
        }
        if let key = members["targetingKey"], key.stringValue == nil {
            throw .badRequest("context.targetingKey: must be a string, got \(key.typeName)")
        }
        return context
    }

    static func explain(
        environment: String, state: ServerState, evaluator: FlagEvaluator, context: JSONValue, now: Date
    ) -> [Explanation] {
        guard let settingsByFlag = state.environments[environment]?.settings else { return [] }
        let segments = state.environments[environment]?.segments ?? [:]
        let evaluationContext = EvaluationContext(json: context)
        return state.flags.keys.sorted().compactMap { key in
            // An archived flag is not served: the explanation lists what apps get.
            guard let flag = state.flags[key], !flag.archived, let settings = settingsByFlag[key] else { return nil }
            let result = evaluator.evaluate(
                flag: key, type: flag.type.evaluationType, default: .null, context: evaluationContext, now: now)
            let sensitive = flag.metadata.sensitive
            var explanation = Explanation(
                key: key, value: result.variant == nil ? nil : (sensitive ? AuditRedaction.placeholder : result.value),
                variant: result.variant, reason: result.reason.rawValue, errorCode: result.errorCode?.rawValue,
                errorMessage: result.errorMessage, steps: [])
            guard settings.enabled else {
                explanation.steps = [Step(rule: "the flag is off in \(environment)", result: "the app's code default", decided: true)]
                return explanation
            }
            guard let targeting = settings.targeting else {
                explanation.steps = [Step(
                    rule: "no targeting rule",
                    result: settings.defaultVariant.map { JSONValue.string($0).serialized() } ?? "no default variant: the app's code default",
                    decided: true)]
                return explanation
            }
            explanation.steps = steps(
                of: targeting, segments: segments, data: data(context, flag: key, now: now), defaultVariant: settings.defaultVariant)
            return explanation
        }
    }

    /// The data rules see: the context, and `$flagd.flagKey` and `$flagd.timestamp`.
    static func data(_ context: JSONValue, flag: String, now: Date) -> JSONValue {
        var members = context.objectValue ?? [:]
        members["$flagd"] = ["flagKey": .string(flag), "timestamp": .int(Int(now.timeIntervalSince1970))]
        return .object(members)
    }

    /// An `if` rule condition by condition (up to the first that holds); any other rule whole.
    static func steps(of rule: JSONValue, segments: [String: JSONValue], data: JSONValue, defaultVariant: String?) -> [Step] {
        func run(_ rule: JSONValue) -> JSONValue {
            (try? JSONLogicRule(rule, evaluators: segments))?.evaluate(data: data) ?? .null
        }
        func served(_ value: JSONValue) -> String {
            value.isNull
                ? defaultVariant.map { "null: the default variant \(JSONValue.string($0).serialized())" } ?? "null: no default variant, the app's code default"
                : value.serialized()
        }
        guard case .object(let members) = rule, members.count == 1, case .array(let arguments)? = members["if"], arguments.count >= 2
        else {
            return [Step(rule: rule.serialized(), result: served(run(rule)), decided: true)]
        }
        var steps: [Step] = []
        var index = 0
        while index + 1 < arguments.count {
            let outcome = run(arguments[index])
            let holds = isTruthy(outcome)
            steps.append(Step(
                rule: "if " + arguments[index].serialized(),
                result: outcome.serialized() + (holds ? " → " + served(run(arguments[index + 1])) : ""), decided: holds))
            if holds { return steps }
            index += 2
        }
        let otherwise = index < arguments.count ? run(arguments[index]) : .null
        steps.append(Step(rule: "otherwise", result: served(otherwise), decided: true))
        return steps
    }

    /// JSON Logic truthiness: false, null, 0, "" and [] are false.
    static func isTruthy(_ value: JSONValue) -> Bool {
        switch value {
        case .null: false
        case .bool(let bool): bool
        case .int(let int): int != 0
        case .double(let double): double != 0 && !double.isNaN
        case .string(let string): !string.isEmpty
        case .array(let array): !array.isEmpty
        case .object: true
        }
    }
}
