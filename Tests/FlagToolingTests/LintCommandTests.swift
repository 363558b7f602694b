import FlagTooling
import Foundation
import Testing

/// Whole-output tests of `flags lint`, running the built tool.
struct LintCommandTests {
    let lintFixtures = TestPaths.fixtures.appendingPathComponent("Lint")

    @Test func reportsEveryProblemAndFailsWithStatusOne() throws {
        let result = try FlagsTool.run(["lint", "--manifest", "problems.json", "--app-version", "3.1"], in: lintFixtures)
        #expect(result.status == 1)
        #expect(result.standardError == "")
        #expect(
            result.standardOutput == """
                problems.json:3: error: [removal-due] 'old_onboarding' was due for removal in 2.4 and the app is at 3.1. Remove it (flags remove old_onboarding --keep on|off) or move its removal target.
                problems.json:7: warning: [missing-owner] 'newSearch' has no owner. Add metadata "owner" naming the team responsible for it.
                problems.json:7: warning: [missing-description] 'newSearch' has no description. Add metadata "description" saying what it changes.
                problems.json:7: warning: [key-naming] 'newSearch' does not follow the naming convention: lower snake_case words, with dots between namespaces (chat.page_size).
                problems.json:11: error: [dependency-cycle] Flags depend on each other in a cycle: a_flag → b_flag → a_flag. Remove one of these requirements to break the cycle.
                problems.json:19: error: [unknown-dependency] Flag 'c_flag' requires 'ghost_flag', which is not in the registry. Declare 'ghost_flag' or remove it from 'c_flag'.
                problems.json:19: error: [requires-and-conflicts] Flag 'c_flag' both requires and conflicts with 'd_flag', so it could never be on. Keep only one of the two relations.
                problems.json:23: error: [invalid-removal-target] 'd_flag' has the removal target "soon", which is not a version X.Y or X.Y.Z.
                problems.json:27: error: [duplicate-key] 'a_flag' is declared 2 times (lines 11, 27); JSON readers keep only one. Remove or rename the duplicates.
                6 errors, 3 warnings

                """)
    }

    @Test func jsonFormatForCI() throws {
        let result = try FlagsTool.run(
            ["lint", "--manifest", "problems.json", "--app-version", "3.1", "--format", "json"], in: lintFixtures)
        #expect(result.status == 1)
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.prefix(5) == [
            "{", #"  "manifest": "problems.json","#, #"  "errors": 6,"#, #"  "warnings": 3,"#, #"  "findings": ["#,
        ])
        #expect(lines[5] == #"    {"key":"old_onboarding","line":3,"message":"'old_onboarding' was due for removal in 2.4 and the app is at 3.1. Remove it (flags remove old_onboarding --keep on|off) or move its removal target.","rule":"removal-due","severity":"error"},"#)
        #expect(lines.suffix(2) == ["  ]", "}"])
    }

    /// The example registry's typed values have no description or removal target: warnings only.
    @Test func warningsAlonePass() throws {
        let path = TestPaths.exampleManifest.path
        let result = try FlagsTool.run(["lint", "--manifest", TestPaths.exampleManifest.path, "--app-version", "2.9"])
        #expect(
            result
                == FlagsTool.Result(
                    status: 0,
                    standardOutput: """
                        \(path):572: warning: [missing-removal-target] 'page_size' has no removal target. Add metadata "removalTarget" so it does not live forever.
                        \(path):572: warning: [missing-description] 'page_size' has no description. Add metadata "description" saying what it changes.
                        \(path):586: warning: [missing-removal-target] 'stream_flush_interval' has no removal target. Add metadata "removalTarget" so it does not live forever.
                        \(path):586: warning: [missing-description] 'stream_flush_interval' has no description. Add metadata "description" saying what it changes.
                        \(path):599: warning: [missing-removal-target] 'onboarding_variant' has no removal target. Add metadata "removalTarget" so it does not live forever.
                        \(path):599: warning: [missing-description] 'onboarding_variant' has no description. Add metadata "description" saying what it changes.
                        \(path):612: warning: [missing-removal-target] 'composer_style' has no removal target. Add metadata "removalTarget" so it does not live forever.
                        \(path):612: warning: [missing-description] 'composer_style' has no description. Add metadata "description" saying what it changes.
                        \(path):626: warning: [missing-removal-target] 'retry_policy' has no removal target. Add metadata "removalTarget" so it does not live forever.
                        \(path):626: warning: [missing-description] 'retry_policy' has no description. Add metadata "description" saying what it changes.
                        \(path):639: warning: [missing-removal-target] 'auth.magic_link_resend_cooldown_seconds' has no removal target. Add metadata "removalTarget" so it does not live forever.
                        \(path):654: warning: [missing-removal-target] 'cues.page_size' has no removal target. Add metadata "removalTarget" so it does not live forever.
                        \(path):668: warning: [missing-removal-target] 'analytics.session_replay_enabled' has no removal target. Add metadata "removalTarget" so it does not live forever.
                        \(path):685: warning: [missing-removal-target] 'analytics.first_party_events_enabled' has no removal target. Add metadata "removalTarget" so it does not live forever.
                        \(path):702: warning: [missing-removal-target] 'analytics.flush_interval_seconds' has no removal target. Add metadata "removalTarget" so it does not live forever.
                        \(path):717: warning: [missing-removal-target] 'dev_tools.developer_menu_available' has no removal target. Add metadata "removalTarget" so it does not live forever.
                        \(path):737: warning: [missing-removal-target] 'dev_tools.network_console_log_limit' has no removal target. Add metadata "removalTarget" so it does not live forever.
                        0 errors, 17 warnings

                        """,
                    standardError: ""))
    }

    @Test func everyFlagIsDueAtItsRemovalTarget() throws {
        let result = try FlagsTool.run(
            ["lint", "--manifest", TestPaths.exampleManifest.path, "--app-version", "3.0.0", "--format", "json"])
        #expect(result.status == 1)
        #expect(result.standardOutput.contains(#""errors": 32,"#))
    }

    @Test func badVersionOrManifestExitWithStatusTwo() throws {
        let badVersion = try FlagsTool.run(["lint", "--manifest", "problems.json", "--app-version", "3"], in: lintFixtures)
        #expect(badVersion.status == 2)
        #expect(badVersion.standardError.hasPrefix("Error: '3' is not a version; use X.Y or X.Y.Z, such as 3.1.\n"))
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try #"{"flags": {"a": {"state": "ON", "variants": {"on": true}, "defaultVariant": "on"}}}"#
            .write(to: directory.appendingPathComponent("bad.json"), atomically: true, encoding: .utf8)
        #expect(
            try FlagsTool.run(["lint", "--manifest", "bad.json", "--app-version", "1.0"], in: directory)
                == FlagsTool.Result(
                    status: 2, standardOutput: "",
                    standardError: "error: bad.json:1: flags.a.state: expected \"ENABLED\" or \"DISABLED\", found \"ON\".\n"))
    }
}

struct ManifestLinterTests {
    @Test func versionsCompareByComponent() {
        #expect(AppVersion("3.0") == AppVersion("3.0.0"))
        #expect(AppVersion("2.10")! > AppVersion("2.9")!)
        #expect(AppVersion("3") == nil)
        #expect(AppVersion("3.x") == nil)
        #expect(AppVersion("1.2.3.4") == nil)
    }

    @Test(arguments: [
        ("chat_view_redesign", true), ("chat.page_size", true), ("auth.magic_link_resend_cooldown", true),
        ("v2_api", true), ("chatViewRedesign", false), ("Chat", false), ("chat__x", false), ("chat.", false),
        ("_chat", false), ("chat-view", false), ("2fa", false),
    ])
    func namingConvention(key: String, follows: Bool) {
        #expect(ManifestLinter.followsNamingConvention(key) == follows)
    }
}
