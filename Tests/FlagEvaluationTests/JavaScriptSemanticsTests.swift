import FlagEvaluation
import Testing

/// Coercion edges JSON Logic inherits from JavaScript, checked through rules.
struct JavaScriptSemanticsTests {
    func evaluate(_ rule: String, _ data: JSONValue = .null) throws -> JSONValue {
        try JSONLogicRule(JSONValue(parsing: rule)).evaluate(data: data)
    }

    @Test(arguments: [
        ("[]", false), ("[0]", true), ("\"0\"", true), ("\"\"", false), ("0", false), ("0.0", false),
        ("null", false), ("{}", true), ("\"false\"", true), ("-1", true), ("false", false),
    ])
    func truthiness(literal: String, truthy: Bool) throws {
        #expect(try evaluate(#"{"!!": [\#(literal)]}"#) == .bool(truthy))
        #expect(try evaluate(#"{"!": [\#(literal)]}"#) == .bool(!truthy))
    }

    @Test(arguments: [
        (#"["1", 1]"#, true), (#"[1, 1.0]"#, true), (#"[null, null]"#, true), (#"[null, 0]"#, false),
        (#"[null, ""]"#, false), (#"[0, ""]"#, true), (#"[0, "0"]"#, true), (#"["", "0"]"#, false),
        (#"[true, 1]"#, true), (#"[true, "1"]"#, true), (#"[false, "0"]"#, true), (#"[false, null]"#, false),
        (#"[[1], 1]"#, true), (#"[[1,2], "1,2"]"#, true), (#"[[], ""]"#, true), (#"[[], false]"#, true),
        (#"["abc", "abc"]"#, true), (#"[" 1 ", 1]"#, true), (#"["0x10", 16]"#, true), (#"["1e3", 1000]"#, true),
    ])
    func looseEquality(arguments: String, equal: Bool) throws {
        #expect(try evaluate(#"{"==": \#(arguments)}"#) == .bool(equal), "\(arguments)")
        #expect(try evaluate(#"{"!=": \#(arguments)}"#) == .bool(!equal), "\(arguments)")
    }

    @Test func undefinedEqualsNull() throws {
        // A missing var is JavaScript's undefined reported as null; undefined == null.
        #expect(try evaluate(#"{"==": [{"var": "missing"}, null]}"#) == .bool(true))
        #expect(try evaluate(#"{"===": [{"var": "missing"}, null]}"#) == .bool(true))
        #expect(try evaluate(#"{"==": [{"var": "missing"}, 0]}"#) == .bool(false))
    }

    @Test(arguments: [
        (#"[1, 1]"#, true), (#"[1, 1.0]"#, true), (#"[1, "1"]"#, false), (#"[null, null]"#, true),
        (#"[true, 1]"#, false), (#"[[1], [1]]"#, false), (#"["a", "a"]"#, true),
    ])
    func strictEquality(arguments: String, equal: Bool) throws {
        #expect(try evaluate(#"{"===": \#(arguments)}"#) == .bool(equal))
        #expect(try evaluate(#"{"!==": \#(arguments)}"#) == .bool(!equal))
    }

    @Test(arguments: [
        (#"[1.0]"#, "1"), (#"[1.5]"#, "1.5"), (#"[0.1]"#, "0.1"), (#"[1e21]"#, "1e+21"), (#"[1e-7]"#, "1e-7"),
        (#"[123456789012345680000.0]"#, "123456789012345680000"), (#"[0.000001]"#, "0.000001"), (#"[-2.5e-8]"#, "-2.5e-8"),
        (#"[null]"#, ""), (#"[true, false]"#, "truefalse"), (#"[[1, [2, null]]]"#, "1,2,"), (#"[{"x": 1}]"#, "[object Object]"),
        (#"[-0.0]"#, "0"),
    ])
    func stringConcatenationFormatsLikeJavaScript(arguments: String, expected: String) throws {
        // `{"x": 1}` as a cat argument is a one-key object, i.e. an (unknown) operator; use merge to build it.
        if arguments.contains("\"x\"") {
            #expect(try evaluate(#"{"cat": [{"var": "o"}]}"#, ["o": ["x": 1]]) == .string(expected))
        } else {
            #expect(try evaluate(#"{"cat": \#(arguments)}"#) == .string(expected))
        }
    }

    @Test func numberCoercionOfStrings() throws {
        #expect(try evaluate(#"{"-": ["5", "2"]}"#) == .int(3))
        #expect(try evaluate(#"{"*": ["1.5", 2]}"#) == .int(3))
        #expect(try evaluate(#"{"+": ["3abc", 1]}"#) == .int(4))  // parseFloat reads the numeric prefix
        #expect(try evaluate(#"{"-": ["3abc", 1]}"#).doubleValue?.isNaN == true)  // ToNumber does not
        #expect(try evaluate(#"{"-": ["", 1]}"#) == .int(-1))
        #expect(try evaluate(#"{"/": [1, 0]}"#) == .double(.infinity))
        #expect(try evaluate(#"{"%": [-7, 3]}"#) == .int(-1))
        #expect(try evaluate(#"{"%": [5.5, 2]}"#) == .double(1.5))
    }

    @Test func relationalComparisonCoerces() throws {
        #expect(try evaluate(#"{"<": ["10", "9"]}"#) == .bool(true))  // two strings: code-unit order
        #expect(try evaluate(#"{"<": ["10", 9]}"#) == .bool(false))  // mixed: numbers
        #expect(try evaluate(#"{"<": [null, 1]}"#) == .bool(true))  // null is 0
        #expect(try evaluate(#"{"<=": ["abc", 1]}"#) == .bool(false))  // NaN compares false
        #expect(try evaluate(#"{">=": ["abc", 1]}"#) == .bool(false))
        #expect(try evaluate(#"{">": [[2], 1]}"#) == .bool(true))
    }
}
