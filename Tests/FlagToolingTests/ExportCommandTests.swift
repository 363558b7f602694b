import ExampleFlags
import FeatureFlags
import FlagManifest
import FlagServerClient
import FlagTooling
import Foundation
import Testing

/// `flags export` reads the registry from Swift sources; it must say what the compiled
/// declarations say (the in-process export).
struct ExportCommandTests {
    let exampleSources = TestPaths.packageRoot.appendingPathComponent("Examples/ExampleFlags")

    @Test func exportOfTheExampleRegistryEqualsTheInProcessExport() throws {
        let inProcess = try Manifest(AppFlag.self, flagSetID: "example-app").jsonString()
        let result = try FlagsTool.run(["export", "--sources", exampleSources.path, "--flag-set-id", "example-app"])
        #expect(result == FlagsTool.Result(status: 0, standardOutput: inProcess, standardError: ""))
    }

    @Test func exportWritesAFile() throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("flags.json")
        let result = try FlagsTool.run(["export", "--sources", exampleSources.path, "--output", file.path])
        #expect(result == FlagsTool.Result(status: 0, standardOutput: "Wrote \(file.path) (44 flags).\n", standardError: ""))
        #expect(try String(contentsOf: file, encoding: .utf8) == (try Manifest(AppFlag.self).jsonString()))
    }

    @Test func declarationsThatAreNotLiteralsAreErrorsNamingFileLineAndFlag() throws {
        let source = """
            enum AppFlag: String, CaseIterable, FeatureFlagKey {
                case newChat = "new_chat"

                var metadata: FlagMetadata<AppFlag> {
                    switch self {
                    case .newChat: FlagMetadata("New chat", phase: currentPhase())
                    }
                }
            }
            """
        #expect {
            try SwiftRegistryReader().read(sources: [(path: "Flags.swift", text: source)])
        } throws: { error in
            (error as? ToolingError)?.message
                == "Flags.swift:6: 'new_chat' phase: currentPhase() is not a literal; flags export reads literal values only (numbers, strings, Booleans, arrays, dictionaries, enum cases, Type(label: value) calls)."
        }
        #expect {
            try SwiftRegistryReader().read(sources: [(path: "Empty.swift", text: "let x = 1\n")])
        } throws: { error in
            (error as? ToolingError)?.message == "No enum conforming to FeatureFlagKey in the sources."
        }
    }

    /// A computed list (`[...] + Other.all`) would silently lose the typed values: it is an error.
    @Test func typedFlagsThatAreNotAnArrayLiteralAreAnError() throws {
        let source = """
            enum AppFlag: String, CaseIterable, FeatureFlagKey {
                case newChat = "new_chat"

                var metadata: FlagMetadata<AppFlag> {
                    switch self {
                    case .newChat: FlagMetadata("New chat")
                    }
                }

                static let typedFlags: [any FlagDefinitionConvertible] = [Config.pageSize] + Config.all
            }
            """
        #expect {
            try SwiftRegistryReader().read(sources: [(path: "Flags.swift", text: source)])
        } throws: { error in
            (error as? ToolingError)?.message
                == "Flags.swift:10: AppFlag.typedFlags is not an array literal; flags export reads `static let typedFlags: [any FlagDefinitionConvertible] = [A.b, C.d, ...]` and would otherwise leave typed values out."
        }
    }

    @Test func oversizedSourcesAreRefusedWithTheirSize() throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("Huge.swift")
        let size = SwiftSourceFiles.maximumFileSize + 1
        try Data(repeating: UInt8(ascii: " "), count: size).write(to: file)
        let result = try FlagsTool.run(["export", "--sources", directory.path])
        #expect(
            result
                == FlagsTool.Result(
                    status: 2, standardOutput: "",
                    standardError: "error: \(file.path): \(size) bytes, more than the \(SwiftSourceFiles.maximumFileSize) a Swift source may have here; leave it out of --sources.\n"))
    }
}
