import Foundation
import Testing

/// Whole-output tests of `flags list|get|set|clear|reset`, running the built tool.
struct OverrideCommandTests {
    let directory: URL
    let manifest = TestPaths.exampleManifest.path
    var overrides: String { directory.appendingPathComponent("overrides.json").path }

    init() throws {
        directory = try TestPaths.temporaryDirectory()
    }

    func flags(_ arguments: String...) throws -> FlagsTool.Result {
        try flags(arguments)
    }

    func flags(_ arguments: [String]) throws -> FlagsTool.Result {
        try FlagsTool.run(arguments + ["--manifest", manifest, "--overrides", overrides])
    }

    @Test func listFiltersByPhaseAndMarksOverrides() throws {
        _ = try flags("set", "virtualized_scroll", "false")
        let result = try flags("list", "--phase", "2")
        #expect(
            result
                == FlagsTool.Result(
                    status: 0,
                    standardOutput: """
                          KEY                  TYPE     VALUE  LAYER     PHASE
                          chat_view_redesign   boolean  true   build     2
                          message_card_system  boolean  true   build     2
                        * virtualized_scroll   boolean  false  override  2
                        3 flags, 1 overridden (*)

                        """,
                    standardError: ""))
    }

    @Test func listSearchesAsJSONForARelease() throws {
        let result = try flags("list", "--search", "retry", "--configuration", "release", "--format", "json")
        #expect(
            result
                == FlagsTool.Result(
                    status: 0,
                    standardOutput: """
                        [
                          {"displayName":"Stream interactions","key":"stream_interactions","layer":"default","overridden":false,"owner":"messaging","phase":3,"reason":"DEFAULT","type":"boolean","value":false},
                          {"displayName":"Message retry","key":"message_retry","layer":"default","overridden":false,"owner":"messaging","phase":7,"reason":"DEFAULT","type":"boolean","value":true},
                          {"displayName":"Send retry policy","key":"retry_policy","layer":"default","overridden":false,"owner":"messaging","reason":"DEFAULT","type":"object","value":{"attempts":3,"backoffSeconds":1.5}}
                        ]

                        """,
                    standardError: ""))
    }

    @Test func setGetClearAndResetWorkOnTheFile() throws {
        #expect(try flags("set", "page_size", "25").standardOutput == "page_size = 25 (override)\n")
        #expect(try flags("set", "onboarding_variant", "Say hi").standardOutput
            == "onboarding_variant = \"Say hi\" (override)\n")
        #expect(try String(contentsOfFile: overrides, encoding: .utf8)
            == #"{"onboarding_variant":"Say hi","page_size":25}"# + "\n")
        #expect(
            try flags("get", "page_size")
                == FlagsTool.Result(
                    status: 0,
                    standardOutput: """
                        page_size = 25
                          Session list page size
                          type integer, owner performance
                          winning layer: override (STATIC), overridden
                            default: 50 (shadowed)
                            build: 10 (shadowed)
                            remote: —
                            user: —
                            override: 25 (selected)

                        """,
                    standardError: ""))
        #expect(try flags("clear", "page_size").standardOutput == "page_size = 10 (build)\n")
        #expect(try flags("reset").standardOutput == "Removed 1 override.\n")
        #expect(try String(contentsOfFile: overrides, encoding: .utf8) == "{}\n")
    }

    /// In release the overrides are kept but ignored; `reset` there still counts and clears
    /// what the file keeps.
    @Test func resetInReleaseCountsTheKeptOverrides() throws {
        _ = try flags("set", "voice_input", "false")
        #expect(try flags("reset", "--configuration", "release").standardOutput == "Removed 1 override.\n")
        #expect(try String(contentsOfFile: overrides, encoding: .utf8) == "{}\n")
    }

    @Test func getExplainsEveryLayerAsJSON() throws {
        _ = try flags("set", "voice_input", "false", "--configuration", "release")
        _ = try flags("set", "voice_input", "false")
        #expect(
            try flags("get", "voice_input", "--configuration", "release", "--format", "json")
                == FlagsTool.Result(
                    status: 0,
                    standardOutput: #"{"displayName":"Voice input","key":"voice_input","layer":"default","layers":[{"layer":"default","status":"selected","value":true},{"layer":"build","status":"unset"},{"layer":"remote","status":"unset"},{"layer":"user","status":"unset"},{"layer":"override","reason":"overrides are not permitted in release","status":"ignored","value":false}],"overridden":false,"owner":"input","phase":7,"reason":"DEFAULT","type":"boolean","value":true}"# + "\n",
                    standardError: ""))
    }

    @Test func unknownKeyAndWrongTypeFailWithStatusOne() throws {
        #expect(
            try flags("set", "chat_view_redesig", "true")
                == FlagsTool.Result(
                    status: 1, standardOutput: "",
                    standardError: "error: There is no flag 'chat_view_redesig' in the manifest. Did you mean 'chat_view_redesign'?\n"))
        #expect(
            try flags("set", "page_size", "many")
                == FlagsTool.Result(
                    status: 1, standardOutput: "",
                    standardError: "error: 'many' is not a valid integer for flag 'page_size'. Use a whole number such as 20.\n"))
        #expect(try flags("get", "nope").status == 1)
        #expect(
            try flags("set", "voice_input", "true", "--configuration", "release").standardError
                == "error: Cannot override 'voice_input': overrides are not permitted in release builds.\n")
    }

    @Test func badManifestsFailWithStatusTwoNamingFileAndField() throws {
        func write(_ text: String) throws -> String {
            let url = directory.appendingPathComponent("bad.json")
            try text.write(to: url, atomically: true, encoding: .utf8)
            return url.path
        }
        let malformed = try write("{\"flags\": {\n")
        #expect(
            try FlagsTool.run(["list", "--manifest", malformed, "--overrides", overrides])
                == FlagsTool.Result(
                    status: 2, standardOutput: "",
                    standardError: "error: \(malformed):2: not valid JSON: expected a string key (column 1).\n"))
        let wrongType = try write(
            #"{"flags": {"a": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on", "metadata": {"userTogglable": "yes"}}}}"#)
        #expect(
            try FlagsTool.run(["list", "--manifest", wrongType, "--overrides", overrides]).standardError
                == "error: \(wrongType):1: flags.a.metadata.userTogglable: expected a Boolean, found a string.\n")
        let unknownField = try write(
            #"{"flags": {"a": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on", "owner": "me"}}}"#)
        #expect(
            try FlagsTool.run(["get", "a", "--manifest", unknownField, "--overrides", overrides])
                == FlagsTool.Result(
                    status: 2, standardOutput: "",
                    standardError: "error: \(unknownField):1: flags.a.owner: unknown field; a flag may only have defaultVariant, metadata, state, targeting, variants.\n"))
        let missing = directory.appendingPathComponent("missing.json").path
        #expect(
            try FlagsTool.run(["list", "--manifest", missing, "--overrides", overrides]).standardError
                == "error: \(missing): no such file. Pass the path of a flag manifest with --manifest.\n")
    }

    @Test func corruptOverrideFileIsReportedAndKept() throws {
        try "{not json".write(toFile: overrides, atomically: true, encoding: .utf8)
        let result = try flags("list")
        #expect(result.status == 2)
        #expect(result.standardError == "error: \(overrides):1: the override file is not valid JSON: expected a string key in an object (column 2). Fix or delete it.\n")
        #expect(try String(contentsOfFile: overrides, encoding: .utf8) == "{not json")
    }

    /// `flags set` reads values as launch arguments do (the core's parser), not as JSON.
    @Test(arguments: [
        ("YES", "true"), ("no", "false"), ("1", "true"), ("off", "false"), ("True", "true"),
    ])
    func setAcceptsWhatLaunchArgumentsAccept(text: String, shown: String) throws {
        #expect(try flags("set", "virtualized_scroll", text).standardOutput == "virtualized_scroll = \(shown) (override)\n")
        #expect(
            try flags("set", "stream_flush_interval", "0.5").standardOutput
                == "stream_flush_interval = 0.5 (override)\n")
        #expect(
            try flags("set", "virtualized_scroll", "maybe").standardError
                == "error: 'maybe' is not a valid boolean for flag 'virtualized_scroll'. Use true or false (also YES/NO, 1/0, on/off).\n")
    }

    /// A key twice in the override file: JSON readers would keep one silently, so every
    /// command that reads the file (with the core's reader of the format, the debug menu's)
    /// names the key and the line, and leaves the file alone.
    @Test(arguments: [["list"], ["get", "page_size"], ["set", "page_size", "30"]])
    func duplicateKeyInTheOverrideFileIsReported(command: [String]) throws {
        let text = "{\n  \"page_size\": 20,\n  \"page_size\": 25\n}\n"
        try text.write(toFile: overrides, atomically: true, encoding: .utf8)
        let result = try flags(command)
        #expect(
            result
                == FlagsTool.Result(
                    status: 2, standardOutput: "",
                    standardError: "error: \(overrides):3: the override file is not valid JSON: duplicate key \"page_size\" in an object; each key may appear only once (column 3). Fix or delete it.\n"))
        #expect(try String(contentsOfFile: overrides, encoding: .utf8) == text)
    }

    @Test func usageErrorsExitWithStatusTwo() throws {
        let result = try FlagsTool.run(["list", "--overrides", overrides])
        #expect(result.status == 2)
        #expect(result.standardError.hasPrefix("Error: Missing expected argument '--manifest <manifest>'"))
    }
}
