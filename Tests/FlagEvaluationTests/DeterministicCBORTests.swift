import FlagEvaluation
import Foundation
import Testing

/// The bytes `fractional` v3 hashes, pinned with the examples of RFC 8949, Appendix A (checked by
/// hand against the RFC's table), restricted to what JSON can express.
struct DeterministicCBORTests {
    static func hex(_ value: JSONValue) -> String {
        DeterministicCBOR.encode(value).map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }

    @Test(arguments: [
        (0, "00"), (1, "01"), (10, "0a"), (23, "17"), (24, "1818"), (25, "1819"), (100, "1864"), (1000, "1903e8"),
        (1_000_000, "1a000f4240"), (1_000_000_000_000, "1b000000e8d4a51000"), (-1, "20"), (-10, "29"),
        (-100, "3863"), (-1000, "3903e7"), (Int.max, "1b7fffffffffffffff"), (Int.min, "3b7fffffffffffffff"),
    ])
    func integers(value: Int, expected: String) {
        #expect(Self.hex(.int(value)) == expected)
    }

    @Test(arguments: [
        (0.0, "f90000"), (-0.0, "f98000"), (1.0, "f93c00"), (1.1, "fb3ff199999999999a"), (1.5, "f93e00"),
        (65504.0, "f97bff"), (100000.0, "fa47c35000"), (3.4028234663852886e+38, "fa7f7fffff"),
        (1.0e+300, "fb7e37e43c8800759c"), (5.960464477539063e-8, "f90001"), (0.00006103515625, "f90400"),
        (-4.0, "f9c400"), (-4.1, "fbc010666666666666"), (Double.infinity, "f97c00"), (Double.nan, "f97e00"),
        (-Double.infinity, "f9fc00"),
    ])
    func floats(value: Double, expected: String) {
        #expect(Self.hex(.double(value)) == expected)
    }

    @Test func simpleValuesStringsAndContainers() throws {
        #expect(Self.hex(false) == "f4")
        #expect(Self.hex(true) == "f5")
        #expect(Self.hex(.null) == "f6")
        #expect(Self.hex("") == "60")
        #expect(Self.hex("a") == "6161")
        #expect(Self.hex("IETF") == "6449455446")
        #expect(Self.hex("\"\\") == "62225c")
        #expect(Self.hex("\u{00fc}") == "62c3bc")
        #expect(Self.hex("\u{6c34}") == "63e6b0b4")
        #expect(Self.hex([]) == "80")
        #expect(Self.hex([1, 2, 3]) == "83010203")
        #expect(Self.hex([1, [2, 3], [4, 5]]) == "8301820203820405")
        #expect(Self.hex(.array((1...25).map { .int($0) })) == "98190102030405060708090a0b0c0d0e0f101112131415161718181819")
        #expect(Self.hex([:]) == "a0")
        #expect(Self.hex(["a": 1, "b": [2, 3]]) == "a26161016162820203")
        #expect(Self.hex(["a", ["b": "c"]]) == "826161a161626163")
        #expect(Self.hex(["a": "A", "b": "B", "c": "C", "d": "D", "e": "E"]) == "a56161614161626142616361436164614461656145")
    }

    @Test func mapKeysSortShorterFirstThenBytewise() {
        // Deterministic order is by encoded key: "b" and "c" (one byte) before "aa".
        #expect(Self.hex(["aa": [1, 2], "c": .null, "b": 1]) == "a36162016163f6626161820102")
    }
}

/// `fractional` v3. The expected buckets are what flagd's Python core (openfeature-flagd-core
/// 2.0.0) chooses; `FractionalV3FlagdTests` replays a thousand more.
struct FractionalV3Tests {
    static let buckets: JSONValue = [["a", 25], ["b", 25], ["c", 25], ["d", 25]]

    static func shorthand(flagKey: String, targetingKey: String, _ bucketing: FractionalBucketing) throws -> JSONValue {
        let rule = try JSONLogicRule(["fractional": Self.buckets])
        return rule.evaluate(data: ["targetingKey": .string(targetingKey), "$flagd": ["flagKey": .string(flagKey)]], bucketing: bucketing)
    }

    @Test(arguments: [
        ("user-1", "a"), ("user-2", "d"), ("user-3", "d"), ("user-4", "d"), ("user-5", "a"), ("ada@example.com", "c"),
    ])
    func shorthandBucketsOnFlagKeyAndTargetingKeyAsACBORArray(targetingKey: String, expected: String) throws {
        #expect(try Self.shorthand(flagKey: "rollout-flag", targetingKey: targetingKey, .v3) == .string(expected))
    }

    static let subjects: [(JSONValue, String)] = [
        ("ada@example.com", "a"), (42, "b"), (-7, "a"), (1.5, "a"), (1, "d"), (1.0, "d"), (true, "a"),
        ([1, "x"], "b"), (["b": 1, "aa": [1, 2], "c": .null], "c"), (100000.0, "b"),
    ]

    @Test(arguments: Self.subjects)
    func anyJSONValueBuckets(value: JSONValue, expected: String) throws {
        let rule = try JSONLogicRule(["fractional": .array([["var": "subject"]] + Self.buckets.arrayValue!)])
        #expect(rule.evaluate(data: ["subject": value], bucketing: .v3) == .string(expected))
    }

    @Test func literalBucketingValueAndNullUnderV3() throws {
        let literal = try JSONLogicRule(["fractional": .array([42] + Self.buckets.arrayValue!)])
        #expect(literal.evaluate(bucketing: .v3) == "b")
        // The older bucketings accept only strings.
        #expect(literal.evaluate(bucketing: .current) == .null)
        let missing = try JSONLogicRule(["fractional": .array([["var": "nope"]] + Self.buckets.arrayValue!)])
        #expect(missing.evaluate(data: [:], bucketing: .v3) == .null)
    }

    @Test func flagEvaluatorUsesTheChosenBucketing() throws {
        let source = FlagSource(name: "v3.json", json: """
            {"flags": {"rollout-flag": {"state": "ENABLED", "variants": {"a": "a", "b": "b", "c": "c", "d": "d"},
                                        "defaultVariant": "a", "targeting": {"fractional": \(Self.buckets.serialized())}}}}
            """)
        let definitions = try FlagDefinitions.loadStrictly([source])
        func variant(_ bucketing: FractionalBucketing, _ targetingKey: String) -> String? {
            FlagEvaluator(definitions: definitions, bucketing: bucketing).evaluate(
                flag: "rollout-flag", type: .string, default: "z", context: EvaluationContext(targetingKey: targetingKey),
                now: .init(timeIntervalSince1970: 0)
            ).variant
        }
        // v3 and current (murmur3 of "rollout-flag" + key, checked with Python's mmh3) disagree here.
        #expect(variant(.v3, "user-1") == "a")
        #expect(variant(.current, "user-1") == "d")
        #expect(variant(.v3, "user-3") == "d")
        #expect(variant(.current, "user-3") == "a")
    }
}
