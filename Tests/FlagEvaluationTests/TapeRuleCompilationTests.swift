import Foundation
import JSONSyntax
import Testing

@testable import FlagEvaluation

/// Loading compiles targeting rules from a `JSONTape` (the rule's nodes, parsed without a
/// dictionary per object) rather than from a `JSONValue`. Both ways must compile the same rule:
/// the same error or schema notes, the same node count, and the same results.
struct TapeRuleCompilationTests {
    /// What compiling a rule one way gives, as comparable text and values.
    struct Outcome: Equatable, CustomStringConvertible {
        var error: String?
        var violations: [String] = []
        var compiledNodes = 0
        var results: [String] = []

        var description: String {
            "error: \(error ?? "-"), notes: \(violations), nodes: \(compiledNodes), results: \(results)"
        }
    }

    /// The text on a tape; a syntax error is reported as `JSONValue(parsing:)` reports it.
    static func tape(of text: String) throws -> (tape: JSONTape<JSONValue>, root: Int) {
        var tape = JSONTape<JSONValue>()
        do {
            let root = try JSONParser<JSONValueTreeBuilder>.parse(Data(text.utf8)) { parser throws(JSONSyntaxError) in
                try parser.parseTape(into: &tape)
            }
            return (tape, root)
        } catch {
            throw JSONParseError(reason: error.reasonWithPath, line: error.line, column: error.column)
        }
    }

    static func outcome(
        _ text: String,
        evaluators: [String: JSONValue],
        data: [JSONValue],
        throughTape: Bool
    ) throws -> Outcome {
        var compiler = JSONLogicCompiler(evaluators: evaluators)
        var outcome = Outcome()
        do {
            let rule: CompiledRule
            if throughTape {
                let (tape, root) = try tape(of: text)
                rule = try compiler.compileRule(tape, at: root)
            } else {
                rule = try compiler.compileRule(JSONValue(parsing: text))
            }
            for value in data {
                let result = rule.evaluate(.value(value), LogicEnvironment(data: value, bucketing: .current), limits: .default)
                switch result {
                case .success(let value): outcome.results.append(value.serialized())
                case .failure(let exceeded): outcome.results.append("exceeded \(exceeded)")
                }
            }
        } catch {
            outcome.error = "\(error)"
        }
        outcome.violations = compiler.schemaViolations
        outcome.compiledNodes = compiler.compiledNodeCount
        return outcome
    }

    static func expectSameOutcome(
        _ text: String,
        evaluators: [String: JSONValue] = [:],
        data: [JSONValue] = [.null],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let throughValue = try outcome(text, evaluators: evaluators, data: data, throughTape: false)
        let throughTape = try outcome(text, evaluators: evaluators, data: data, throughTape: true)
        #expect(throughTape == throughValue, "\(text)", sourceLocation: sourceLocation)
    }

    static let data: [JSONValue] = [
        .null,
        ["plan": "pro", "country": "NZ", "email": "a@example.com", "version": "1.4.2", "n": 3, "list": [1, 2, 3]],
        ["plan": "free", "country": "FR", "email": "b@example.org", "version": "2.0.0", "n": -1.5, "list": []],
        ["$flagd": ["flagKey": "f", "timestamp": 1_800_000_000], "targetingKey": "user-1", "plan": ["pro"]],
    ]

