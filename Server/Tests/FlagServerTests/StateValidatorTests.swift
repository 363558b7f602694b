import FlagEvaluation
import FlagServer
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
