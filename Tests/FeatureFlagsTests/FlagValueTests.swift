import ExampleFlags
import FeatureFlags
import Foundation
import Testing

struct FlagValueTests {
    @Test func decodesJSONKeepingBooleansIntegersAndDoublesApart() throws {
        let value = try FlagValue(json: #"{"b": true, "i": 3, "d": 2.5, "s": "x", "a": [1, null], "o": {"k": false}}"#)
        #expect(value == ["b": true, "i": 3, "d": 2.5, "s": "x", "a": [1, .null], "o": ["k": false]])
        #expect(value.jsonString == #"{"a":[1,null],"b":true,"d":2.5,"i":3,"o":{"k":false},"s":"x"}"#)
    }

    @Test func escapesStrings() {
        #expect(FlagValue.string("a\"b\\c\nd\u{1}").jsonString == #""a\"b\\c\nd\u0001""#)
    }

    @Test func normalisesNumbersToTheDeclaredType() {
        #expect(FlagValue.int(2).normalized(to: .double) == .double(2))
        #expect(FlagValue.double(20).normalized(to: .integer) == .int(20))
        #expect(FlagValue.double(20.5).normalized(to: .integer) == nil)
        #expect(FlagValue.bool(true).normalized(to: .integer) == nil)
        #expect(FlagValue.array([]).normalized(to: .object) == .array([]))
        #expect(FlagValue.null.normalized(to: .string) == nil)
    }

    @Test func convertsToSwiftTypes() {
        #expect(Int(flagValue: 4) == 4)
        #expect(Double(flagValue: 4) == 4.0)
        #expect(Bool(flagValue: 1) == nil)
        #expect(String(flagValue: "x") == "x")
        #expect(ComposerStyle(flagValue: "compact") == .compact)
        #expect(ComposerStyle(flagValue: "huge") == nil)
        #expect(RetryPolicy(flagValue: ["attempts": 2, "backoffSeconds": 0.5]) == RetryPolicy(attempts: 2, backoffSeconds: 0.5))
        #expect(RetryPolicy(flagValue: ["attempts": "two"]) == nil)
        #expect(RetryPolicy(attempts: 2, backoffSeconds: 0.5).flagValue == ["attempts": 2, "backoffSeconds": 0.5])
    }
}

struct FlagValueParsingTests {
    @Test func decodesAnObjectLikeTheDecodableConformance() throws {
        let text = #"{"t": true, "f": false, "zero": 0, "one": 1, "half": 1.5, "neg": -7, "s": "1", "n": null, "a": [true, 1, [0.25]], "o": {"k": "v"}}"#
        let fast = try FlagValue.objectMembers(fromJSON: Data(text.utf8))
        let decoded = try JSONDecoder().decode([String: FlagValue].self, from: Data(text.utf8))
        #expect(fast == decoded)
        #expect(fast["t"] == .bool(true))
        #expect(fast["one"] == .int(1))
        #expect(fast["zero"] == .int(0))
        #expect(fast["half"] == .double(1.5))
        #expect(fast["s"] == .string("1"))
        #expect(fast["n"] == .null)
    }

    @Test func rejectsWhatIsNotAnObject() {
        #expect(throws: (any Error).self) { try FlagValue.objectMembers(fromJSON: Data("[1]".utf8)) }
        #expect(throws: (any Error).self) { try FlagValue.objectMembers(fromJSON: Data("{".utf8)) }
    }

    @Test func numbersKeepTheCaseTheirTextAsksFor() throws {
        // Unlike the `Decodable` conformance (which tries `Int` first), a fraction or an exponent
        // makes a double, so that `jsonString` reads back as the same value.
        #expect(try FlagValue(json: "2.0") == .double(2))
        #expect(try FlagValue(json: "-1e3") == .double(-1000))
        #expect(try FlagValue(json: "0.5") == .double(0.5))
        #expect(try FlagValue(json: "2.0").normalized(to: .integer) == .int(2))
        // Too large for Int: refused rather than rounded to a double.
        #expect(throws: (any Error).self) { try FlagValue(json: "18446744073709551616") }
    }

    @Test func namesWhereTextStopsBeingJSON() {
        let text = "{\n  \"a\": tru\n}"
        #expect {
            try FlagValue(json: text)
        } throws: { error in
            "\(error)" == "invalid JSON at \"/a\" (line 2, column 8): invalid literal, expected 'true'"
        }
    }

    @Test func rejectsWhatJSONDoesNotAllow() {
        for text in ["", "01", "[1,]", "{'a': 1}", "\"\u{1}\"", "NaN", "[1] [2]", "\"\\ud800\""] {
            #expect(throws: (any Error).self, "\(text)") { try FlagValue(json: text) }
        }
    }

    @Test func writesWhatItReads() throws {
        let value: FlagValue = ["s": "tab\tquote\"\u{8}\u{1F}é😀", "a": [1, 2.5, false, .null], "o": [:]]
        #expect(try FlagValue(json: value.jsonString) == value)
    }
}
