import FlagEvaluation
import Foundation
import Testing

/// Evaluation finds flags through a table of its own (cheaper than the `flags` dictionary); it
/// must find exactly what the dictionary finds.
struct FlagLookupTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func definitions(_ keys: [String]) -> FlagDefinitions {
        var flags: [String: JSONValue] = [:]
        for (index, key) in keys.enumerated() {
            flags[key] = ["state": "ENABLED", "variants": ["v": .int(index)], "defaultVariant": "v"]
        }
        let text = JSONValue.object(["flags": .object(flags)]).serialized()
        let (definitions, errors) = FlagDefinitions.load([FlagSource(name: "keys.json", json: text)])
        #expect(errors.isEmpty, "\(errors)")
        return definitions
    }

    @Test func everyKeyOfEveryLengthIsFoundWithItsOwnFlag() {
        // Lengths around the 8-byte words the hash folds, and enough keys for long probe runs.
        var keys: [String] = []
        for length in 1...40 { keys.append(String(repeating: "k", count: length)) }
        for index in 0..<3_000 { keys.append("flag-\(index)") }
        keys.append("ümlaut-flag")
        keys.append("emoji-🚀-flag")
        let definitions = Self.definitions(keys)
        let evaluator = FlagEvaluator(definitions: definitions)
        for key in keys {
            let expected = definitions.flags[key]?.variants["v"]
            #expect(expected != nil)
            #expect(definitions[key]?.variants["v"] == expected, "\(key)")
            let result = evaluator.evaluate(flag: key, type: .integer, default: -1, now: Self.now)
            #expect(result.value == expected, "\(key)")
            #expect(result.reason == .static)
        }
    }

    @Test func keysThatAreNotDefinedAreNotFound() {
        let definitions = Self.definitions(["alpha", "beta", "flag-1"])
        let evaluator = FlagEvaluator(definitions: definitions)
        for key in ["", "alph", "alphaa", "Alpha", "flag-10", "flag-", "gamma", String(repeating: "x", count: 100)] {
            #expect(definitions[key] == nil, "\(key)")
            #expect(evaluator.evaluate(flag: key, type: .integer, default: -1, now: Self.now).errorCode == .flagNotFound)
        }
        #expect(FlagDefinitions()["alpha"] == nil)
    }

    @Test func aKeyWithAnotherUnicodeNormalizationIsFoundAsTheDictionaryFindsIt() {
        // "café" precomposed in the definitions, asked for decomposed (and the other way round):
        // `String` equality, and so the dictionary, treats them as one key.
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        for (defined, asked) in [(composed, decomposed), (decomposed, composed)] {
            let definitions = Self.definitions([defined])
            #expect(definitions.flags[asked] != nil)
            #expect(definitions[asked]?.key == definitions.flags[asked]?.key)
            let result = FlagEvaluator(definitions: definitions).evaluate(flag: asked, type: .integer, default: -1, now: Self.now)
            #expect(result.value == 0)
            #expect(result.reason == .static)
        }
    }
}
