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
///
/// Rules nest at most 100 levels deep (counting every operator and array, through `$ref`s);
/// deeper ones do not compile. Each evaluation runs within ``EvaluationLimits``.
public struct JSONLogicRule: Sendable {
    let rule: CompiledRule

    /// Departures from flagd's targeting schema found while compiling. The rule still runs.
    public let schemaViolations: [String]

    /// Compiles `rule`, resolving `{"$ref": "name"}` against `evaluators`.
    ///
    /// - Throws: ``JSONLogicError`` for an unknown operator, a `$ref` to a missing evaluator, or a
    ///   `$ref` cycle, or a rule nested more than 100 levels deep.
    public init(_ rule: JSONValue, evaluators: [String: JSONValue] = [:]) throws(JSONLogicError) {
        var compiler = JSONLogicCompiler(evaluators: evaluators)
        self.rule = try compiler.compileRule(rule)
        self.schemaViolations = compiler.schemaViolations
    }

    /// Evaluates the rule. Never fails: see ``JSONLogicRule`` for the semantics; a rule that
    /// exceeds `limits` gives `null` (use ``evaluateWithinLimits(data:bucketing:limits:)`` to
    /// tell that apart).
    public func evaluate(
        data: JSONValue = .null, bucketing: FractionalBucketing = .current, limits: EvaluationLimits = .default
    ) -> JSONValue {
        (try? evaluateWithinLimits(data: data, bucketing: bucketing, limits: limits)) ?? .null
    }

    /// Evaluates the rule, reporting a rule that exceeds `limits`.
    ///
    /// - Throws: ``EvaluationLimitExceeded`` naming the limit reached.
    public func evaluateWithinLimits(
        data: JSONValue = .null, bucketing: FractionalBucketing = .current, limits: EvaluationLimits = .default
    ) throws(EvaluationLimitExceeded) -> JSONValue {
        try rule.evaluate(.value(data), LogicEnvironment(data: data, bucketing: bucketing), limits: limits).get()
    }
}
