import FlagEvaluation
import Testing

struct JSONLogicRuleTests {
    func evaluate(_ rule: String, _ data: JSONValue = .null, bucketing: FractionalBucketing = .current) throws -> JSONValue {
        try JSONLogicRule(JSONValue(parsing: rule)).evaluate(data: data, bucketing: bucketing)
    }

    static let data: JSONValue = [
        "user": ["name": "ada", "tags": ["beta", "staff"], "age": 36],
        "list": [1, 2, 3, 4],
        "empty": "",
        "nothing": .null,
    ]

    @Test(arguments: [
        // var
        (#"{"var": "user.name"}"#, #""ada""#),
        (#"{"var": ["user.missing", "fallback"]}"#, #""fallback""#),
        (#"{"var": ["nothing", "fallback"]}"#, "null"),  // found null is not "missing"
        (#"{"var": "user.tags.1"}"#, #""staff""#),
        (#"{"var": "list.9"}"#, "null"),
        (#"{"var": {"cat": ["user", ".", "age"]}}"#, "36"),
        // missing, missing_some
        (#"{"missing": ["user.name", "empty", "nothing", "nope"]}"#, #"["empty","nothing","nope"]"#),
        (#"{"missing_some": [1, ["nope", "user.age"]]}"#, "[]"),
        (#"{"missing_some": [2, ["nope", "user.age"]]}"#, #"["nope"]"#),
        // if / ?:
        (#"{"if": [false, 1, null, 2, 3]}"#, "3"),
        (#"{"?:": [{"var": "user.age"}, "old", "new"]}"#, #""old""#),
        // logic
        (#"{"or": [0, "", "x"]}"#, #""x""#),
        (#"{"and": [1, "", "x"]}"#, #""""#),
        (#"{"!": {"var": "empty"}}"#, "true"),
        // comparison incl. between forms
        (#"{"<": [1, {"var": "user.age"}, 40]}"#, "true"),
        (#"{"<=": [36, {"var": "user.age"}, 36]}"#, "true"),
        (#"{"<": [36, {"var": "user.age"}, 40]}"#, "false"),
        (#"{">": [{"var": "user.age"}, 35]}"#, "true"),
        (#"{">=": [{"var": "user.age"}, 37]}"#, "false"),
        // arithmetic
        (#"{"max": [1, "7", 3]}"#, "7"),
        (#"{"min": [4, -2.5]}"#, "-2.5"),
        (#"{"+": [0.1, 0.2]}"#, "0.30000000000000004"),
        (#"{"-": [10, 2.5]}"#, "7.5"),
        (#"{"*": [2, 3, 4]}"#, "24"),
        (#"{"/": [7, 2]}"#, "3.5"),
        (#"{"/": [9223372036854775807, 1]}"#, "9223372036854775807"),
        (#"{"+": [9223372036854775807, 1]}"#, "9223372036854775808.0"),
        (#"{"%": [7, 4]}"#, "3"),
        // arrays
        (#"{"map": [{"var": "list"}, {"+": [{"var": ""}, 1]}]}"#, "[2,3,4,5]"),
        (#"{"filter": [{"var": "list"}, {">": [{"var": ""}, 2]}]}"#, "[3,4]"),
        (#"{"reduce": [{"var": "list"}, {"+": [{"var": "accumulator"}, {"var": "current"}]}, 10]}"#, "20"),
        (#"{"all": [{"var": "list"}, {">": [{"var": ""}, 0]}]}"#, "true"),
        (#"{"all": [[], true]}"#, "false"),
        (#"{"none": [{"var": "list"}, {">": [{"var": ""}, 4]}]}"#, "true"),
        (#"{"some": [{"var": "user.tags"}, {"==": [{"var": ""}, "beta"]}]}"#, "true"),
        (#"{"merge": [[1], 2, [[3]]]}"#, "[1,2,[3]]"),
        (#"{"map": ["not an array", 1]}"#, "[]"),
        // strings
        (#"{"in": ["staff", {"var": "user.tags"}]}"#, "true"),
        (#"{"in": ["d", {"var": "user.name"}]}"#, "true"),
        (#"{"in": [1, "a1b"]}"#, "true"),
        (#"{"in": ["x", 42]}"#, "false"),
        (#"{"cat": ["v", 1.0, "-", 2.50]}"#, #""v1-2.5""#),
        (#"{"substr": ["flagd", 1, 3]}"#, #""lag""#),
        (#"{"substr": ["flagd", -3]}"#, #""agd""#),
        (#"{"substr": ["flagd", 1, -1]}"#, #""lag""#),
        (#"{"substr": ["héllo😀", -2]}"#, #""😀""#),  // UTF-16 code units, like JavaScript
        // flagd string operators
        (#"{"starts_with": [{"var": "user.name"}, "ad"]}"#, "true"),
        (#"{"ends_with": [{"var": "user.name"}, "da"]}"#, "true"),
        (#"{"ends_with": [{"var": "user.name"}, "x"]}"#, "false"),
        (#"{"starts_with": [{"var": "user.age"}, "3"]}"#, "null"),
        (#"{"starts_with": ["abc"]}"#, "null"),
    ])
    func operators(rule: String, expected: String) throws {
        let result = try evaluate(rule, Self.data)
        let expectedValue = try JSONValue(parsing: expected)
        #expect(result == expectedValue && result.typeName == expectedValue.typeName, "\(rule) gave \(result)")
    }

    @Test(arguments: [
        ("1.2.3", "=", "1.2.3", true), ("v1.2.3", "=", "1.2.3", true), ("1.2.3+build.5", "=", "1.2.3+other", true),
        ("1.2.3", "!=", "1.2.4", true), ("1.2.3-alpha", "<", "1.2.3", true), ("1.2.3-alpha.1", "<", "1.2.3-alpha.beta", true),
        ("1.2.3-alpha.2", "<", "1.2.3-alpha.10", true), ("1.2.3-alpha", "<", "1.2.3-alpha.1", true),
        ("1.2.3-beta", ">", "1.2.3-alpha.9", true), ("1.10.0", ">", "1.9.0", true), ("1.2.3", "<=", "1.2.3", true),
        ("1.2.3", ">=", "1.2.4", false), ("1.9.9", "^", "1.0.0", true), ("2.0.0", "^", "1.0.0", false),
        ("1.2.9", "~", "1.2.0", true), ("1.3.0", "~", "1.2.0", false), ("1", "=", "1.0.0", true), ("1.2", "=", "1.2.0", true),
    ])
    func semanticVersions(version: String, op: String, target: String, holds: Bool) throws {
        let rule = #"{"sem_ver": ["\#(version)", "\#(op)", "\#(target)"]}"#
        #expect(try evaluate(rule) == .bool(holds), "\(rule)")
    }

    @Test(arguments: ["1.2.3.4", "01.2.3", "1.2.3-", "1.2.3-01", "x", "", "1.2-beta", "1..3"])
    func invalidSemanticVersionsGiveNull(version: String) throws {
        #expect(try evaluate(#"{"sem_ver": ["\#(version)", "=", "1.2.3"]}"#) == .null)
    }

    @Test func semVerReadsNumbersAndRejectsBadOperators() throws {
        #expect(try evaluate(#"{"sem_ver": [{"var": "v"}, ">", "1.1"]}"#, ["v": 1.2]) == .bool(true))
        #expect(try evaluate(#"{"sem_ver": [{"var": "v"}, "=", "2.0.0"]}"#, ["v": 2]) == .bool(true))
        #expect(try evaluate(#"{"sem_ver": ["1.0.0", "==", "1.0.0"]}"#) == .null)
        #expect(try evaluate(#"{"sem_ver": ["1.0.0", "="]}"#) == .null)
    }

    @Test func murmurHashBucketsMatchFlagd() throws {
        // Bucketing key "flagKey" + "user" against known assignments from the flagd test kit.
        let rule = #"{"fractional": [{"cat": ["fractional-flag", {"var": "name"}]}, ["clubs", 25], ["diamonds", 25], ["hearts", 25], ["spades", 25]]}"#
        #expect(try evaluate(rule, ["name": "jack"], bucketing: .current) == "hearts")
        #expect(try evaluate(rule, ["name": "jack"], bucketing: .legacy) == "spades")
    }

    @Test func fractionalShorthandHashesFlagKeyAndTargetingKey() throws {
        let rule = #"{"fractional": [["heads"], ["tails", 1]]}"#
        let data: JSONValue = ["targetingKey": "jon@company.com", "$flagd": ["flagKey": "fractional-flag-shorthand"]]
        #expect(try evaluate(rule, data) == "heads")
        #expect(try evaluate(rule, ["$flagd": ["flagKey": "x"]]) == .null)  // no targeting key
    }

    @Test func fractionalSpreadsByWeight() throws {
        // Deterministic: the same keys always land in the same buckets, in proportion to weight.
        let rule = try JSONLogicRule(JSONValue(parsing: #"{"fractional": [{"var": "k"}, ["a", 1], ["b", 3]]}"#))
        var counts: [JSONValue: Int] = [:]
        for index in 0..<4000 {
            counts[rule.evaluate(data: ["k": .string("user-\(index)")]), default: 0] += 1
        }
        #expect(counts.keys.count == 2)
        #expect((800...1200).contains(counts["a"] ?? 0), "\(counts)")
        #expect(rule.evaluate(data: ["k": "user-1"]) == rule.evaluate(data: ["k": "user-1"]))
    }

    @Test(arguments: [
        #"{"fractional": []}"#,
        #"{"fractional": [{"var": "k"}]}"#,
        #"{"fractional": [{"var": "missing"}, ["a", 1]]}"#,
        #"{"fractional": [{"var": "k"}, ["a", 0], ["b", 0]]}"#,
        #"{"fractional": [{"var": "k"}, "a"]}"#,
        #"{"fractional": [{"var": "k"}, ["a", "1"]]}"#,
        #"{"fractional": [{"var": "k"}, ["a", 2147483647], ["b", 1]]}"#,
    ])
    func fractionalWithUnusableInputGivesNull(rule: String) throws {
        #expect(try evaluate(rule, ["k": "key"]) == .null)
    }

    @Test func fractionalClampsNegativeAndComputedWeights() throws {
        #expect(try evaluate(#"{"fractional": [{"var": "k"}, ["a", -5], ["b", 1]]}"#, ["k": "x"]) == "b")
        #expect(try evaluate(#"{"fractional": [{"var": "k"}, ["a", {"-": [{"var": "t"}, 10]}], ["b", 0]]}"#, ["k": "x", "t": 12]) == "a")
        #expect(try evaluate(#"{"fractional": [{"var": "k"}, [true, 1]]}"#, ["k": "x"]) == .bool(true))
    }

    @Test func fractionalVariantsMayBeComputed() throws {
        let rule = #"{"fractional": [{"var": "k"}, [{"cat": ["v-", {"var": "suffix"}]}, 1], ["never", 0]]}"#
        #expect(try evaluate(rule, ["k": "x", "suffix": "new"]) == "v-new")
    }

    // MARK: - Malformed rules

    @Test func unknownOperatorIsAnError() {
        #expect {
            _ = try JSONLogicRule(JSONValue(parsing: #"{"if": [{"regex": ["a", "b"]}, 1, 2]}"#))
        } throws: { error in
            "\(error)".contains(#"unknown operator "regex""#)
        }
    }

    @Test func referenceToMissingEvaluatorIsAnError() {
        #expect {
            _ = try JSONLogicRule(JSONValue(parsing: #"{"$ref": "nope"}"#), evaluators: ["other": true])
        } throws: { error in
            "\(error)".contains(#""$ref": "nope" refers to an evaluator that is not defined"#)
        }
    }

    @Test func circularReferencesAreAnError() {
        let evaluators: [String: JSONValue] = [
            "a": ["and": [["$ref": "b"], true]],
            "b": ["or": [["$ref": "a"]]],
            "self": ["$ref": "self"],
        ]
        #expect {
            _ = try JSONLogicRule(["$ref": "a"], evaluators: evaluators)
        } throws: { error in
            "\(error)".contains(#""a" -> "b" -> "a""#)
        }
        #expect(throws: JSONLogicError.self) { try JSONLogicRule(["$ref": "self"], evaluators: evaluators) }
        #expect(throws: JSONLogicError.self) { try JSONLogicRule(["$ref": 3], evaluators: evaluators) }
    }

    @Test func referencesResolveAtCompileTime() throws {
        let evaluators: [String: JSONValue] = ["isStaff": ["in": ["staff", ["var": "tags"]]], "both": ["and": [["$ref": "isStaff"], ["$ref": "isStaff"]]]]
        let rule = try JSONLogicRule(["if": [["$ref": "both"], "yes", "no"]], evaluators: evaluators)
        #expect(rule.evaluate(data: ["tags": ["staff"]]) == "yes")
        #expect(rule.evaluate(data: ["tags": []]) == "no")
        #expect(rule.schemaViolations.isEmpty)
    }

    @Test(arguments: [
        (#"{"==": [1]}"#, "==: expects an array of 2 arguments, got 1 arguments", "false"),
        (#"{"==": [1, 1, 1]}"#, "==: expects an array of 2 arguments, got 3 arguments", "true"),
        (#"{"reduce": [[1], {"var": "current"}]}"#, "reduce: expects an array of 3 arguments", "1"),
        (#"{"sem_ver": ["1.0.0", "="]}"#, "sem_ver: expects [version, operator, version], got 2 arguments", "null"),
        (#"{"starts_with": ["abc"]}"#, "starts_with: expects an array of 2 arguments", "null"),
        (#"{"!": [1, 2]}"#, "!: expects 1 argument, got 2", "false"),
        (#"{"missing_some": [1]}"#, "missing_some: expects [minimum count, [key strings]]", "[]"),
    ])
    func wrongArityIsReportedAndEvaluatesLeniently(rule: String, violation: String, result: String) throws {
        let compiled = try JSONLogicRule(JSONValue(parsing: rule))
        #expect(compiled.schemaViolations.contains { $0.contains(violation) }, "\(compiled.schemaViolations)")
        #expect(compiled.evaluate() == (try JSONValue(parsing: result)))
    }

    @Test func objectsWithSeveralKeysAreLiterals() throws {
        let compiled = try JSONLogicRule(JSONValue(parsing: #"{"a": 1, "b": 2}"#))
        #expect(compiled.evaluate() == ["a": 1, "b": 2])
        #expect(compiled.schemaViolations.count == 1)
    }
}
