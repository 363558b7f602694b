import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Testing

struct StateValidatorTests {
    static func state(_ flags: [FlagRecord], settings: [String: FlagSettings] = [:], segments: [String: JSONValue] = [:]) -> ServerState {
        var environment = EnvironmentState(key: "prod", revision: 1, segments: segments)
        for flag in flags {
            environment.settings[flag.key] = settings[flag.key] ?? FlagSettings(enabled: true, defaultVariant: flag.variants.keys.sorted()[0])
        }
        return ServerState(flags: Dictionary(uniqueKeysWithValues: flags.map { ($0.key, $0) }), environments: ["prod": environment])
    }

    @Test
    func aValidStateHasNoProblems() {
        let flag = FlagRecord(key: "checkout", type: .boolean, variants: ["on": true, "off": false])
        let settings = FlagSettings(
            enabled: true, defaultVariant: "off",
            targeting: ["if": [["sem_ver": [["var": "version"], ">=", "2.0.0"]], "on", "off"]])
        #expect(StateValidator.problems(in: Self.state([flag], settings: ["checkout": settings])).isEmpty)
    }

    @Test
    func keysMustBeSafe() {
        let flag = FlagRecord(key: "bad key!", type: .boolean, variants: ["on": true])
        #expect(StateValidator.problems(in: Self.state([flag])).map(\.field) == ["key"])
    }

    @Test
    func aFloatFlagAcceptsIntegersButAnIntegerFlagRefusesFractions() {
        let float = FlagRecord(key: "ratio", type: .float, variants: ["a": 1, "b": 0.5])
        #expect(StateValidator.problems(in: Self.state([float])).isEmpty)
        let integer = FlagRecord(key: "limit", type: .integer, variants: ["a": 1, "b": 0.5])
        let problems = StateValidator.problems(in: Self.state([integer]))
        #expect(problems == [ValidationError(key: "limit", field: "variants.b", problem: "is number, but the flag's type is integer")])
    }

    @Test
    func aSegmentThatDoesNotCompileIsNamed() {
        let problems = StateValidator.problems(in: Self.state([], segments: ["beta": ["no_such_operator": [1]]]))
        #expect(!problems.isEmpty)
        #expect(problems.allSatisfy { $0.environment == "prod" })
    }
}

extension StateValidatorTests {
    /// A rule that names a variant the flag does not have would fail every evaluation that
    /// reaches it (`GENERAL`): refused, naming the name and where it is, through a segment too.
    @Test
    func aRuleReturningAnUnknownVariantIsRefused() {
        let flag = FlagRecord(key: "checkout", type: .boolean, variants: ["on": true, "off": false])
        let typo = FlagSettings(enabled: true, defaultVariant: "off", targeting: ["if": [true, "onn", "off"]])
        #expect(StateValidator.problems(in: Self.state([flag], settings: ["checkout": typo])) == [
            ValidationError(
                environment: "prod", key: "checkout", field: "targeting",
                problem: #"returns "onn" (at if[1]), which is not one of the variants (off, on)"#)
        ])
        let rollout = FlagSettings(
            enabled: true, defaultVariant: "off", targeting: ["if": [["$ref": "beta"], ["$ref": "split"], "off"]])
        let segments: [String: JSONValue] = [
            "beta": ["in": ["beta", ["var": "tags"]]], "split": ["fractional": [["on", 50], ["blue", 50]]],
        ]
        #expect(StateValidator.problems(in: Self.state([flag], settings: ["checkout": rollout], segments: segments)).map(\.problem) == [
            #"returns "blue" (at if[1] › $ref "split" › fractional[1][0]), which is not one of the variants (off, on)"#
        ])
        // Computed results are not literals: a comparison's Boolean is checked when it is served.
        let computed = FlagSettings(enabled: true, defaultVariant: "off", targeting: ["==": [["var": "plan"], "pro"]])
        #expect(StateValidator.problems(in: Self.state([flag], settings: ["checkout": computed])).isEmpty)
    }
}

