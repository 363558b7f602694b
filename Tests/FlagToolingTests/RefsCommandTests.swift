import FlagTooling
import Foundation
import Testing

/// Whole-output tests of `flags refs` on a fixture tree with every reference shape.
struct RefsCommandTests {
    let fixture = TestPaths.fixtures.appendingPathComponent("Refs")

    @Test func reportsReferencesUnusedFlagsUnknownKeysAndDueFlags() throws {
        let result = try FlagsTool.run(
            ["refs", "--manifest", "flags.json", "--sources", "Sources", "--app-version", "3.0"], in: fixture)
        #expect(result.standardError == "")
        #expect(result.status == 0)
        #expect(
            result.standardOutput == """
                chat_view_redesign: 3 references
                  Sources/App/Chat/ChatView.swift:8: enum case .chatViewRedesign
                  Sources/App/Chat/ChatView.swift:11: enum case AppFlag.chatViewRedesign
                  Sources/App/Chat/ChatView.swift:21: key string "chat_view_redesign"
                voice_input: 2 references
                  Sources/App/Chat/ChatView.swift:14: enum case .voiceInput
                  Sources/App/Chat/ChatView.swift:19: key string "voice_input"
                old_onboarding: 1 reference
                  Sources/App/Chat/ChatView.swift:24: key string "old_onboarding"
                chat.page_size: 2 references
                  Sources/App/Chat/ChatView.swift:16: typed constant AppConfig.pageSize
                  Sources/App/Chat/ChatView.swift:16: generated accessor flags.chatPageSize

                Unreferenced flags (2):
                  export_share
                  chat.retry_count

                Keys not in the manifest (3):
                  Sources/App/Chat/ChatView.swift:20: "chat_redesign" (forKey:)
                  Sources/App/Flags.swift:9: "legacy_mode" (enum case)
                  Sources/App/Flags.swift:26: "ghost.value" (TypedFlag<Int>)

                Due for removal at 3.0 (3):
                  chat_view_redesign (target 3.0, owner messaging): 3 references
                    Sources/App/Chat/ChatView.swift:8
                    Sources/App/Chat/ChatView.swift:11
                    Sources/App/Chat/ChatView.swift:21
                  old_onboarding (target 2.0, owner growth): 1 reference
                    Sources/App/Chat/ChatView.swift:24
                  export_share (target 2.5, owner sessions): no references; remove it from the manifest

                """)
    }

    @Test func jsonFormat() throws {
        let result = try FlagsTool.run(
            ["refs", "--manifest", "flags.json", "--sources", "Sources/App/Chat/ChatView.swift", "--format", "json"],
            in: fixture)
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix(#"{"flags":[{"key":"chat_view_redesign","references":[{"column":28,"file":"Sources/App/Chat/ChatView.swift","key":"chat_view_redesign","kind":"enum case","line":8,"text":".chatViewRedesign"}"#))
        #expect(result.standardOutput.contains(#""unreferenced":["old_onboarding","export_share","chat.retry_count"]"#) == false)
        #expect(result.standardOutput.contains(#""unreferenced":["export_share","chat.retry_count"]"#))
        #expect(!result.standardOutput.contains("dueForRemoval"))
    }

    @Test func strictFailsOnUnknownKeysOrDueFlags() throws {
        let strict = try FlagsTool.run(
            ["refs", "--manifest", "flags.json", "--sources", "Sources", "--app-version", "1.0", "--strict"], in: fixture)
        #expect(strict.status == 1)  // unknown keys
        let clean = try FlagsTool.run(
            ["refs", "--manifest", "flags.json", "--sources", "Sources/App/Generated", "--app-version", "1.0", "--strict"],
            in: fixture)
        #expect(clean.status == 0)
        let due = try FlagsTool.run(
            ["refs", "--manifest", "flags.json", "--sources", "Sources/App/Generated", "--app-version", "2.0", "--strict"],
            in: fixture)
        #expect(due.status == 1)
        #expect(due.standardOutput.hasSuffix("""
            Due for removal at 2.0 (1):
              old_onboarding (target 2.0, owner growth): no references; remove it from the manifest

            """))
    }

    @Test func missingSourcesFailWithStatusTwo() throws {
        let missing = try FlagsTool.run(["refs", "--manifest", "flags.json", "--sources", "Nope"], in: fixture)
        #expect(missing == FlagsTool.Result(
            status: 2, standardOutput: "", standardError: "error: Nope: no such file or folder (given to --sources).\n"))
        let none = try FlagsTool.run(["refs", "--manifest", "flags.json"], in: fixture)
        #expect(none.status == 2)
    }
}
