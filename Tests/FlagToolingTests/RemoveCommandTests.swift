import FeatureFlags
import FlagManifest
import Foundation
import Testing

/// Whole-output tests of `flags remove`, running the built tool on a small temporary tree.
struct RemoveCommandTests {
    let directory: URL

    init() throws {
        directory = try TestPaths.temporaryDirectory()
        let manifest = Manifest(definitions: [
            FlagDefinition(key: "new_chat", type: .boolean, default: false, owner: "messaging", removalTarget: "3.0"),
            FlagDefinition(key: "voice", type: .boolean, default: false, requires: ["new_chat"]),
            FlagDefinition(key: "page_size", type: .integer, default: 20, followsPhasePolicy: false, checking: .userOnly),
        ])
        try manifest.jsonString().write(to: directory.appendingPathComponent("flags.json"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("Sources"), withIntermediateDirectories: true)
        try """
            func title() -> String {
                if flags.isEnabled(.newChat) {
                    return "new"
                }
                return "old"
            }

            """.write(to: directory.appendingPathComponent("Sources/Title.swift"), atomically: true, encoding: .utf8)
    }

    func flags(_ arguments: String...) throws -> FlagsTool.Result {
        try FlagsTool.run(arguments, in: directory)
    }

    @Test func dryRunPrintsTheDiffAndWritesNothing() throws {
        let before = try String(contentsOf: directory.appendingPathComponent("Sources/Title.swift"), encoding: .utf8)
        let result = try flags(
            "remove", "new_chat", "--keep", "on", "--manifest", "flags.json", "--sources", "Sources", "--dry-run")
        #expect(
            result
                == FlagsTool.Result(
                    status: 0,
                    standardOutput: """
                        --- a/Sources/Title.swift
                        +++ b/Sources/Title.swift
                        @@ -1,7 +1,4 @@
                         func title() -> String {
                        -    if flags.isEnabled(.newChat) {
                        -        return "new"
                        -    }
                        -    return "old"
                        +    return "new"
                         }
                         
                        --- a/flags.json
                        +++ b/flags.json
                        @@ -2,19 +2,4 @@
                           "$schema": "https://flagd.dev/schema/v0/flags.json",
                           "flags": {
                        -    "new_chat": {
                        -      "state": "ENABLED",
                        -      "variants": {
                        -        "on": true,
                        -        "off": false
                        -      },
                        -      "defaultVariant": "off",
                        -      "metadata": {
                        -        "key": "new_chat",
                        -        "type": "boolean",
                        -        "displayName": "New chat",
                        -        "owner": "messaging",
                        -        "removalTarget": "3.0"
                        -      }
                        -    },
                             "voice": {
                               "state": "ENABLED",
                        @@ -27,6 +12,5 @@
                                 "key": "voice",
                                 "type": "boolean",
                        -        "displayName": "Voice",
                        -        "requires": "new_chat"
                        +        "displayName": "Voice"
                               }
                             },

                        Removed 'new_chat', kept on: 1 file rewritten, manifest updated.
                          Sources/Title.swift: kept the body of an if
                        Dry run: nothing was written.

                        """,
                    standardError: ""))
        #expect(try String(contentsOf: directory.appendingPathComponent("Sources/Title.swift"), encoding: .utf8) == before)
    }

    @Test func removalWritesSourcesAndManifest() throws {
        let result = try flags("remove", "new_chat", "--keep", "on", "--manifest", "flags.json", "--sources", "Sources")
        #expect(result.status == 0)
        #expect(result.standardOutput.hasSuffix("""
            Removed 'new_chat', kept on: 1 file rewritten, manifest updated.
              Sources/Title.swift: kept the body of an if

            """))
        #expect(try String(contentsOf: directory.appendingPathComponent("Sources/Title.swift"), encoding: .utf8) == """
            func title() -> String {
                return "new"
            }

            """)
        let manifest = try ManifestReader().read(contentsOfFile: directory.appendingPathComponent("flags.json").path)
        #expect(manifest.flags.map(\.key) == ["voice", "page_size"])
        #expect(manifest.flags[0].definition.requires.isEmpty)
    }

    /// Kept off, `new_chat` would leave `voice` (which requires it) always off; dropping the
    /// requirement would let `voice` turn on where it never could. The tool refuses, says why and
    /// what to do, and writes nothing.
    @Test func removalThatWouldChangeAnotherFlagIsRefused() throws {
        let manifestBefore = try String(contentsOf: directory.appendingPathComponent("flags.json"), encoding: .utf8)
        let result = try flags("remove", "new_chat", "--keep", "off", "--manifest", "flags.json", "--sources", "Sources")
        #expect(
            result
                == FlagsTool.Result(
                    status: 1, standardOutput: "",
                    standardError: "error: Removing 'new_chat' kept off would change other flags: 'voice' requires 'new_chat', so it would always be off. Remove it first, in this order: flags remove voice --keep off; or keep 'new_chat' on.\n"))
        #expect(try String(contentsOf: directory.appendingPathComponent("flags.json"), encoding: .utf8) == manifestBefore)
        // Following the advice works.
        #expect(try flags("remove", "voice", "--keep", "off", "--manifest", "flags.json", "--sources", "Sources").status == 0)
        #expect(try flags("remove", "new_chat", "--keep", "off", "--manifest", "flags.json", "--sources", "Sources").status == 0)
    }

    @Test func errors() throws {
        #expect(
            try flags("remove", "old_chat", "--keep", "on", "--manifest", "flags.json", "--sources", "Sources")
                == FlagsTool.Result(status: 1, standardOutput: "", standardError: "error: There is no flag 'old_chat' in the manifest.\n"))
        #expect(
            try flags("remove", "page_size", "--keep", "on", "--manifest", "flags.json", "--sources", "Sources")
                == FlagsTool.Result(
                    status: 1, standardOutput: "",
                    standardError: "error: 'page_size' is an integer value, not a Boolean flag; only Boolean flags can be kept on or off.\n"))
        let usage = try flags("remove", "new_chat", "--keep", "maybe", "--manifest", "flags.json", "--sources", "Sources")
        #expect(usage.status == 2)
        #expect(usage.standardError.hasPrefix("Error: The value 'maybe' is invalid for '--keep <keep>'"))
    }

    @Test func referencesLeftForManualEditFailWithStatusOne() throws {
        try "let name = AppFlag.newChat.metadata.displayName\n".write(
            to: directory.appendingPathComponent("Sources/Name.swift"), atomically: true, encoding: .utf8)
        let result = try flags(
            "remove", "new_chat", "--keep", "on", "--manifest", "flags.json", "--sources", "Sources", "--dry-run")
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("left for you: Sources/Name.swift:1: enum case AppFlag.newChat\n"))
    }
}
