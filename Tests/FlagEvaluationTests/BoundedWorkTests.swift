@_spi(Differential) import FlagEvaluation
import Foundation
import Testing

/// Rules come from outside, so loading and evaluating them is bounded (issue 9): stack depth,
/// work per load, steps and built elements per evaluation. No test here measures time; they
/// count work or read what the budget reports.
struct BoundedWorkTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A flag "f" whose targeting is `{"if": [rule, "on", "off"]}`, with `evaluators`.
    static func source(rule: String, evaluators: [String] = []) -> FlagSource {
        FlagSource(name: "rules.json", json: """
            {"$evaluators": {\(evaluators.joined(separator: ","))},
             "flags": {"f": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                             "targeting": {"if": [\(rule), "on", "off"]}}}}
            """)
    }

    /// `count` evaluators `e0 -> e1 -> ... -> e(count-1)`, the last one `{"==": [1, 1]}`.
    static func chain(_ count: Int) -> [String] {
        (0..<count).map { index in
            index == count - 1 ? #""e\#(index)": {"==": [1, 1]}"# : #""e\#(index)": {"$ref": "e\#(index + 1)"}"#
        }
    }

    /// Runs `body` on a thread with an ordinary secondary thread's 512 KB stack.
    static func onSmallStack<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            box.value = body()
            done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        done.wait()
        return box.value!
    }

    static func evaluate(_ definitions: FlagDefinitions, limits: EvaluationLimits = .default, context: EvaluationContext = EvaluationContext()) -> EvaluationResult {
        FlagEvaluator(definitions: definitions, limits: limits)
            .evaluate(flag: "f", type: .boolean, default: false, context: context, now: now)
    }

    // MARK: - Depth

    @Test(arguments: [1_000, 15_000])
    func longRefChainIsALoadErrorNotAStackOverflow(length: Int) {
        let source = Self.source(rule: #"{"$ref": "e0"}"#, evaluators: Self.chain(length))
        let (definitions, errors) = Self.onSmallStack { FlagDefinitions.load([source]) }
        #expect(errors.map(\.description) == [
            #"rules.json: flag "f": targeting: the rule nests deeper than 100 levels through "$ref" evaluators "e0" -> "e1" -> ... -> "e97" -> "e98" (99 evaluators); flatten it (an "and", "or" or "if" takes any number of arguments) (flag loaded; its evaluations return an error)"#
        ])
        let result = Self.onSmallStack { Self.evaluate(definitions) }
        #expect(result.errorCode == .parseError)
        #expect(result.value == false)
    }

    @Test func ruleAtTheDepthLimitLoadsAndEvaluatesOnASmallStack() {
        // `if` is level 1, each `$ref`'d evaluator one more, the last `==` and its literals two.
        let source = Self.source(rule: #"{"$ref": "e0"}"#, evaluators: Self.chain(97))
        let result = Self.onSmallStack { () -> EvaluationResult in
            let (definitions, errors) = FlagDefinitions.load([source])
            precondition(errors.isEmpty, "\(errors)")
            return Self.evaluate(definitions)
        }
        #expect(result.variant == "on")
        #expect(result.reason == .targetingMatch)
    }

    /// Every operator nested to the depth limit (98 operators, their literal arguments at levels
    /// 99 and 100) compiles and
    /// evaluates on a 512 KB stack. The rule is built in code: the JSON text would nest twice as
    /// deep (an object and an array per level).
    @Test(arguments: [
        "if", "?:", "==", "===", "!=", "!==", "!", "!!", "or", "and", "<", "<=", ">", ">=", "max", "min", "+", "-", "*",
        "/", "%", "map", "filter", "reduce", "all", "none", "some", "merge", "in", "cat", "substr", "missing",
        "missing_some", "fractional", "sem_ver", "starts_with", "ends_with", "var",
    ])
    func everyOperatorAtTheDepthLimitEvaluatesOnASmallStack(_ name: String) throws {
        var rule: JSONValue = 1
        for _ in 0..<98 {
            switch name {
            case "map", "filter", "all", "none", "some": rule = [name: [[1], rule]]
            case "reduce": rule = [name: [[1], rule, 0]]
            case "fractional": rule = [name: [rule, ["a", 1]]]
            case "sem_ver": rule = [name: [rule, "=", "1.0.0"]]
            case "var": rule = [name: ["x", rule]]
            default: rule = [name: [rule, 1]]
            }
        }
        let finished = Self.onSmallStack { [rule] () -> Bool in
            guard let compiled = try? JSONLogicRule(rule) else { return false }
            _ = compiled.evaluate(data: ["x": 1])
            return true
        }
        #expect(finished)
        #expect(throws: JSONLogicError.self) { try JSONLogicRule(["!": ["!": ["!": rule]]]) }
    }

    /// JSON text nests at most 100 levels (the shared parser's bound, safe on a 512 KB stack in
    /// debug builds), so a rule written deeper is refused where it enters: the whole source, with
    /// the path to where it went too deep. (Rules built in code meet the compiler's own limit.)
    @Test func deeplyNestedJSONRuleIsALoadError() {
        let rule = String(repeating: #"{"!": "#, count: 150) + "true" + String(repeating: "}", count: 150)
        let (definitions, errors) = FlagDefinitions.load([Self.source(rule: rule)])
        #expect(errors.count == 1)
        #expect(errors.first.map { "\($0)".hasPrefix(#"rules.json: invalid JSON at line 3"#) } == true)
        #expect(errors.first.map { "\($0)".hasSuffix("nesting deeper than 100 levels (source skipped)") } == true)
        #expect(definitions["f"] == nil)
        #expect(throws: JSONParseError.self) { try JSONLogicRule(JSONValue(parsing: rule)) }
    }

    // MARK: - Shared evaluators

    @Test func evaluatorReferredToTwiceAtEachLevelIsEvaluatedOnce() throws {
        // e23 -> e22 twice -> e21 four times ... : 2^24 nodes if expanded.
        var evaluators = [#""e0": {"==": [{"var": "plan"}, "pro"]}"#]
        for index in 1..<24 {
            evaluators.append(#""e\#(index)": {"and": [{"$ref": "e\#(index - 1)"}, {"$ref": "e\#(index - 1)"}]}"#)
        }
        let definitions = try FlagDefinitions.loadStrictly([Self.source(rule: #"{"$ref": "e23"}"#, evaluators: evaluators)])
        // About three steps per evaluator: far below what an expansion would take.
        let result = Self.evaluate(
            definitions, limits: EvaluationLimits(maximumSteps: 200), context: EvaluationContext(attributes: ["plan": "pro"]))
        #expect(result.errorMessage == nil)
        #expect(result.variant == "on")
        let other = Self.evaluate(
            definitions, limits: EvaluationLimits(maximumSteps: 200), context: EvaluationContext(attributes: ["plan": "free"]))
        #expect(other.variant == "off")
    }

    @Test func loadingCompilesEachEvaluatorOnce() throws {
        // 10,000 flags sharing one 103-node evaluator: linear, not 10,000 × 201.
        let segment = "[" + (0..<100).map { #""user-\#($0)@example.com""# }.joined(separator: ",") + "]"
        var flags: [String] = []
        for index in 0..<10_000 {
            flags.append(#""f\#(index)": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off", "targeting": {"if": [{"$ref": "beta"}, "on", "off"]}}"#)
        }
        let source = FlagSource(name: "many.json", json: """
            {"$evaluators": {"beta": {"in": [{"var": "email"}, \(segment)]}},
             "flags": {\(flags.joined(separator: ","))}}
            """)
        let (definitions, errors, compiledNodes) = FlagDefinitions.loadCountingWork([source])
        #expect(errors.isEmpty)
        #expect(definitions.flags.count == 10_000)
        // Each flag: `if`, the `$ref`, two literals; the evaluator once: `in`, `var`, the array
        // and its 100 strings.
        #expect(compiledNodes == 10_000 * 4 + 103)
    }

    // MARK: - Budget

    /// 122 bytes that double an array 30 times: 2^30 elements if nothing stops it.
    static let doublingRule = #"{"reduce": [[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1], {"merge": [{"var": "accumulator"}, {"var": "accumulator"}]}, [1]]}"#

    @Test func doublingReduceStopsAtTheElementBudget() throws {
        let definitions = try FlagDefinitions.loadStrictly([Self.source(rule: Self.doublingRule)])
        let result = Self.evaluate(definitions)
        #expect(result == EvaluationResult(
            flagKey: "f", value: false, reason: .error, errorCode: .general,
            errorMessage: "evaluation budget exceeded: the rule built more than 100000 array elements and string bytes (EvaluationLimits.maximumAllocatedElements)"))

        let rule = try JSONLogicRule(JSONValue(parsing: Self.doublingRule))
        #expect(throws: EvaluationLimitExceeded(limit: .allocatedElements, maximum: 100_000)) {
            try rule.evaluateWithinLimits()
        }
        #expect(rule.evaluate() == .null)
    }

    @Test func doublingStringsStopAtTheElementBudget() throws {
        let rule = try JSONLogicRule(JSONValue(parsing: #"{"reduce": [[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1], {"cat": [{"var": "accumulator"}, {"var": "accumulator"}]}, "ab"]}"#))
        #expect(throws: EvaluationLimitExceeded(limit: .allocatedElements, maximum: 100_000)) {
            try rule.evaluateWithinLimits()
        }
    }

    @Test func longLoopStopsAtTheStepBudgetAndLimitsAreConfigurable() throws {
        let definitions = try FlagDefinitions.loadStrictly([
            Self.source(rule: #"{"==": [{"reduce": [{"var": "items"}, {"+": [{"var": "accumulator"}, 1]}, 0]}, 60000]}"#)
        ])
        let context = EvaluationContext(attributes: ["items": .array(Array(repeating: 1, count: 60_000))])
        let stopped = Self.evaluate(definitions, context: context)
        #expect(stopped.errorCode == .general)
        #expect(stopped.errorMessage == "evaluation budget exceeded: the rule took more than 100000 steps (EvaluationLimits.maximumSteps)")
        #expect(stopped.value == false)

        let generous = EvaluationLimits(maximumSteps: 1_000_000, maximumAllocatedElements: 1_000_000)
        #expect(Self.evaluate(definitions, limits: generous, context: context).variant == "on")
    }

    @Test func defaultLimitsAreDocumented() {
        #expect(EvaluationLimits.default == EvaluationLimits(maximumSteps: 100_000, maximumAllocatedElements: 100_000))
    }
}

/// Carries a result out of a thread: written by the thread before it signals, read after the wait.
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}
