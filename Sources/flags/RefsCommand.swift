import ArgumentParser
import FlagManifest
import FlagTooling

struct RefsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refs",
        abstract: "Find where Swift sources use each flag, unused flags, unknown keys and flags due for removal.",
        discussion: """
            With --server (or --evidence), a last section lists the flags the server's events \
            find unused or settled, with their references. Exit status: 0 (a report), or with \
            --strict 1 when keys are not in the manifest or flags are due for removal; 2 usage \
            error or unreadable input; 3 the server cannot be reached, refused the token or \
            answered an error.
            """)

    @OptionGroup var options: ManifestOption

    @Option(name: .long, parsing: .upToNextOption, help: "Swift files or folders to read.")
    var sources: [String]

    @Option(name: .long, help: "The app version, X.Y or X.Y.Z: lists the flags due for removal and their references.")
    var appVersion: String?

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    @Flag(name: .long, help: "Exit with status 1 when keys are not in the manifest or flags are due for removal.")
    var strict = false

    @OptionGroup var evidence: EvidenceOptions

    func validate() throws {
        guard !sources.isEmpty else { throw ValidationError("Give at least one folder or file with --sources.") }
        if let appVersion, AppVersion(appVersion) == nil {
            throw ValidationError("'\(appVersion)' is not a version; use X.Y or X.Y.Z, such as 3.1.")
        }
    }

    func run() throws {
        let (manifest, _) = try options.load()
        let report = try ReferenceFinder(manifest: manifest).scan(files: SwiftSourceFiles.find(in: sources))
        let version = appVersion.flatMap(AppVersion.init)
        let evidence = try evidence.load()
        Output.standardOutput(
            format == .json
                ? report.json(appVersion: version, evidence: evidence) : report.text(appVersion: version, evidence: evidence))
        if strict, !report.unknownKeys.isEmpty || !(version.map(report.dueForRemoval(at:)) ?? []).isEmpty {
            throw ExitCode(1)
        }
    }
}
