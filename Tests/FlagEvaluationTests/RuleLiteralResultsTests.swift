import FlagEvaluation
import Testing

struct RuleLiteralResultsTests {
    func results(_ rule: String, evaluators: [String: JSONValue] = [:]) throws -> [String] {
        try JSONLogicRule.literalResults(of: JSONValue(parsing: rule), evaluators: evaluators).map(\.description)
    }

    @Test func ifBranchesAndElseButNotConditions() throws {
        #expect(try results(#"{"if": [true, "onn", "off"]}"#) == [#""onn" at if[1]"#, #""off" at if[2]"#])
        #expect(try results(#"{"if": [{"==": [{"var": "a"}, "x"]}, "a", {"var": "b"}, "b"]}"#)
            == [#""a" at if[1]"#, #""b" at if[3]"#])
        #expect(try results(#"{"?:": ["c", "yes", "no"]}"#) == [#""yes" at ?:[1]"#, #""no" at ?:[2]"#])
        #expect(try results(#"{"if": ["only"]}"#) == [#""only" at if[0]"#])
    }

    @Test func nestedBranchesAndLogicOperands() throws {
        #expect(try results(#"{"if": [{"var": "x"}, {"if": [{"var": "y"}, "a", null]}, {"or": [{"var": "z"}, "fallback"]}]}"#)
            == [#""a" at if[1] › if[1]"#, #""fallback" at if[2] › or[1]"#])
    }

    @Test func fractionalBucketNamesWithAndWithoutBucketingKey() throws {
        #expect(try results(#"{"fractional": [["on", 50], ["of", 50]]}"#)
            == [#""on" at fractional[0][0]"#, #""of" at fractional[1][0]"#])
        #expect(try results(#"{"fractional": [{"cat": [{"var": "id"}, "salt"]}, ["a", 1], ["b", 1]]}"#)
            == [#""a" at fractional[1][0]"#, #""b" at fractional[2][0]"#])
    }

    @Test func referencedEvaluatorsInResultPositionsAreFollowed() throws {
        let evaluators: [String: JSONValue] = [
            "split": ["fractional": [["red", 50], ["blue", 50]]],
            "beta": ["in": ["beta", ["var": "tags"]]],
            "loop": ["$ref": "loop"],
        ]
        #expect(try results(#"{"if": [{"$ref": "beta"}, {"$ref": "split"}, "off"]}"#, evaluators: evaluators)
            == [#""red" at if[1] › $ref "split" › fractional[0][0]"#, #""blue" at if[1] › $ref "split" › fractional[1][0]"#,
                #""off" at if[2]"#])
        // A cycle or a missing evaluator ends the walk (the compiler refuses both).
        #expect(try results(#"{"$ref": "loop"}"#, evaluators: evaluators).isEmpty)
        #expect(try results(#"{"$ref": "nowhere"}"#, evaluators: evaluators).isEmpty)
    }

    @Test func scalarsServeTheirTextAndComputedResultsAreNotLiterals() throws {
        #expect(try results(#"{"if": [{"var": "x"}, true, 2]}"#) == [#""true" at if[1]"#, #""2" at if[2]"#])
        #expect(try results(#"{"==": [{"var": "x"}, "onn"]}"#).isEmpty)
        #expect(try results(#"{"cat": ["o", "n"]}"#).isEmpty)
        #expect(try results(#"{"if": [true, null, ["a"]]}"#).isEmpty)
        #expect(try results(#""on""#) == [#""on" at the rule"#])
    }
}
