import ArgumentParser
import FlagManifest
import FlagServerClient
import FlagTooling

struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check flags against their removal targets, dependencies, ownership and naming.",
        discussion: """
            With --server (or --evidence), also warns for the flags the server's events find \
            unused (nothing evaluated them for --evidence-days days) or settled (one variant \
            served to every unit for those days on every app version still sending). \
            Exit status: 0 no errors (warnings alone pass); 1 errors found; 2 usage error or a \
            manifest that cannot be read; 3 the server cannot be reached, refused the token or \
            answered an error.
            """)

    @OptionGroup var options: ManifestOption

    @Option(name: .long, help: "The app version being built, X.Y or X.Y.Z; flags due at or below it are errors.")
    var appVersion: String

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    @OptionGroup var evidence: EvidenceOptions

    func validate() throws {
        guard AppVersion(appVersion) != nil else {
            throw ValidationError("'\(appVersion)' is not a version; use X.Y or X.Y.Z, such as 3.1.")
        }
    }

    func run() throws {
        let manifest: Manifest
        do {
            manifest = try ManifestReader(allowsDuplicateFlags: true).read(contentsOfFile: options.manifest)
        } catch {
            throw ToolingError(.invalidInput, error.description)
        }
        var findings = ManifestLinter(appVersion: AppVersion(appVersion)!).lint(manifest)
        if let evidence = try evidence.load() {
            findings += EvidenceLinter(evidence: evidence).lint(manifest)
        }
        Output.standardOutput(
            format == .json
                ? LintReport.json(findings, file: options.manifest) : LintReport.text(findings, file: options.manifest))
        if findings.contains(where: { $0.severity == .error }) {
            throw ExitCode(1)
        }
    }
}
