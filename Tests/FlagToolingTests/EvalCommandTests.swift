import Foundation
import Testing

/// Whole-output tests of `flags eval`, running the built tool.
struct EvalCommandTests {
    let directory: URL
    var definitions: String { directory.appendingPathComponent("flags.json").path }

    init() throws {
        directory = try TestPaths.temporaryDirectory()
        let json = #"""
            {"flags": {"new-checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                                        "targeting": {"if": [{"==": [{"var": "plan"}, "pro"]}, "on"]}}}}
            """#
        try Data(json.utf8).write(to: directory.appendingPathComponent("flags.json"))
    }

    @Test func evaluatesAFlag() throws {
        let result = try FlagsTool.run([
            "eval", "--definitions", definitions, "--flag", "new-checkout", "--type", "boolean", "--default", "false",
            "--context", #"{"targetingKey": "user-1", "plan": "pro"}"#,
        ])
        #expect(result == FlagsTool.Result(
            status: 0,
            standardOutput: #"{"errorCode":null,"flag":"new-checkout","metadata":{},"reason":"TARGETING_MATCH","value":true,"variant":"on"}"# + "\n",
            standardError: ""))
    }

    @Test func unknownFlagExitsWithOne() throws {
        let result = try FlagsTool.run([
            "eval", "--definitions", definitions, "--flag", "nope", "--type", "boolean", "--default", "false",
        ])
        #expect(result == FlagsTool.Result(
            status: 1,
            standardOutput: #"{"errorCode":"FLAG_NOT_FOUND","flag":"nope","metadata":{},"reason":"ERROR","value":false,"variant":null}"# + "\n",
            standardError: "error: flag \"nope\" is not defined.\n"))
    }

    @Test func batchWithAnUnknownFlagGoesOnAndExitsWithOne() throws {
        let input = directory.appendingPathComponent("requests.jsonl")
        try Data("""
            {"flag": "nope", "type": "boolean", "default": true}
            {"flag": "new-checkout", "type": "boolean", "default": true, "context": {"plan": "pro"}}

            """.utf8).write(to: input)
        let result = try FlagsTool.run(["eval", "--definitions", definitions, "--batch"], standardInput: input)
        #expect(result == FlagsTool.Result(
            status: 1,
            standardOutput: """
                {"errorCode":"FLAG_NOT_FOUND","flag":"nope","metadata":{},"reason":"ERROR","value":true,"variant":null}
                {"errorCode":null,"flag":"new-checkout","metadata":{},"reason":"TARGETING_MATCH","value":true,"variant":"on"}

                """,
            standardError: "line 1: flag \"nope\" is not defined\n"))
    }

    @Test(arguments: [("v3", "a"), ("current", "d")])
    func fractionalBucketingIsSelectable(bucketing: String, variant: String) throws {
        let file = directory.appendingPathComponent("rollout.json")
        try Data(#"""
            {"flags": {"rollout-flag": {"state": "ENABLED", "variants": {"a": "a", "b": "b", "c": "c", "d": "d"}, "defaultVariant": "a",
                                        "targeting": {"fractional": [["a", 25], ["b", 25], ["c", 25], ["d", 25]]}}}}
            """#.utf8).write(to: file)
        let result = try FlagsTool.run([
            "eval", "--definitions", file.path, "--fractional", bucketing, "--flag", "rollout-flag", "--type", "string",
            "--default", #""z""#, "--context", #"{"targetingKey": "user-1"}"#,
        ])
        #expect(result == FlagsTool.Result(
            status: 0,
            standardOutput: #"{"errorCode":null,"flag":"rollout-flag","metadata":{},"reason":"TARGETING_MATCH","value":"\#(variant)","variant":"\#(variant)"}"# + "\n",
            standardError: ""))
    }
}