extension StateValidatorTests {
    /// Variant names and flagd metadata keys refuse control characters, NUL and bidirectional
    /// overrides; each problem names the character and its position.
    @Test
    func namesRefuseControlAndBidirectionalCharacters() {
        let flag = FlagRecord(
            key: "checkout", type: .boolean, variants: ["o\u{0}n": true, "\u{202E}ffo": false],
            metadata: FlagRecordMetadata(custom: ["team\u{7}": "payments"]))
        #expect(StateValidator.problems(in: Self.state([flag])).map(\.problem) == [
            #"the variant name "o\u{0}n" has U+0000 (a control character) at position 2; "# + StateValidator.nameRule,
            #"the variant name "\u{202E}ffo" has U+202E (a bidirectional formatting character) at position 1; "#
                + StateValidator.nameRule,
            #"the metadata key "team\u{7}" has U+0007 (a control character) at position 5; "# + StateValidator.nameRule,
        ])
        let long = FlagRecord(key: "long", type: .string, variants: [String(repeating: "é", count: 129): "x", "Variant A ✓": "y"])
        #expect(StateValidator.problems(in: Self.state([long])).map(\.problem) == [
            "the variant name \"\(String(repeating: "é", count: 129))\" is 129 characters long; " + StateValidator.nameRule
        ])
    }

    @Test
    func keyProblemsNameTheCharacterAndPosition() {
        let flag = FlagRecord(key: "check\u{0}out", type: .boolean, variants: ["on": true])
        #expect(StateValidator.problems(in: Self.state([flag])).map(\.problem) == [
            "has U+0000 at position 6; keys " + StateValidator.keyRule
        ])
    }
}

extension StateValidatorTests {
    /// A write may not add a rule returning a name that is not one of the flag's variants, but
    /// one the state before it already had (an import accepted it) does not refuse the write; an
    /// import counts none in the environment it writes (answering each as a warning), and may not
    /// add one elsewhere through a definition.
    @Test
    func missingVariantsCountAsTheWriteSays() throws {
        let flag = FlagRecord(key: "checkout", type: .boolean, variants: ["on": true, "off": false])
        let unreachable = FlagSettings(
            enabled: false, defaultVariant: "off", targeting: ["if": [["ends_with": [["var": "id"], 3]], "fail", "off"]])
        let before = Self.state([flag], settings: ["checkout": unreachable])
        let fail = #"returns "fail" (at if[1]), which is not one of the variants (off, on)"#

        var on = unreachable
        on.enabled = true
        let turnedOn = try before.transition(applying: [.putSettings(environment: "prod", flag: "checkout", on)])
        #expect(StateValidator.problems(in: turnedOn.state, changedBy: turnedOn.delta).map(\.problem) == [fail])
        #expect(StateValidator.problems(in: turnedOn.state, changedBy: turnedOn.delta, missingVariants: .addedSince(before)).isEmpty)
        #expect(StateValidator.problems(
            in: turnedOn.state, changedBy: turnedOn.delta, missingVariants: .importedInto("prod", elsewhereAddedSince: before)).isEmpty)
        #expect(StateValidator.problems(in: turnedOn.state, missingVariants: .addedSince(before)).isEmpty)
        #expect(StateValidator.missingVariantWarnings(in: turnedOn.state, changedBy: turnedOn.delta, environment: "staging").isEmpty)
        #expect(StateValidator.missingVariantWarnings(in: turnedOn.state, changedBy: turnedOn.delta, environment: "prod") == [
            ValidationError(
                environment: "prod", key: "checkout", field: "targeting",
                problem: fail + "; an evaluation that reaches it answers GENERAL")
        ])

        var typo = on
        typo.targeting = ["if": [["ends_with": [["var": "id"], 3]], "fail", "onn"]]
        let added = try before.transition(applying: [.putSettings(environment: "prod", flag: "checkout", typo)])
        #expect(StateValidator.problems(in: added.state, changedBy: added.delta, missingVariants: .addedSince(before)).map(\.problem) == [
            #"returns "onn" (at if[2]), which is not one of the variants (off, on)"#
        ])

        // Dropping a variant the rule returns adds a missing name as well.
        var narrowed = flag
        narrowed.variants = ["on": true]
        let dropped = try before.transition(applying: [.putFlag(narrowed, initialSettings: on)])
        #expect(StateValidator.problems(in: dropped.state, changedBy: dropped.delta, missingVariants: .addedSince(before)).map(\.problem).contains(
            #"returns "off" (at if[2]), which is not one of the variants (on)"#))
        // An import into another environment that drops it is refused too; into this one, not.
        let elsewhere = StateValidator.problems(
            in: dropped.state, changedBy: dropped.delta, missingVariants: .importedInto("staging", elsewhereAddedSince: before))
        #expect(elsewhere.map(\.problem).contains(#"returns "off" (at if[2]), which is not one of the variants (on)"#))
        let here = StateValidator.problems(
            in: dropped.state, changedBy: dropped.delta, missingVariants: .importedInto("prod", elsewhereAddedSince: before))
        #expect(!here.map(\.field).contains("targeting"))
        // A write without a missing name has no warning.
        let plain = try Self.state([flag]).transition(applying: [.putSettings(environment: "prod", flag: "checkout", FlagSettings(enabled: true, defaultVariant: "on"))])
        #expect(StateValidator.missingVariantWarnings(in: plain.state, changedBy: plain.delta, environment: "prod").isEmpty)
    }
}
