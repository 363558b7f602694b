/// A JSON Logic rule, compiled once and evaluated against any data.
///
/// Supports the JSON Logic operators flagd's targeting schema allows and flagd's `fractional`,
/// `sem_ver`, `starts_with` and `ends_with`. For `fractional` without a bucketing key, the flag
/// key and targeting key are read from the data's `$flagd.flagKey` and `targetingKey`.
///
/// ```swift
/// let rule = try JSONLogicRule(JSONValue(parsing: #"{"in": ["@example.com", {"var": "email"}]}"#))
/// rule.evaluate(data: ["email": "ada@example.com"])   // .bool(true)
/// ```
public struct JSONLogicRule: Sendable {
    let expression: LogicExpression

    /// Departures from flagd's targeting schema found while compiling. The rule still runs.
    public let schemaViolations: [String]

    /// Compiles `rule`, resolving `{"$ref": "name"}` against `evaluators`.
    ///
    /// - Throws: ``JSONLogicError`` for an unknown operator, a `$ref` to a missing evaluator, or a
    ///   `$ref` cycle.
    public init(_ rule: JSONValue, evaluators: [String: JSONValue] = [:]) throws(JSONLogicError) {
        var compiler = JSONLogicCompiler(evaluators: evaluators)
        self.expression = try compiler.compile(rule)
        self.schemaViolations = compiler.schemaViolations
    }

    /// Evaluates the rule. Never fails; see ``JSONLogicRule`` for the semantics.
    public func evaluate(data: JSONValue = .null, bucketing: FractionalBucketing = .current) -> JSONValue {
        expression.evaluate(.value(data), LogicEnvironment(data: data, bucketing: bucketing))
    }
}
