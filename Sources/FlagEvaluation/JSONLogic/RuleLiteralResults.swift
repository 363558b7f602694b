/// A variant name a targeting rule returns as written: a literal in one of the rule's result
/// positions, found without evaluating the rule.
///
/// A flag whose rule can return a name that is not one of its variants fails every evaluation
/// that reaches that result (`GENERAL`); a server checks ``JSONLogicRule/literalResults(of:evaluators:)``
/// against the flag's variants before it stores the rule.
public struct RuleLiteralResult: Sendable, Hashable, CustomStringConvertible {
    /// The variant the literal serves: a string as written; a Boolean or number by its text, as
    /// flagd names variants by them (`true` serves the variant `"true"`).
    public var variant: String
    /// Where the literal is: `if[1]`, `fractional[1][0]`, `$ref "beta" › if[2]`.
    public var path: String

    /// The literal `variant` at `path`.
    public init(variant: String, path: String) {
        self.variant = variant
        self.path = path
    }

    /// `"variant" at path`.
    public var description: String { "\"\(variant)\" at \(path)" }
}

extension JSONLogicRule {
    /// Every literal a targeting rule can return as its result, with where it is, in rule order.
    ///
    /// Result positions are the rule itself, the branches of `if` and `?:` (not their conditions),
    /// the operands of `and` and `or` (which return one of them), the bucket names of `fractional`,
    /// and, through `{"$ref": "name"}` in a result position, the results of the evaluator `name`
    /// in `evaluators`. Every other operator computes its result (a comparison gives a Boolean a
    /// flag's variants cannot be checked against before evaluation) and is not followed; `null`
    /// is not a variant (it serves the default variant) and is left out.
    ///
    /// ```swift
    /// JSONLogicRule.literalResults(of: ["if": [true, "onn", "off"]])
    /// // ["onn" at if[1], "off" at if[2]]
    /// ```
    public static func literalResults(of rule: JSONValue, evaluators: [String: JSONValue] = [:]) -> [RuleLiteralResult] {
        var results: [RuleLiteralResult] = []
        collectResults(of: rule, path: "", evaluators: evaluators, following: [], into: &results)
        return results
    }

    private static func collectResults(
        of rule: JSONValue, path: String, evaluators: [String: JSONValue], following: Set<String>,
        into results: inout [RuleLiteralResult]
    ) {
        func place(_ suffix: String) -> String { path.isEmpty ? suffix : "\(path) › \(suffix)" }
        switch rule {
        case .string, .bool, .int, .double:
            results.append(RuleLiteralResult(variant: JavaScriptSemantics.toJSString(rule), path: path.isEmpty ? "the rule" : path))
        case .null, .array:
            // An array is a list of values, not a name (the evaluation fails on it as it would anyway).
            break
        case .object(let members):
            guard members.count == 1, let member = members.first else { return }
            let (name, argument) = (member.key, member.value)
            let arguments: [JSONValue] = if case .array(let items) = argument { items } else { [argument] }
            switch name {
            case "if", "?:":
                // `[c1, r1, c2, r2, …, else]`: the odd positions and a final else.
                for index in arguments.indices where index % 2 == 1 || index == arguments.count - 1 && index % 2 == 0 {
                    collectResults(
                        of: arguments[index], path: place("\(name)[\(index)]"), evaluators: evaluators, following: following,
                        into: &results)
                }
            case "and", "or":
                for (index, operand) in arguments.enumerated() {
                    collectResults(
                        of: operand, path: place("\(name)[\(index)]"), evaluators: evaluators, following: following,
                        into: &results)
                }
            case "fractional":
                // `[bucketing key?, [name, weight], …]`: an array argument is a bucket.
                for (index, bucket) in arguments.enumerated() {
                    guard case .array(let pair) = bucket, let first = pair.first else { continue }
                    collectResults(
                        of: first, path: place("fractional[\(index)][0]"), evaluators: evaluators, following: following,
                        into: &results)
                }
            case "$ref":
                guard case .string(let reference) = argument, !following.contains(reference),
                    let evaluator = evaluators[reference]
                else { return }  // a missing evaluator or a cycle does not compile; the compiler says so
                collectResults(
                    of: evaluator, path: place("$ref \"\(reference)\""), evaluators: evaluators,
                    following: following.union([reference]), into: &results)
            default:
                break
            }
        }
    }
}
