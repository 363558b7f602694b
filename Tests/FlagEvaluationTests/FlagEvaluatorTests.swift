import FlagEvaluation
import Foundation
import Testing

struct FlagEvaluatorTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000.75)

    static let evaluator: FlagEvaluator = {
        let source = FlagSource(name: "flags.json", json: """
            {
              "metadata": {"flagSetId": "tests"},
              "$evaluators": {"isStaff": {"ends_with": [{"var": "email"}, "@example.com"]}},
              "flags": {
                "static-bool": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on",
                                "metadata": {"owner": "web"}},
                "staff-only": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                               "targeting": {"if": [{"$ref": "isStaff"}, "on", null]}},
                "limits": {"state": "ENABLED", "variants": {"low": 10, "mid": 12.5, "high": 100.0}, "defaultVariant": "low",
                           "targeting": {"if": [{"==": [{"var": "plan"}, "pro"]}, "high", {"==": [{"var": "plan"}, "mid"]}, "mid", null]}},
                "bool-named": {"state": "ENABLED", "variants": {"true": "yes", "false": "no", "1": "one"}, "defaultVariant": "false",
                               "targeting": {"if": [{"var": "numeric"}, 1, {">": [{"var": "age"}, 17]}]}},
                "ghost-variant": {"state": "ENABLED", "variants": {"a": "A"}, "defaultVariant": "a",
                                  "targeting": {"cat": ["b", {"var": "x"}]}},
                "array-result": {"state": "ENABLED", "variants": {"a": "A"}, "defaultVariant": "a", "targeting": {"merge": ["a"]}},
                "no-default": {"state": "ENABLED", "variants": {"a": "A", "b": "B"}},
                "broken": {"state": "ENABLED", "variants": {"a": "A"}, "defaultVariant": "a", "targeting": {"$ref": "missing"}},
                "bad-default": {"state": "ENABLED", "variants": {"a": "A"}, "defaultVariant": "zzz"},
                "off": {"state": "DISABLED", "variants": {"a": "A"}, "defaultVariant": "a"},
                "clock": {"state": "ENABLED", "variants": {"before": "before", "after": "after"}, "defaultVariant": "before",
                          "targeting": {"if": [{">=": [{"var": "$flagd.timestamp"}, 1800000000]}, "after", "before"]}},
                "self-aware": {"state": "ENABLED", "variants": {"self-aware": "me", "other": "other"}, "defaultVariant": "other",
                               "targeting": {"var": "$flagd.flagKey"}},
                "rollout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                            "targeting": {"fractional": [["on", 50], ["off", 50]]}},
                "config": {"state": "ENABLED", "variants": {"v1": {"retries": 3}}, "defaultVariant": "v1"}
              }
            }
            """)
        let (definitions, _) = FlagDefinitions.load([source])
        return FlagEvaluator(definitions: definitions)
    }()

    func evaluate(_ flag: String, _ type: EvaluationType, _ fallback: JSONValue, _ context: EvaluationContext = EvaluationContext()) -> EvaluationResult {
        Self.evaluator.evaluate(flag: flag, type: type, default: fallback, context: context, now: Self.now)
    }

    @Test func staticFlagServesDefaultVariant() {
        let result = evaluate("static-bool", .boolean, false)
        #expect(result == EvaluationResult(
            flagKey: "static-bool", value: true, variant: "on", reason: .static,
            metadata: ["flagSetId": "tests", "owner": "web"]
        ))
    }

    @Test func targetingMatchAndNullFallback() {
        let staff = evaluate("staff-only", .boolean, false, EvaluationContext(attributes: ["email": "ada@example.com"]))
        #expect(staff.value == true && staff.variant == "on" && staff.reason == .targetingMatch)
        let other = evaluate("staff-only", .boolean, true, EvaluationContext(attributes: ["email": "bob@else.org"]))
        #expect(other.value == false && other.variant == "off" && other.reason == .default && other.errorCode == nil)
    }

    @Test func numbersFollowTheRequestedType() {
        let integer = evaluate("limits", .integer, 1)
        #expect(integer.value == .int(10) && integer.reason == .default)
        let float = evaluate("limits", .float, 1.0)
        #expect(float.value == .double(10) && float.value.typeName == "number")
        if case .double = float.value {} else { Issue.record("float requests give doubles") }
        let wholeDouble = evaluate("limits", .integer, 1, EvaluationContext(attributes: ["plan": "pro"]))
        #expect(wholeDouble.value == .int(100) && wholeDouble.variant == "high")
        let fraction = evaluate("limits", .integer, 1, EvaluationContext(attributes: ["plan": "mid"]))
        #expect(fraction.value == .int(1) && fraction.reason == .error && fraction.errorCode == .typeMismatch)
        #expect(evaluate("limits", .float, 1.0, EvaluationContext(attributes: ["plan": "mid"])).value == .double(12.5))
    }

    @Test func typeMismatchServesCallerDefault() {
        let result = evaluate("static-bool", .string, "fallback")
        #expect(result.value == "fallback")
        #expect(result.reason == .error)
        #expect(result.errorCode == .typeMismatch)
        #expect(result.errorMessage == #"flag "static-bool" has boolean variants, not string"#)
        #expect(evaluate("config", .object, [:]).value == ["retries": 3])
    }

    @Test func missingAndDisabledFlags() {
        let missing = evaluate("nope", .string, "d")
        #expect(missing.value == "d" && missing.reason == .error && missing.errorCode == .flagNotFound && missing.metadata.isEmpty)
        let disabled = evaluate("off", .string, "d")
        #expect(disabled.value == "d" && disabled.reason == .disabled && disabled.variant == nil && disabled.errorCode == nil)
    }

    @Test func booleansAndNumbersFromTargetingNameVariants() {
        let adult = evaluate("bool-named", .string, "?", EvaluationContext(attributes: ["age": 30]))
        #expect(adult.variant == "true" && adult.value == "yes" && adult.reason == .targetingMatch)
        let minor = evaluate("bool-named", .string, "?", EvaluationContext(attributes: ["age": 3]))
        #expect(minor.variant == "false" && minor.value == "no")
        let numeric = evaluate("bool-named", .string, "?", EvaluationContext(attributes: ["numeric": true]))
        #expect(numeric.variant == "1" && numeric.value == "one")
    }

    @Test func unknownVariantOrNonNameIsAGeneralError() {
        let ghost = evaluate("ghost-variant", .string, "fallback", EvaluationContext(attributes: ["x": 1]))
        #expect(ghost.value == "fallback" && ghost.reason == .error && ghost.errorCode == .general)
        #expect(ghost.errorMessage == #"targeting returned "b1", which is not one of the flag's variants"#)
        let array = evaluate("array-result", .string, "fallback")
        #expect(array.reason == .error && array.errorCode == .general && array.value == "fallback")
        let badDefault = evaluate("bad-default", .string, "fallback")
        #expect(badDefault.reason == .error && badDefault.errorCode == .general && badDefault.value == "fallback")
    }

    @Test func noDefaultVariantServesCallerDefault() {
        let result = evaluate("no-default", .string, "mine")
        #expect(result.value == "mine" && result.variant == nil && result.reason == .default && result.errorCode == nil)
    }

    @Test func brokenRuleIsAParseError() {
        let result = evaluate("broken", .string, "fallback")
        #expect(result.value == "fallback" && result.reason == .error && result.errorCode == .parseError)
        #expect(result.errorMessage?.contains(#""$ref": "missing""#) == true)
    }

    @Test func rulesSeeFlagdProperties() {
        #expect(evaluate("clock", .string, "").value == "after")
        let earlier = Self.evaluator.evaluate(flag: "clock", type: .string, default: "", now: Date(timeIntervalSince1970: 1_799_999_999.99))
        #expect(earlier.value == "before")
        #expect(evaluate("self-aware", .string, "").value == "me")
    }

    @Test func shorthandFractionalUsesTargetingKey() {
        var seen: Set<JSONValue> = []
        for index in 0..<40 {
            let context = EvaluationContext(targetingKey: "user-\(index)")
            let first = evaluate("rollout", .boolean, false, context)
            #expect(first == evaluate("rollout", .boolean, false, context))
            #expect(first.reason == .targetingMatch)
            seen.insert(first.value)
        }
        #expect(seen == [true, false])
        // Without a targeting key the rule gives null: the default variant.
        #expect(evaluate("rollout", .boolean, true).reason == .default)
        // A string targetingKey attribute stands in for the targeting key.
        let viaAttribute = evaluate("rollout", .boolean, true, EvaluationContext(attributes: ["targetingKey": "user-1"]))
        #expect(viaAttribute.variant == evaluate("rollout", .boolean, true, EvaluationContext(targetingKey: "user-1")).variant)
    }

    @Test func evaluatesJSONRequestsAndRendersResults() throws {
        let request = try JSONValue(parsing: #"{"flag": "staff-only", "type": "boolean", "default": false, "context": {"targetingKey": "u1", "email": "ada@example.com"}}"#)
        let result = Self.evaluator.evaluate(request: request, now: Self.now)
        #expect(result.jsonValue.serialized() == #"{"errorCode":null,"errorMessage":null,"flag":"staff-only","metadata":{"flagSetId":"tests"},"reason":"TARGETING_MATCH","value":true,"variant":"on"}"#)
        let inferred = Self.evaluator.evaluate(request: ["flag": "limits", "default": 5], now: Self.now)
        #expect(inferred.value == .int(10))
        let bad = Self.evaluator.evaluate(request: ["flag": "limits", "type": "decimal", "default": 5], now: Self.now)
        #expect(bad.errorCode == .parseError && bad.value == .int(5))
        let noFlag = Self.evaluator.evaluate(request: ["default": 5], now: Self.now)
        #expect(noFlag.errorCode == .parseError)
    }

    @Test func isUsableFromManyTasks() async {
        let evaluator = Self.evaluator
        let values = await withTaskGroup(of: JSONValue.self) { group in
            for index in 0..<8 {
                group.addTask {
                    evaluator.evaluate(flag: "limits", type: .integer, default: 0, context: EvaluationContext(attributes: ["plan": index.isMultiple(of: 2) ? "pro" : "free"]), now: Self.now).value
                }
            }
            var collected: [JSONValue] = []
            for await value in group { collected.append(value) }
            return collected
        }
        #expect(values.filter { $0 == .int(100) }.count == 4)
        #expect(values.filter { $0 == .int(10) }.count == 4)
    }
}