    /// Rules of every shape the compiler treats apart: each operator group, literals where
    /// rules are expected, objects that are not rules, `var` forms, `$ref`, and schema departures.
    static let rules: [String] = [
        #"true"#, #"null"#, #"5"#, #""text""#, #"[]"#, #"{}"#, #"[1, "a", null]"#, #"[[1], [2, [3]]]"#, #"[{"var": "n"}, 1]"#,
        #"{"a": 1, "b": 2}"#, #"{"if": [true, {"a": 1, "b": 2}, 3]}"#, #"[{}, {"x": 1, "y": 2}]"#,
        #"{"if": [{"and": [{"in": [{"var": "plan"}, ["pro", "team"]]}, {"==": [{"var": "country"}, "NZ"]}]}, "on", "off"]}"#,
        #"{"if": [{"in": [{"var": "plan"}, ["pro", "team"]]}, "on", "off"]}"#,
        #"{"==": ["NZ", {"var": "country"}]}"#, #"{"!==": [{"var": "n"}, 3]}"#, #"{"==": [1, 1]}"#, #"{"==": [{"var": "n"}]}"#,
        #"{"!": true}"#, #"{"!": [true, false]}"#, #"{"!!": [[]]}"#, #"{"if": []}"#, #"{"if": 5}"#, #"{"and": "x"}"#,
        #"{"<": [1, {"var": "n"}, 5]}"#, #"{"<": [1]}"#, #"{"+": [1, 2, {"var": "n"}]}"#, #"{"*": [2]}"#, #"{"-": 4}"#,
        #"{"max": [1, {"var": "n"}]}"#, #"{"cat": ["a", {"var": "plan"}]}"#, #"{"substr": ["hello", 1, 2]}"#,
        #"{"map": [{"var": "list"}, {"*": [{"var": ""}, 2]}]}"#, #"{"filter": [{"var": "list"}, {">": [{"var": ""}, 1]}]}"#,
        #"{"reduce": [{"var": "list"}, {"+": [{"var": "current"}, {"var": "accumulator"}]}, 0]}"#,
        #"{"all": [{"var": "list"}, {">": [{"var": ""}, 0]}]}"#, #"{"merge": [[1], 2, [[3]]]}"#,
        #"{"in": ["a", "cat"]}"#, #"{"in": [{"var": "plan"}, {"var": "list"}]}"#,
        #"{"var": "plan"}"#, #"{"var": ["plan", "none"]}"#, #"{"var": ""}"#, #"{"var": []}"#, #"{"var": 1}"#, #"{"var": 1.5}"#,
        #"{"var": null}"#, #"{"var": "$flagd.flagKey"}"#, #"{"var": "$flagd.nope"}"#, #"{"var": "a.b.c"}"#, #"{"var": "targetingKey"}"#,
        #"{"var": [{"cat": ["pl", "an"]}]}"#, #"{"var": [{"var": "x"}, [1]]}"#, #"{"var": [5, {"a": 1}]}"#,
        #"{"missing": ["a", "plan"]}"#, #"{"missing": [1]}"#, #"{"missing_some": [1, ["a", "plan"]]}"#, #"{"missing_some": [1]}"#,
        #"{"starts_with": [{"var": "email"}, "a@"]}"#, #"{"ends_with": [{"var": "email"}, 5]}"#, #"{"starts_with": "x"}"#,
        #"{"sem_ver": [{"var": "version"}, ">=", "1.2.0"]}"#, #"{"sem_ver": ["1.0", "~", {"var": "version"}]}"#, #"{"sem_ver": ["1.0.0", "<>", "2.0.0"]}"#,
        #"{"fractional": [["a", 50], ["b", 50]]}"#, #"{"fractional": [{"var": "email"}, ["a", 25], ["b", 75]]}"#,
        #"{"fractional": ["literal", ["a", 1]]}"#, #"{"fractional": [["a", -1], ["b"], ["c", 1, 2], 5]}"#, #"{"fractional": [["a", {"var": "n"}], ["b", 1]]}"#,
        #"{"fractional": []}"#, #"{"fractional": {"var": "x"}}"#,
        // Buckets the tape path reads directly, and shapes just outside what it reads.
        #"{"fractional": [["a"], ["b"]]}"#, #"{"fractional": [["a", 0], ["b", 3]]}"#, #"{"fractional": [["a", 0], ["b", 0]]}"#,
        #"{"fractional": [[1, 50], [null, 25], [true, 25], [2.5, 1]]}"#, #"{"fractional": [["a", 25.0], ["b", 75]]}"#,
        #"{"fractional": [["a", 2147483647], ["b", 1]]}"#, #"{"fractional": [["a", 2147483646], ["b", 1]]}"#,
        #"{"fractional": [["a", 9223372036854775807]]}"#, #"{"fractional": [["a", 3000000000], ["b", 1]]}"#,
        #"{"fractional": [["a", -5], ["b", 5]]}"#, #"{"fractional": [["a", -5], ["b", 10]]}"#,
        #"{"fractional": [["a", 1], ["b", 9223372036854775807]]}"#, #"{"fractional": [[{"x": 1}, 1], ["b", 1]]}"#, #"{"fractional": [[["x"], 1]]}"#,
        #"{"fractional": [["a", "1"], ["b", 1]]}"#, #"{"fractional": [["a", 1], []]}"#, #"{"fractional": [["a", 1], "b"]}"#,
        #"{"if": [{"fractional": [["on", 1], ["off", 1]]}, {"fractional": [["x", 10]]}, null]}"#,
        // Lists the tape path reads directly, and shapes just outside what it reads.
        #"{"in": [{"var": "plan"}, ["pro", 1, null, true, 2.5]]}"#, #"{"in": ["pro", ["pro"]]}"#, #"{"in": [{"var": "plan"}, []]}"#,
        #"{"in": [{"var": "plan"}, ["pro", ["team"]]]}"#, #"{"in": [{"var": "plan"}, ["pro", {"var": "plan"}]]}"#,
        #"{"in": [{"var": "plan"}, "pro team"]}"#, #"{"in": [{"var": "plan"}, ["pro"], 1]}"#, #"{"in": [{"$ref": "pro"}, [true]]}"#,
        #"{"in": [{"nope": 1}, ["pro"]]}"#, #"{"in": [{"var": 5}, ["pro"]]}"#, #"{"in": [[1, [2]], [1]]}"#,
        #"{"$ref": "pro"}"#, #"{"or": [{"$ref": "pro"}, {"$ref": "pro"}]}"#, #"{"$ref": "missing"}"#, #"{"$ref": 5}"#, #"{"$ref": "loop"}"#,
        #"{"nope": [1]}"#, #"{"if": [true, {"nope": 1}]}"#, #"{"if": [{"var": "n"}, {"in": [{"var": "plan"}, []]}, {"?:": [false, 1, 2]}]}"#,
    ]

