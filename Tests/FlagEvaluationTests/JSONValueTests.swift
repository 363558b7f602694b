import FlagEvaluation
import Foundation
import Testing

struct JSONValueTests {
    @Test func parsesEveryJSONType() throws {
        let value = try JSONValue(parsing: #" {"n": null, "t": true, "f": false, "i": -12, "d": 1.5, "e": 1e3, "s": "x", "a": [1, [2]], "o": {}} "#)
        #expect(value["n"] == .null)
        #expect(value["t"] == .bool(true))
        #expect(value["f"] == .bool(false))
        #expect(value["i"] == .int(-12))
        #expect(value["d"] == .double(1.5))
        #expect(value["a"] == .array([.int(1), .array([.int(2)])]))
        #expect(value["o"] == .object([:]))
        #expect(value["s"] == .string("x"))
        if case .double(let thousand)? = value["e"] { #expect(thousand == 1000) } else { Issue.record("1e3 should be a double") }
    }

    @Test func booleansNeverBecomeNumbers() throws {
        // Foundation's JSONSerialization on Linux hands back NSNumber for both; this parser must not.
        let value = try JSONValue(parsing: "[true, 1, false, 0]")
        guard case .array(let elements) = value else { Issue.record("not an array"); return }
        #expect(elements[0] == .bool(true))
        #expect(elements[0] != .int(1))
        #expect(elements[1] == .int(1))
        #expect(elements[2] != .int(0))
        #expect(elements.map(\.typeName) == ["boolean", "number", "boolean", "number"])
    }

    @Test func integersStayExact() throws {
        let value = try JSONValue(parsing: "[9007199254740993, 1.0, 12345678901234567890.0]")
        #expect(value.arrayValue?[0] == .int(9_007_199_254_740_993))
        if case .double? = value.arrayValue?[1] {} else { Issue.record("1.0 keeps its floating-point case") }
        if case .double? = value.arrayValue?[2] {} else { Issue.record("a fraction makes a double at any size") }
        #expect(throws: JSONParseError.self, "integers beyond Int are refused, not rounded") {
            try JSONValue(parsing: "12345678901234567890")
        }
        #expect(JSONValue.int(1) == .double(1.0))
        #expect(JSONValue.double(1.0).intValue == 1)
        #expect(JSONValue.double(1.5).intValue == nil)
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let value = try JSONValue(parsing: #""a\"b\\c\/d\n\t\u00e9\ud83d\ude00""#)
        #expect(value == .string("a\"b\\c/d\n\té😀"))
    }

    @Test(arguments: [
        ("", "unexpected end of input"),
        ("{\"a\" 1}", "expected ':'"),
        ("[1,]", "unexpected character ']'"),
        ("01", "leading zeros"),
        ("\"\\ud800\"", "unpaired surrogate"),
        ("[1] 2", "unexpected content after"),
        ("tru", "unexpected end of input in a literal"),
        ("\"a\nb\"", "unescaped control character"),
        ("{\"a\": NaN}", "unexpected character 'N'"),
    ])
    func rejectsInvalidJSON(text: String, fragment: String) {
        #expect {
            _ = try JSONValue(parsing: text)
        } throws: { error in
            "\(error)".contains(fragment)
        }
    }

    @Test func reportsLineAndColumn() {
        do {
            _ = try JSONValue(parsing: "{\n  \"a\": [1,\n    x]\n}")
            Issue.record("should not parse")
        } catch {
            #expect(error.line == 3)
            #expect(error.column == 5)
        }
    }

    @Test func limitsNesting() {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: deep) }
        let fine = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: Never.self) { try JSONValue(parsing: fine) }
    }

    @Test func serializesDeterministicallyWithSortedKeys() throws {
        let value: JSONValue = ["b": [1, 2.5, "x\"y"], "a": .null, "c": ["z": true, "y": 1.0]]
        #expect(value.serialized() == #"{"a":null,"b":[1,2.5,"x\"y"],"c":{"y":1.0,"z":true}}"#)
        #expect(value.serialized(prettyPrinted: true) == """
            {
              "a": null,
              "b": [
                1,
                2.5,
                "x\\"y"
              ],
              "c": {
                "y": 1.0,
                "z": true
              }
            }
            """)
        #expect(JSONValue.string("\u{01}").serialized() == #""\u0001""#)
        #expect(JSONValue.double(.nan).serialized() == "null")
    }

    @Test func roundTripsThroughText() throws {
        let text = #"{"a":[1,-2.25,1e-07,true,null,"é"],"b":{"c":{}}}"#
        let value = try JSONValue(parsing: text)
        #expect(try JSONValue(parsing: value.serialized()) == value)
        #expect(try JSONValue(parsing: Data(text.utf8)) == value)
    }
}
