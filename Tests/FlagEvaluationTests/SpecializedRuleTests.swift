import FlagEvaluation
import Foundation
import Testing

/// Common rule shapes compile to specialised nodes: `in` with a literal array, `==` / `!=` /
/// `===` / `!==` with a literal on one side, `var` of one key. Each must give what the general
/// operation gives, and count the same steps. The general form of a rule is the same rule with
/// the literal computed (`{"if": [true, literal]}` is the literal, two steps later) or the path
/// computed (`{"var": {"cat": [path]}}`), which the compiler cannot specialise.
struct SpecializedRuleTests {
    static let values: [String] = [
        "null", "true", "false", "0", "1", "1.0", "1.5", "-0", #""1""#, #""""#, #""NZ""#, #""nz""#, #""true""#,
        "[]", #"["NZ"]"#, "[1]", #"[1, "1"]"#, #"{"a": 1, "b": 2}"#,
    ]
    /// Data values for `{"var": "x"}`: every literal above, and `x` missing.
    static let data: [JSONValue] = [JSONValue.object([:])] + values.map { ["x": try! JSONValue(parsing: $0)] }

    static func evaluate(_ rule: String, _ data: JSONValue) throws -> JSONValue {
        try JSONLogicRule(JSONValue(parsing: rule)).evaluate(data: data)
    }

    /// The fewest steps `rule` needs with `data`.
    static func steps(_ rule: String, _ data: JSONValue) throws -> Int {
        let compiled = try JSONLogicRule(JSONValue(parsing: rule))
        for limit in 1...100 {
            if (try? compiled.evaluateWithinLimits(data: data, limits: EvaluationLimits(maximumSteps: limit))) != nil { return limit }
        }
        return -1
    }

