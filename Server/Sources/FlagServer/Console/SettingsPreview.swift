import FlagEvaluation
import FlagServerModel
import Foundation

/// Checking and previewing a flag's settings in an environment before they are saved, with the
/// server's own validator and evaluator. The admin API (`…/validate`, `…/preview`) and the console
/// both call these functions.
enum SettingsPreview {
    /// Most targeting keys one preview evaluates.
    static let maximumTargetingKeys = 1000

    /// The sample of targeting keys a preview uses when the caller gives none.
    static func sampleKeys(count: Int = 100) -> [String] { (1...count).map { "user-\($0)" } }

    /// The state with `settings` applied to `flag` in `environment`.
    static func applying(
        _ settings: FlagSettings, flag: String, environment: String, to state: ServerState
    ) throws(AdminError) -> ServerState {
        guard state.environments[environment] != nil else { throw .notFound("environment \"\(environment)\" does not exist") }
        guard state.flags[flag] != nil else { throw .notFound("flag \"\(flag)\" does not exist") }
        do {
            return try state.applying([.putSettings(environment: environment, flag: flag, settings)]).state
        } catch {
            throw AdminError(store: error)
        }
    }

    /// The problems saving `settings` would have (empty: it may be saved), exactly as a write
    /// validates them.
    static func problems(
        of settings: FlagSettings, flag: String, environment: String, in state: ServerState
    ) throws(AdminError) -> [ValidationError] {
        StateValidator.problems(
            in: try applying(settings, flag: flag, environment: environment, to: state), missingVariants: .addedSince(state))
    }

    /// One targeting key's result in a preview.
    struct Assignment: Encodable, Hashable {
        var targetingKey: String
        var variant: String?
        var value: JSONValue?
        var reason: String
    }

    /// What `settings` would serve to each of `targetingKeys`, and how many get each variant.
    struct Result: Encodable {
        var problems: [ValidationError]
        /// Whether the previewed settings have the flag on. The assignments are what the flag
        /// serves once on either way: an off flag serves every user the code default.
        var enabled: Bool
        var assignments: [Assignment]
        /// Per variant (`"(default)"` for the caller's default), the number of targeting keys.
        var counts: [String: Int]
    }

    /// `bucketing` is the server's (`StatePublisher/bucketing`), so that a preview shows what the
    /// flag would serve.
    ///
    /// The flag is evaluated as if it were on: previewing an off flag shows what its rule or
    /// rollout will serve once it is turned on (``Result/enabled`` says it is off), not the
    /// code default every user gets while it is off.
    static func preview(
        _ settings: FlagSettings, flag: String, environment: String, in state: ServerState, targetingKeys: [String],
        bucketing: FractionalBucketing, now: Date
    ) throws(AdminError) -> Result {
        guard targetingKeys.count <= maximumTargetingKeys else {
            throw .badRequest("targetingKeys: at most \(maximumTargetingKeys), got \(targetingKeys.count)")
        }
        var on = settings
        on.enabled = true
        let next = try applying(on, flag: flag, environment: environment, to: state)
        let problems = StateValidator.problems(in: next, missingVariants: .addedSince(state))
        guard problems.isEmpty, let type = next.flags[flag]?.type,
            let evaluator = CompiledEnvironment.evaluatorOfEveryFlag(state: next, environment: environment, bucketing: bucketing)
        else {
            return Result(problems: problems, enabled: settings.enabled, assignments: [], counts: [:])
        }
        var counts: [String: Int] = [:]
        let assignments = targetingKeys.map { key in
            let result = evaluator.evaluate(
                flag: flag, type: type.evaluationType, default: .null, context: EvaluationContext(targetingKey: key), now: now)
            counts[result.variant ?? "(default)", default: 0] += 1
            return Assignment(
                targetingKey: key, variant: result.variant, value: result.variant == nil ? nil : result.value,
                reason: result.reason.rawValue)
        }
        return Result(problems: [], enabled: settings.enabled, assignments: assignments, counts: counts)
    }

    /// A percentage rollout over `flag`'s variants as a flagd rule:
    /// `{"fractional": [["on", 10], ["off", 90]]}`, bucketed by targeting key and flag key.
    ///
    /// - Throws: ``AdminError/invalid(_:)`` naming the variant when a percentage is out of range
    ///   or a variant is unknown, or when the percentages do not add up to 100.
    static func rollout(_ percentages: [String: Int], flag: FlagRecord) throws(AdminError) -> JSONValue {
        var problems: [ValidationError] = []
        for (variant, percent) in percentages.sorted(by: { $0.key < $1.key }) {
            if flag.variants[variant] == nil {
                problems.append(ValidationError(key: flag.key, field: "rollout.\(variant)", problem: "is not one of the variants"))
            }
            if !(0...100).contains(percent) {
                problems.append(ValidationError(key: flag.key, field: "rollout.\(variant)", problem: "must be 0–100, got \(percent)"))
            }
        }
        let total = percentages.values.reduce(0, +)
        if total != 100 {
            problems.append(ValidationError(key: flag.key, field: "rollout", problem: "percentages must add up to 100, got \(total)"))
        }
        guard problems.isEmpty else { throw .invalid(problems) }
        let buckets = percentages.sorted { $0.key < $1.key }.filter { $0.value > 0 }
        return ["fractional": .array(buckets.map { [.string($0.key), .int($0.value)] })]
    }

    /// The percentages of a rule that is exactly a rollout made by ``rollout(_:flag:)``, to fill
    /// the rollout form; `nil` for any other rule.
    static func percentages(of targeting: JSONValue?) -> [String: Int]? {
        guard case .object(let members)? = targeting, members.count == 1, case .array(let buckets)? = members["fractional"]
        else { return nil }
        var result: [String: Int] = [:]
        for bucket in buckets {
            guard case .array(let pair) = bucket, pair.count == 2, let name = pair[0].stringValue, case .int(let weight) = pair[1]
            else { return nil }
            result[name] = weight
        }
        return result.values.reduce(0, +) == 100 ? result : nil
    }
}
