/// A compiled top-level rule and the size of the table that remembers its evaluators' results
/// during one evaluation.
struct CompiledRule: Sendable {
    let expression: LogicExpression
    /// How many distinct `$ref` evaluators evaluation may meet (at most); 0 for a rule without
    /// `$ref`, which then evaluates without any table.
    let referenceSlots: Int

    /// Evaluates the rule within `limits`.
    ///
    /// - Returns: The rule's value, or the limit it exceeded (the value is then meaningless).
    func evaluate(
        _ data: LogicData, _ environment: LogicEnvironment, limits: EvaluationLimits
    ) -> Result<JSONValue, EvaluationLimitExceeded> {
        var state = EvaluationState(limits: limits)
        let value: JSONValue
        if referenceSlots == 0 {
            value = expression.evaluate(data, environment, &state)
        } else {
            value = EvaluationState.ReferenceMemo.withMemo(slots: referenceSlots) { memo in
                state.memo = memo
                defer { state.memo = .none }
                return expression.evaluate(data, environment, &state)
            }
        }
        if let exceeded = state.exceeded { return .failure(exceeded) }
        return .success(value)
    }
}