    static let evaluators: [String: JSONValue] = [
        "pro": ["in": [["var": "plan"], ["pro", "team"]]],
        "loop": ["$ref": "loop"],
    ]

    @Test(arguments: rules)
    func aRuleCompilesTheSameFromATapeAsFromAValue(rule: String) throws {
        try Self.expectSameOutcome(rule, evaluators: Self.evaluators, data: Self.data)
    }

    @Test(arguments: [98, 99, 100, 101])
    func nestingAtAndPastTheDepthLimitCompilesTheSameFromATape(levels: Int) throws {
        let arrays = String(repeating: "[", count: levels) + String(repeating: "]", count: levels)
        try Self.expectSameOutcome(arrays)
        let scalars = String(repeating: "[", count: levels - 1) + "1" + String(repeating: "]", count: levels - 1)
        try Self.expectSameOutcome(scalars)
        let operators = String(repeating: #"{"!": "#, count: levels - 1) + "true" + String(repeating: "}", count: levels - 1)
        try Self.expectSameOutcome(operators)
        let rollout = String(repeating: #"{"!": "#, count: levels - 3) + #"{"fractional": [["a", 1], ["b", 2]]}"#
            + String(repeating: "}", count: levels - 3)
        try Self.expectSameOutcome(rollout)
        let list = String(repeating: #"{"!": "#, count: levels - 3) + #"{"in": [{"var": "plan"}, ["pro", "team"]]}"#
            + String(repeating: "}", count: levels - 3)
        try Self.expectSameOutcome(list)
        let references = #"{"if": [\#(String(repeating: "[", count: levels - 3))"#
            + #"{"$ref": "pro"}"# + String(repeating: "]", count: levels - 3) + ", 1, 2]}"
        try Self.expectSameOutcome(references, evaluators: Self.evaluators)
    }

    @Test(ConformanceMaterial.required("jsonlogic/compatible.json"))
    func theJSONLogicCorpusCompilesTheSameFromATape() throws {
        let corpus = try JSONValue(parsing: ConformanceFiles.data("jsonlogic/compatible.json"))
        let cases = (corpus.arrayValue ?? []).filter { $0.objectValue != nil }
        #expect(cases.count == 278)
        for testCase in cases {
            try Self.expectSameOutcome((testCase["rule"] ?? .null).serialized(), data: [testCase["data"] ?? .null])
        }
    }

    // MARK: - The tape

    /// Every JSON text of the corpus and the rules above reads back from its tape as the same value.
    @Test func aTapeHoldsTheSameValueAsTheTree() throws {
        var texts = Self.rules + Self.data.map { $0.serialized() }
        if ConformanceFiles.shouldRun("jsonlogic/compatible.json") {
            let corpus = try JSONValue(parsing: ConformanceFiles.data("jsonlogic/compatible.json"))
            for testCase in corpus.arrayValue ?? [] where testCase.objectValue != nil {
                texts.append(testCase.serialized())
            }
        }
        texts.append(#"{"a": {"b": [1, 2.5, -0.0, "x\u00e9\n", true, false, null, {}, []], "c": {"d": {"e": 1}}}, "f": "\ud83d\ude00"}"#)
        for text in texts {
            let (tape, root) = try Self.tape(of: text)
            #expect(tape.value(at: root) == (try JSONValue(parsing: text)), "\(text)")
            #expect(Int(tape.nodes[root].end) == tape.nodes.count)
        }
    }

    /// Several values appended to one tape keep their own nodes; children are found in order.
    @Test func oneTapeHoldsSeveralValues() throws {
        var tape = JSONTape<JSONValue>()
        var roots: [Int] = []
        for text in [#"{"x": [1, 2], "y": {"z": null}}"#, #"[true, "s", {"k": []}]"#, #"7"#] {
            roots.append(try JSONParser<JSONValueTreeBuilder>.parse(Data(text.utf8)) { parser throws(JSONSyntaxError) in
                try parser.parseTape(into: &tape)
            })
        }
        #expect(tape.value(at: roots[0]) == ["x": [1, 2], "y": ["z": .null]])
        #expect(tape.value(at: roots[1]) == [true, "s", ["k": []]])
        #expect(tape.value(at: roots[2]) == 7)
        #expect(Array(tape.children(of: roots[0])).map { tape.key(of: $0) } == ["x", "y"])
        #expect(Array(tape.children(of: roots[1])).map { tape.typeName(at: $0) } == ["boolean", "string", "object"])
        #expect(tape.nodes[roots[0]].count == 2 && tape.nodes[roots[1]].count == 3)
    }

    /// Malformed input fails on a tape with the error a tree parse gives, at the same place.
    @Test(arguments: [
        "", "[", "{", #"{"a"}"#, #"{"a": }"#, #"{"a": 1,}"#, "[1,]", "[1 2]", #"{"a": 1 "b": 2}"#, #"{"a": 1, "a": 2}"#,
        #"{"x": {"a": 1, "b": [{"c": 1, "c": 2}]}}"#, "[tru]", "[01]", "[1e400]", "[99999999999999999999]", #"["\q"]"#,
        "[\"a\u{01}\"]", #"{"a": [1, {"b": nul}]}"#, "[1] x",
        String(repeating: "[", count: 101) + String(repeating: "]", count: 101),
        "{\"k\": [" + String(repeating: "{\"a\": ", count: 99) + "1" + String(repeating: "}", count: 99) + "]}",
    ])
    func aMalformedValueFailsOnATapeAsInATree(text: String) {
        var tape = JSONTape<JSONValue>()
        let treeError: JSONSyntaxError?
        do {
            _ = try JSONParser<JSONValueTreeBuilder>.parse(Data(text.utf8))
            treeError = nil
        } catch {
            treeError = error
        }
        let tapeError: JSONSyntaxError?
        do {
            _ = try JSONParser<JSONValueTreeBuilder>.parse(Data(text.utf8)) { parser throws(JSONSyntaxError) in
                try parser.parseTape(into: &tape)
            }
            tapeError = nil
        } catch {
            tapeError = error
        }
        #expect(treeError != nil, "\(text) should not parse")
        #expect(tapeError?.description == treeError?.description, "\(text)")
    }

    /// Large objects (more than 16 keys, where the parser sorts keys rather than comparing each
    /// pair) report the first key, in document order, that repeats an earlier one, at its place:
    /// checked against a direct search over many generated key orders with several repeated keys.
    @Test func aLargeObjectReportsItsFirstRepeatedKeyInDocumentOrder() {
        for round in 0..<200 {
            let count = 17 + round % 40
            let alphabet = max(2, count - 1 - round % 5)
            // Scattered, repeatable key choices (multiplicative hashing of the position and round).
            let keys = (0..<count).map { index in "k\(((index &* 2_654_435_761 &+ round &* 40_503) >> 7) % alphabet)" }
            var text = "{"
            var offsets: [Int] = []
            for (index, key) in keys.enumerated() {
                if index > 0 { text += ", " }
                offsets.append(text.utf8.count)
                text += "\"\(key)\": \(index)"
            }
            text += "}"
            let expected = keys.indices.first { index in keys[..<index].contains(keys[index]) }
            let message = expected.map { index in
                "invalid JSON at line 1, column \(offsets[index] + 1): duplicate key \"\(keys[index])\" in an object; each key may appear only once"
            }
            // A tree (a dictionary per object) and a tape (keys checked once the object ends).
            #expect(Self.parseError { _ = try JSONValue(parsing: text) } == message, "\(text)")
            #expect(Self.parseError { _ = try Self.tape(of: text) } == message, "\(text)")
        }
    }

    static func parseError(_ parse: () throws -> Void) -> String? {
        do {
            try parse()
            return nil
        } catch {
            return "\(error)"
        }
    }
}
