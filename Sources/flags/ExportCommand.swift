import ArgumentParser
import FeatureFlags
import FlagManifest
import FlagServerClient
import FlagTooling
import Foundation

/// `flags export`: the manifest of a registry declared in Swift, read from the sources.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the manifest of a flag enum declared in Swift, read from its sources (nothing is compiled).",
        discussion: """
            Reads the enum conforming to FeatureFlagKey with swift-syntax: its cases, the FlagMetadata \
            of each case in its `metadata` switch, and the TypedFlag or FlagDefinition constants listed \
            in `typedFlags`. Arguments must be literals (numbers, strings, Booleans, arrays, \
            dictionaries, enum cases, Type(label: value) calls for Codable values, ranges such as \
            1...500); anything else is an error naming the file and line. A `validate` closure is \
            code the manifest cannot hold and is left out. Exit status: 0 written; 2 usage error or sources that \
            cannot be read.
            """)

    @Option(name: .long, parsing: .upToNextOption, help: "Swift files or folders declaring the flag enum and its typed values.")
    var sources: [String]

    @Option(name: .long, help: "The flag enum, when the sources declare more than one.")
    var enumName: String?

    @Option(name: .long, help: "The manifest file to write (default: standard output).")
    var output: String?

    @Option(name: .long, help: "flagd's flag-set metadata flagSetId.")
    var flagSetID: String?

    func validate() throws {
        guard !sources.isEmpty else { throw ValidationError("Give at least one folder or file with --sources.") }
    }

    func run() throws {
        var files: [(path: String, text: String)] = []
        for path in try SwiftSourceFiles.find(in: sources) {
            files.append((path, try SwiftSourceFiles.read(path)))
        }
        let manifest = try SwiftRegistryReader().read(sources: files, enumName: enumName, flagSetID: flagSetID)
        do {
            _ = try manifest.registry()
        } catch {
            throw ToolingError(.invalidInput, "The declarations are inconsistent: \(error.description)")
        }
        let text = manifest.jsonString()
        guard let output else {
            Output.standardOutput(text)
            return
        }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw ToolingError(.invalidInput, "Cannot write \(output): \(error.localizedDescription)")
        }
        Output.standardOutput("Wrote \(output) (\(manifest.flags.count) flags).\n")
    }
}
