import ArgumentParser
import FeatureFlags
import FlagManifest
import FlagServerClient
import FlagTooling

/// `flags diff`: the app's manifest against a flag server's definitions.
struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare the app's flags with a flag server's definitions.",
        discussion: """
            Lists flags only in code (+), only on the server (-), with changed definitions (~: \
            variants, code default, display name, description, owner, phase, removal target, \
            requires, conflicts, sensitive, and each x- annotation, the flag's own metadata on the \
            server) and with different types (!). Environment settings (on/off, targeting), the \
            server's metadata keys the manifest does not set, and what only the app knows \
            (build-configuration defaults, userTogglable, checking, swiftName) are not compared. Values of \
            sensitive flags print as <REDACTED>. Exit status: 0 equal; 1 different; 2 usage error \
            or a manifest that cannot be read; 3 the server cannot be reached, refused the token \
            or answered an error.
            """)

    @OptionGroup var app: AppManifestOptions
    @OptionGroup var connection: ServerOptions

    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        let manifest = try app.load()
        let diff = ServerDiff(code: manifest.flags.map(ServerFlag.init), server: try connection.client().definitions())
        Output.standardOutput(json ? diff.json.jsonString + "\n" : diff.text())
        if !diff.isEmpty { throw ExitCode(1) }
    }
}