    @Test(arguments: ["==", "!=", "===", "!=="])
    func comparisonWithALiteralAgreesWithTheGeneralOperation(op: String) throws {
        for literal in Self.values {
            for data in Self.data {
                let computed = #"{"if": [true, \#(literal)]}"#
                let pairs = [
                    (#"{"\#(op)": [{"var": "x"}, \#(literal)]}"#, #"{"\#(op)": [{"var": "x"}, \#(computed)]}"#),
                    (#"{"\#(op)": [\#(literal), {"var": "x"}]}"#, #"{"\#(op)": [\#(computed), {"var": "x"}]}"#),
                ]
                for (specialised, general) in pairs {
                    let expected = try Self.evaluate(general, data)
                    #expect(try Self.evaluate(specialised, data) == expected, "\(specialised) with \(data.serialized())")
                    #expect(try Self.steps(specialised, data) == Self.steps(general, data) - 2, "\(specialised)")
                }
            }
        }
    }

    @Test func membershipInALiteralArrayAgreesWithTheGeneralOperation() throws {
        let haystacks = [
            "[]", #"["pro", "team"]"#, #"[1, "1", true, null]"#, "[1.0, 2]", #"[["NZ"], {"a": 1, "b": 2}, ""]"#, #"["NZ", "nz"]"#,
        ]
        for haystack in haystacks {
            for data in Self.data {
                let specialised = #"{"in": [{"var": "x"}, \#(haystack)]}"#
                let general = #"{"in": [{"var": "x"}, {"if": [true, \#(haystack)]}]}"#
                let expected = try Self.evaluate(general, data)
                #expect(try Self.evaluate(specialised, data) == expected, "\(specialised) with \(data.serialized())")
                #expect(try Self.steps(specialised, data) == Self.steps(general, data) - 2, "\(specialised)")
            }
        }
        // A rule as the needle, and a needle that is a literal.
        #expect(try Self.evaluate(#"{"in": [{"cat": ["p", "ro"]}, ["pro", "team"]]}"#, .null) == true)
        #expect(try Self.evaluate(#"{"in": ["team", ["pro", "team"]]}"#, .null) == true)
        #expect(try Self.evaluate(#"{"in": [1, ["1"]]}"#, .null) == false)
    }

    @Test func oneKeyPathsAgreeWithComputedPaths() throws {
        let data: [JSONValue] = [
            .null, 5, "text", ["a", "b", "c"],
            ["a": 1, "b": .null, "0": "zero", "targetingKey": "t", "$flagd": ["flagKey": "k"]],
        ]
        for key in ["a", "b", "missing", "0", "1", "01", "-1", "targetingKey", "$flagd", "A"] {
            for value in data {
                for fallback in ["", #", "fallback""#] {
                    let specialised = #"{"var": ["\#(key)"\#(fallback)]}"#
                    let general = #"{"var": [{"cat": ["\#(key)"]}\#(fallback)]}"#
                    #expect(try Self.evaluate(specialised, value) == Self.evaluate(general, value), "\(specialised) with \(value.serialized())")
                }
            }
        }
    }

    @Test func oneKeyPathsInAFlagSeeTheContextAsFlagdBuildsIt() throws {
        let source = FlagSource(name: "flags.json", json: #"""
            {"flags": {
              "echo": {"state": "ENABLED", "variants": {"t": "t", "k": "k", "none": "none", "plan": "plan"}, "defaultVariant": "none",
                       "targeting": {"if": [{"==": [{"var": "targetingKey"}, "t"]}, "t",
                                            {"==": [{"var": "$flagd.flagKey"}, "k"]}, "k",
                                            {"in": [{"var": "plan"}, ["pro"]]}, "plan", "none"]}}
            }}
            """#)
        let (definitions, errors) = FlagDefinitions.load([source])
        #expect(errors.isEmpty)
        let evaluator = FlagEvaluator(definitions: definitions)
        let now = Date(timeIntervalSince1970: 0)
        func variant(_ context: EvaluationContext) -> String? {
            evaluator.evaluate(flag: "echo", type: .string, default: "x", context: context, now: now).variant
        }
        #expect(variant(EvaluationContext(targetingKey: "t")) == "t")
        // A `targetingKey` attribute is seen when the context has no targeting key of its own.
        #expect(variant(EvaluationContext(attributes: ["targetingKey": "t"])) == "t")
        #expect(variant(EvaluationContext(targetingKey: "u", attributes: ["plan": "pro"])) == "plan")
        #expect(variant(EvaluationContext(attributes: ["plan": "free"])) == "none")
        #expect(variant(EvaluationContext()) == "none")
    }

    /// An array of scalars compiles to one literal; its elements still count toward the depth
    /// limit as nodes one level below it.
    @Test func scalarArraysAreLiteralsWithinTheDepthLimit() throws {
        func nested(_ levels: Int) -> JSONValue {
            var rule: JSONValue = [1, "two", .null, 3.5, false]
            for _ in 0..<levels { rule = ["!!": [rule]] }
            return rule
        }
        // The array at depth 99 and its elements at 100: the deepest allowed.
        #expect(try JSONLogicRule(nested(98)).evaluate() == true)
        #expect(throws: JSONLogicError.self) { try JSONLogicRule(nested(99)) }
        #expect(try JSONLogicRule([1, "two", .null]).evaluate() == [1, "two", .null])
        #expect(try JSONLogicRule(["merge": [[1, 2], [3]]]).evaluate() == [1, 2, 3])
        // Mixed arrays still compile element by element.
        #expect(try JSONLogicRule([1, ["var": "a"]]).evaluate(data: ["a": 2]) == [1, 2])
    }

    /// `fractional` with literal buckets reads the weights once; the general operator runs when
    /// a bucket is computed. The general form here computes the last bucket's weight
    /// (`{"+": [w]}`: three more steps each time that bucket is evaluated, twice when chosen).
    @Test(arguments: [FractionalBucketing.current, .legacy, .v3])
    func fractionalWithLiteralBucketsAgreesWithTheGeneralOperator(bucketing: FractionalBucketing) throws {
        let bucketLists: [[(variant: String, weight: String?)]] = [
            [("\"a\"", "25"), ("\"b\"", "25"), ("\"c\"", "25"), ("\"d\"", "25")],
            [("\"a\"", nil), ("\"b\"", "3")],
            [("\"a\"", "0"), ("\"b\"", "2.7"), ("\"c\"", "-4"), ("\"d\"", "1")],
            [("true", "1"), ("null", "1"), ("7", "2")],
        ]
        let firsts = ["", #"{"var": "key"}, "#, #""fixed", "#]
        let data: [JSONValue] = [
            ["targetingKey": "user-1", "$flagd": ["flagKey": "flag"], "key": "k-1"],
            ["targetingKey": "user-2", "$flagd": ["flagKey": "flag"], "key": 12],
            ["targetingKey": "", "$flagd": ["flagKey": "flag"], "key": .null],
            ["$flagd": ["flagKey": "flag"], "key": ["x", 5]],
            ["targetingKey": "user-3", "key": ["nested": true, "other": 1]],
            .null,
        ]
        for buckets in bucketLists {
            for first in firsts {
                let literal = buckets.map { "[\($0.variant)\($0.weight.map { ", \($0)" } ?? "")]" }
                var computed = literal
                let last = buckets[buckets.count - 1]
                computed[computed.count - 1] = "[\(last.variant), {\"+\": [\(last.weight ?? "1")]}]"
                let specialised = #"{"fractional": [\#(first)\#(literal.joined(separator: ", "))]}"#
                let general = #"{"fractional": [\#(first)\#(computed.joined(separator: ", "))]}"#
                for value in data {
                    let rule = try JSONLogicRule(JSONValue(parsing: specialised))
                    let generalRule = try JSONLogicRule(JSONValue(parsing: general))
                    let result = rule.evaluate(data: value, bucketing: bucketing)
                    let expected = generalRule.evaluate(data: value, bucketing: bucketing)
                    #expect(result == expected, "\(specialised) with \(value.serialized())")
                    func steps(_ rule: JSONLogicRule) -> Int? {
                        (1...60).first { limit in
                            (try? rule.evaluateWithinLimits(
                                data: value, bucketing: bucketing, limits: EvaluationLimits(maximumSteps: limit))) != nil
                        }
                    }
                    // Steps compared where the buckets were evaluated (a variant was chosen).
                    let lastValue = try JSONValue(parsing: last.variant)
                    if !expected.isNull, !lastValue.isNull {
                        let extra = expected == lastValue ? 6 : 3
                        #expect(steps(rule).map { $0 + extra } == steps(generalRule), "\(specialised) with \(value.serialized())")
                    }
                }
            }
        }
    }

    @Test func fractionalWhoseBucketingValueIsAnArrayUsesItAsTheFirstBucket() throws {
        // Current bucketing: a bucketing rule that gives an array makes every argument a bucket
        // (the specialised node hands over to the general operator).
        let rule = try JSONLogicRule(JSONValue(parsing: #"{"fractional": [{"var": "first"}, ["a", 1], ["b", 1]]}"#))
        let general = try JSONLogicRule(JSONValue(parsing: #"{"fractional": [{"var": "first"}, ["a", 1], ["b", {"+": [1]}]]}"#))
        var chosen: Set<JSONValue> = []
        for index in 0..<40 {
            let data: JSONValue = ["first": ["z", 50], "targetingKey": .string("user-\(index)"), "$flagd": ["flagKey": "f"]]
            let value = rule.evaluate(data: data)
            #expect(value == general.evaluate(data: data))
            chosen.insert(value)
        }
        #expect(chosen.contains("z"))
    }
}
