import ExampleFlags
import FeatureFlags
import Foundation
import Testing

/// Numbers a flag value cannot hold are refused where they enter, and what is written reads
/// back as the same value.
struct JSONNumberLimitsTests {
    @Test(arguments: [
        (#"{"delay": 1e400}"#, #"invalid JSON at "/delay" (line 1, column 11): number 1e400 is too large for a 64-bit floating-point value"#),
        (#"{"delay": -1e400}"#, #"invalid JSON at "/delay" (line 1, column 11): number -1e400 is too large for a 64-bit floating-point value"#),
        (#"{"tiny": 1e-400}"#, #"invalid JSON at "/tiny" (line 1, column 10): number 1e-400 is too small for a 64-bit floating-point value; it would become 0"#),
        (#"{"n": [1, -9223372036854775809]}"#, #"invalid JSON at "/n/1" (line 1, column 11): integer -9223372036854775809 is outside the 64-bit range -9223372036854775808...9223372036854775807; write it with a fraction or an exponent if an approximate floating-point value is meant"#),
        (#"{"n": 9223372036854775808}"#, #"invalid JSON at "/n" (line 1, column 7): integer 9223372036854775808 is outside the 64-bit range -9223372036854775808...9223372036854775807; write it with a fraction or an exponent if an approximate floating-point value is meant"#),
    ])
    func refusesNumbersOutsideWhatTheTypeHolds(text: String, message: String) {
        #expect {
            try FlagValue.objectMembers(fromJSON: Data(text.utf8))
        } throws: { error in
            "\(error)" == message
        }
    }

    @Test func acceptsTheLimitsThemselves() throws {
        #expect(try FlagValue(json: "9223372036854775807") == .int(.max))
        #expect(try FlagValue(json: "-9223372036854775808") == .int(.min))
        #expect(try FlagValue(json: "1.7976931348623157e308") == .double(.greatestFiniteMagnitude))
        #expect(try FlagValue(json: "5e-324") == .double(.leastNonzeroMagnitude))
        #expect(try FlagValue(json: "0e-400") == .double(0))
        #expect(try FlagValue(json: "0.000e5") == .double(0))
        // A fraction or an exponent asks for a double; integer flags still accept an integral one.
        #expect(try FlagValue(json: "9.3e18") == .double(9.3e18))
        #expect(try FlagValue(json: "2.0") == .double(2))
        #expect(try FlagValue(json: "2.0").normalized(to: .integer) == .int(2))
    }

    @Test func pointsAtTheKeyInNestedObjectsAndArrays() {
        let text = "{\"flags\": {\n  \"ok\": 1,\n  \"a/b~c\": [0, {\"x\": 1e999}]\n}}"
        #expect {
            try FlagValue(json: text)
        } throws: { error in
            "\(error)" == #"invalid JSON at "/flags/a~1b~0c/1/x" (line 3, column 22): number 1e999 is too large for a 64-bit floating-point value"#
        }
    }

    /// Doubles at the edges of the type, integers at the edges of `Int`, and a spread in between.
    static let edgeValues: [FlagValue] = {
        var values: [FlagValue] = [
            .double(.greatestFiniteMagnitude), .double(-.greatestFiniteMagnitude), .double(-0.0), .double(0),
            .double(.leastNonzeroMagnitude), .double(-.leastNonzeroMagnitude), .double(.leastNormalMagnitude),
            .double(.ulpOfOne), .double(1e15), .double(1e16), .double(-1e21), .double(2), .double(0.1),
            .double(1.0 / 3.0), .double(123_456_789.123_456_79), .double(9_007_199_254_740_992),
            .int(.min), .int(.max), .int(0), .int(-1), .int(9_007_199_254_740_993),
        ]
        var generator = SplitMix64(seed: 42)
        for _ in 0..<2_000 {
            values.append(.double(Double(bitPattern: generator.next())).finiteOrNil ?? .double(1))
            values.append(.int(Int(bitPattern: UInt(generator.next()))))
        }
        return values
    }()

    @Test func everyWrittenValueReadsBackIdentical() throws {
        for value in Self.edgeValues {
            let text = value.jsonString
            let read = try FlagValue(json: text)
            #expect(read == value, "\(text)")
            if case .double(let original) = value, case .double(let back) = read {
                #expect(original.sign == back.sign, "\(text) keeps its sign")
            }
        }
        let object = FlagValue.object(Dictionary(uniqueKeysWithValues: Self.edgeValues.enumerated().map { ("k\($0)", $1) }))
        #expect(try FlagValue.objectMembers(fromJSON: Data(object.jsonString.utf8)) == object.objectMembers)
    }

    @Test func writersNeverEmitNonJSONNumbers() throws {
        for value in [Double.infinity, -.infinity, .nan] {
            let text = FlagValue.array([.double(value)]).jsonString
            #expect(text == "[null]")
            #expect(throws: Never.self) { try FlagValue(json: text) }
        }
    }

    @Test func theDecodableConformanceRefusesNonFiniteNumbers() throws {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        for text in [#"["inf"]"#, #"["nan"]"#, #"{"a": "-inf"}"#] {
            #expect(throws: DecodingError.self, "\(text)") { try decoder.decode(FlagValue.self, from: Data(text.utf8)) }
        }
        #expect(try decoder.decode(FlagValue.self, from: Data("[1.5]".utf8)) == [1.5])
    }

    @Test func aStoreRoundTripKeepsEveryValue() throws {
        let directory = TemporaryDirectory()
        let store = JSONFileFlagStore(directory: directory.url)
        let values = Dictionary(uniqueKeysWithValues: Self.edgeValues.prefix(40).enumerated().map { ("k\($0)", $1) })
        try store.save(values)
        #expect(try store.load() == values)
    }

    @Test(arguments: ["nan", "NaN", "inf", "-inf", "infinity", "1e400", "-1e400", "1e-400", "0x10", ".5"])
    func launchArgumentsRefuseNonFiniteAndOutOfRangeDoubles(text: String) {
        #expect(LaunchArgumentOverrides.value(from: text, as: .double) == nil)
        let registry = try! FlagRegistry(AppFlag.self)
        let (overrides, problems) = LaunchArgumentOverrides.parse(["-ff.stream_flush_interval", text], registry: registry)
        #expect(overrides.isEmpty)
        #expect(problems.count == 1)
        #expect(problems.first?.contains("'stream_flush_interval'") == true)
    }

    @Test func launchArgumentsSayWhyANumberIsRefused() {
        let registry = try! FlagRegistry(AppFlag.self)
        let (overrides, problems) = LaunchArgumentOverrides.parse(
            ["-ff.page_size", "-9223372036854775809", "-ff.stream_flush_interval=1e400"], registry: registry)
        #expect(overrides.isEmpty)
        #expect(
            problems == [
                "Launch argument '-ff.page_size -9223372036854775809' is not a valid integer for 'page_size' (integer -9223372036854775809 is outside the 64-bit range -9223372036854775808...9223372036854775807; write it with a fraction or an exponent if an approximate floating-point value is meant); it was ignored.",
                "Launch argument '-ff.stream_flush_interval=1e400' is not a valid double for 'stream_flush_interval' (number 1e400 is too large for a 64-bit floating-point value); it was ignored.",
            ])
    }

    @Test func launchArgumentsTakeIntegralNumbersForIntegerFlags() {
        #expect(LaunchArgumentOverrides.value(from: "20", as: .integer) == .int(20))
        #expect(LaunchArgumentOverrides.value(from: "20.0", as: .integer) == .int(20))
        #expect(LaunchArgumentOverrides.value(from: "20.5", as: .integer) == nil)
        #expect(LaunchArgumentOverrides.value(from: "9223372036854775808", as: .integer) == nil)
        #expect(LaunchArgumentOverrides.value(from: "20", as: .double) == .double(20))
        #expect(LaunchArgumentOverrides.value(from: "-0.0", as: .double) == .double(-0.0))
    }

    @Test func registriesRefuseNonFiniteDefaults() {
        #expect {
            try FlagRegistry([FlagDefinition(key: "ratio", type: .double, default: .double(.infinity))])
        } throws: { error in
            "\(error)"
                == "Flag 'ratio' has a default its own declaration refuses: expected a finite double, got null. Change the default, or the flag's range or validation."
        }
    }

    @Test func engineRefusesNonFiniteOverrides() {
        let engine = FlagEngine(registry: try! FlagRegistry(AppFlag.self))
        #expect {
            try engine.setOverride(.double(.nan), forKey: "stream_flush_interval")
        } throws: { error in
            "\(error)" == "Flag 'stream_flush_interval' cannot be set: expected a finite double, got null."
        }
    }
}

extension FlagValue {
    fileprivate var objectMembers: [String: FlagValue]? {
        if case .object(let members) = self { members } else { nil }
    }
}

extension FlagValue {
    /// `self` when it holds no infinite or NaN double.
    fileprivate var finiteOrNil: FlagValue? {
        if case .double(let value) = self, !value.isFinite { return nil }
        return self
    }
}

/// A small deterministic generator, so the spread of values is the same on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
