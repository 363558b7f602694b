import ArgumentParser
import FlagManifest
import FlagServerClient
import FlagTooling
import Foundation

struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate the Swift flag enum, typed values and accessors from a manifest.")

    @OptionGroup var options: ManifestOption

    @Option(name: .long, help: "The directory to write <enum-name>.swift into (created when needed).")
    var output: String

    @Option(name: .long, help: "The name of the generated flag enum.")
    var enumName: String = "AppFlag"

    @Option(name: .long, help: "The name of the namespace of typed values (default: <enum-name>Values).")
    var valuesName: String?

    @Option(name: .long, help: "The access level of the generated declarations: internal or public.")
    var accessLevel: String = "internal"

    func validate() throws {
        guard ["internal", "public", "package"].contains(accessLevel) else {
            throw ValidationError("'\(accessLevel)' is not an access level; use internal, package or public.")
        }
    }

    func run() throws {
        let (manifest, _) = try options.load()
        let generator = FlagCodeGenerator(enumName: enumName, valuesName: valuesName, accessLevel: accessLevel)
        let (code, notes) = generator.generate(
            manifest, source: URL(fileURLWithPath: options.manifest).lastPathComponent)
        for note in notes { Output.warning(note) }
        let directory = URL(fileURLWithPath: output)
        let file = directory.appendingPathComponent(generator.fileName)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            // Leave an unchanged file alone, so builds that watch it are not redone.
            if FileManager.default.contents(atPath: file.path) != Data(code.utf8) {
                try Data(code.utf8).write(to: file, options: .atomic)
            }
        } catch {
            throw ToolingError(.invalidInput, "Cannot write \(file.path): \(error.localizedDescription)")
        }
        Output.standardOutput("Wrote \(file.path) (\(manifest.flags.count) flags).\n")
    }
}
