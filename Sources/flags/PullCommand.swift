import ArgumentParser
import FlagManifest
import FlagServerClient
import FlagTooling
import Foundation

/// `flags pull`: a flag server's definitions as a manifest.
struct PullCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pull",
        abstract: "Write a flag server's definitions as a manifest that the other commands read.",
        discussion: """
            Each flag's type, variants, code default, registry metadata (display name, \
            description, owner, phase, removal target, requires, conflicts, sensitive) and its own \
            metadata under x- keys, sorted by key; other metadata keys cannot be written in a \
            manifest and are named in a warning (flags push keeps them). With --environment, \
            each flag's state and default variant are that environment's (targeting rules are not \
            part of a manifest), the default variant as the code default: where it is not the \
            registered code default, flags diff shows it. A manifest pulled without --environment \
            compares clean. Exit status: 0 written; 2 usage error or \
            a file that cannot be written; 3 the server cannot be reached, refused the token or \
            answered an error.
            """)

    @OptionGroup var connection: ServerOptions

    @Option(name: .long, help: "Take each flag's state and default variant from this environment.")
    var environment: String?

    @Option(name: .long, help: "The manifest file to write (default: standard output).")
    var output: String?

    @Option(name: .long, help: "flagd's flag-set metadata flagSetId.")
    var flagSetID: String?

    func run() throws {
        let client = try connection.client()
        let flags = try client.definitions()
        let settings = try environment.map { environment throws(ToolingError) in try client.settings(environment: environment) }
        let (manifest, warnings) = try Manifest.pulled(from: flags, settings: settings, flagSetID: flagSetID)
        for warning in warnings { Output.warning(warning) }
        let text = manifest.jsonString()
        // What is written must read back as a manifest and a registry, as the other commands read it.
        do {
            _ = try ManifestReader().read(text, file: output ?? "<stdout>").registry()
        } catch {
            throw ToolingError(.serverFailure, "The server's definitions do not make a valid manifest: \(error).")
        }
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
