import ArgumentParser
import FlagManifest
import FlagTooling
import Foundation

struct RemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove a flag for good: rewrite the sources as if it were always on or off.",
        discussion: """
            Simplifies if/else, guard, ternaries, !, && and || over the flag's checks, the \
            featureGated and withFeature view modifiers, removes the enum case and the flag \
            from the manifest (keeping its formatting and comments), and prints a diff. Refuses, \
            with exit status 1 and nothing written, a removal that would change another flag: \
            kept off, the flags that require it would be always off; kept on, the flags that \
            conflict with it would be; the message names them and the order to remove them in. \
            Exit status 1 also when references remain that need a manual edit; they are listed \
            with their lines in the rewritten files. With --server (or --evidence), the plan \
            cites the server's evidence for the flag (which variant every unit was served, since \
            when, on which app versions) and warns when the kept value differs from it.
            """)

    enum Keep: String, ExpressibleByArgument, CaseIterable {
        case on, off
    }

    @Argument(help: "The key of the flag to remove.")
    var key: String

    @Option(name: .long, help: "Whether the flag's behaviour stays on or off.")
    var keep: Keep

    @OptionGroup var options: ManifestOption

    @Option(name: .long, parsing: .upToNextOption, help: "Swift files or folders to rewrite.")
    var sources: [String]

    @Flag(name: .long, help: "Show the changes without writing them.")
    var dryRun = false

    @OptionGroup var evidence: EvidenceOptions

    func validate() throws {
        guard !sources.isEmpty else { throw ValidationError("Give at least one folder or file with --sources.") }
    }

    func run() throws {
        // Read first: a server that cannot answer stops the removal before anything is planned.
        let evidence = try self.evidence.load()
        let (manifest, _) = try options.load()
        let manifestBefore = (try? String(contentsOfFile: options.manifest, encoding: .utf8)) ?? ""
        let remover = try FlagRemover(manifest: manifest, key: key, keep: keep == .on)
        let plan = try remover.plan(files: SwiftSourceFiles.find(in: sources))
        Output.standardOutput(plan.summary(manifestPath: options.manifest, manifestBefore: manifestBefore))
        if let evidence { Output.standardOutput(plan.evidenceText(evidence)) }
        if dryRun {
            Output.standardOutput("Dry run: nothing was written.\n")
        } else {
            try plan.apply(manifestPath: options.manifest, manifestBefore: manifestBefore)
        }
        if !plan.remaining.isEmpty { throw ExitCode(1) }
    }
}
