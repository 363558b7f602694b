import FlagEvaluation
import Foundation

/// JSON Logic rules, compiled and evaluated.
///
/// The input is JSON in one of three shapes: `[rule, data, ...]` (the JSON Logic test corpus),
/// `{"rule": ..., "data": ..., "$evaluators": {...}}` (shared rules resolved through `$ref`), or
/// any other value, which is the rule, evaluated against fixed data.
///
/// Invariants:
/// - compiling the same rule twice gives the same schema violations;
/// - evaluating is deterministic (same result text twice, also for `fractional`);
/// - the result is JSON that writes and reads back identical (non-finite numbers write as `null`).
enum JSONLogicTarget {
    static let fixedData: JSONValue = [
        "targetingKey": "user-1", "email": "ada@example.com", "age": 42, "version": "1.2.3",
        "items": [1, 2, 3, 4], "ratio": 0.5, "nested": ["level": ["deep": "value"]],
        "$flagd": ["flagKey": "fuzz-flag", "timestamp": 1_700_000_000],
    ]

    static func run(_ data: Data) {
        guard let input = try? JSONValue(parsing: data) else { return }
        let rule: JSONValue
        var ruleData = fixedData
        var evaluators: [String: JSONValue] = [:]
        switch input {
        case .array(let elements) where !elements.isEmpty && elements.count <= 3:
            rule = elements[0]
            if elements.count > 1 { ruleData = elements[1] }
        case .object(let members) where members["rule"] != nil:
            rule = members["rule"]!
            if let given = members["data"] { ruleData = given }
            evaluators = members["$evaluators"]?.objectValue ?? [:]
        default:
            rule = input
        }

        let compiled: JSONLogicRule
        do {
            compiled = try JSONLogicRule(rule, evaluators: evaluators)
        } catch {
            // A rule that does not compile says why; compiling it again says the same.
            if (try? JSONLogicRule(rule, evaluators: evaluators)) != nil {
                Invariant.fail("a rule failed to compile (\(error)), then compiled")
            }
            return
        }
        let recompiled: JSONLogicRule
        do {
            recompiled = try JSONLogicRule(rule, evaluators: evaluators)
        } catch {
            Invariant.fail("a rule compiled, then failed to compile: \(error)")
        }
        Invariant.require(
            compiled.schemaViolations == recompiled.schemaViolations,
            "compiling a rule twice reported different schema violations")

        let result = compiled.evaluate(data: ruleData)
        let text = result.serialized()
        let again = recompiled.evaluate(data: ruleData).serialized()
        Invariant.require(text == again, "evaluating a rule twice gave \(text) then \(again)")
        let reread: JSONValue
        do {
            reread = try JSONValue(parsing: text)
        } catch {
            Invariant.fail("a rule's result wrote as text that does not parse: \(text) (\(error))")
        }
        Invariant.require(
            reread.serialized() == text, "a rule's result \(text) read back as \(reread.serialized())")
    }
}
