import ArgumentParser
import FeatureFlags
import FlagManifest
import FlagServerClient
import FlagTooling

/// `flags push`: registers the app's flag definitions on a flag server.
struct PushCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Register the app's flags on a flag server: types, variants, owners, phases, removal targets, dependencies.",
        discussion: """
            Shows the differences (as `flags diff`), asks the server for a dry run of the write, \
            then registers every new or changed flag in one atomic write (all or none). The \
            server's variants are kept (a variant is added only when none holds the code default's \
            value), so nothing the server serves is deleted or overwritten. The manifest's x- \
            annotations are set as the flag's own metadata; the server's other metadata keys are \
            kept. \
            Environment settings (on/off, targeting) are not touched unless --settings names an \
            environment: a new flag starts off in every environment on its code default. Flags only on the server are left alone. A flag \
            whose type in code differs from the server's is refused, naming both types, unless \
            --allow-type-change is given: then the server's definition is replaced and the flag is \
            switched off, without targeting, in every environment, since its old variants no \
            longer apply. Needs an admin token for all environments ("*"). Exit status: 0 \
            registered (or nothing to do, or a clean dry run); 1 refused (a type mismatch, or \
            problems the server's dry run found); 2 usage error or a manifest that cannot be read; \
            3 the server cannot be reached, refused the token or answered an error.
            """)

    @OptionGroup var app: AppManifestOptions
    @OptionGroup var connection: ServerOptions

    @Flag(name: .long, help: "Show what would change (the server checks it) and write nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Replace flags whose type differs on the server, switching them off in every environment.")
    var allowTypeChange = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Also set, in this environment, each flag's on/off (the manifest's state) and default variant (its code default); targeting rules are kept.",
            valueName: "environment"))
    var settings: String?

    @Option(name: .long, help: "Why, recorded in the server's audit log.")
    var reason: String?

    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        let manifest = try app.load()
        let client = try connection.client()
        let server = try client.definitions()
        // The app's contract over what the server keeps: its variants (and so the settings
        // serving them) stay, only what is missing is added.
        let code = ServerFlag.registrations(manifest.flags.map(ServerFlag.init), over: server)
        let diff = ServerDiff(code: manifest.flags.map(ServerFlag.init), server: server)
        var report = PushReport(diff: diff, dryRun: dryRun)
        if !json { Output.standardOutput(diff.text()) }

        if !diff.typeMismatches.isEmpty && !allowTypeChange {
            report.refusal = diff.typeMismatches.map {
                "\"\($0.key)\" is \($0.code.nameWithArticle) in code and \($0.server.nameWithArticle) on the server"
            }.joined(separator: "; ")
            return try finish(report, ToolingError(
                .failed,
                "Refused: \(report.refusal!). Nothing was written. Fix the type in code, or pass --allow-type-change to replace the server's definition (the flag is switched off in every environment)."))
        }
        let resetting = Set(diff.typeMismatches.map(\.key))
        var wanted: [String: ServerFlagSettings] = [:]
        if let environment = settings {
            let current = try client.settings(environment: environment)
            var lines: [String] = []
            for (flag, manifestFlag) in zip(code, manifest.flags) {
                let desired = ServerFlagSettings(enabled: manifestFlag.isEnabled, defaultVariant: flag.defaultVariant ?? "")
                // New flags and flags whose type changes start off on their code default.
                let now =
                    resetting.contains(flag.key) || current[flag.key] == nil
                    ? ServerFlagSettings(enabled: false, defaultVariant: desired.defaultVariant) : current[flag.key]!
                guard now != desired else { continue }
                wanted[flag.key] = desired
                report.settings.append((environment, flag.key, desired))
                lines.append(
                    "  \(flag.key): \(Self.describe(desired)) (server: \(Self.describe(now)))")
            }
            if !json {
                Output.standardOutput(
                    lines.isEmpty
                        ? "Settings in \(environment): no differences.\n"
                        : "Settings in \(environment) (targeting kept):\n" + lines.joined(separator: "\n") + "\n")
            }
        }
        let keys = Set(diff.added + diff.changed.map(\.key) + diff.typeMismatches.map(\.key) + wanted.keys)
        let flags = code.filter { keys.contains($0.key) }
        let settingsToWrite = settings.map { (environment: $0, flags: wanted) }
        guard !flags.isEmpty else {
            report.message = "Nothing to register."
            return try finish(report, nil)
        }
        let plan = try client.register(flags, resetting: resetting, settings: settingsToWrite, dryRun: true, reason: reason)
        report.changes = plan.changes
        guard plan.problems.isEmpty else {
            report.refusal = plan.problems.joined(separator: "; ")
            return try finish(report, ToolingError(
                .failed,
                "Refused by the server's dry run; nothing was written:\n  " + plan.problems.joined(separator: "\n  ")))
        }
        if dryRun {
            report.message = "Dry run: the server would make \(Self.count(plan.changes)); nothing was written."
            return try finish(report, nil)
        }
        let result = try client.register(
            flags, resetting: resetting, settings: settingsToWrite, dryRun: false, reason: reason)
        report.changes = result.changes
        report.revisions = result.revisions
        report.written = true
        let revisions = result.revisions.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        report.message =
            "Registered \(flags.count) flag\(flags.count == 1 ? "" : "s") (\(Self.count(result.changes)))"
            + (revisions.isEmpty ? "." : "; new revisions: \(revisions).")
        try finish(report, nil)
    }

    /// Prints the report's ending (text) or the whole report (JSON), then fails with `error`.
    private func finish(_ report: PushReport, _ error: ToolingError?) throws {
        if json {
            Output.standardOutput(report.json.jsonString + "\n")
            if let error { throw ExitCode(error.exitStatus) }
            return
        }
        if let error { throw error }
        if let message = report.message { Output.standardOutput(message + "\n") }
    }

    /// `on, default variant "x"`.
    private static func describe(_ settings: ServerFlagSettings) -> String {
        "\(settings.enabled ? "on" : "off"), default variant \"\(settings.defaultVariant)\""
    }

    private static func count(_ changes: [FlagServerClient.Registration.Change]) -> String {
        let environments = Set(changes.map(\.environment)).count
        return "\(changes.count) change\(changes.count == 1 ? "" : "s") in \(environments) environment\(environments == 1 ? "" : "s")"
    }
}

/// What `flags push --json` prints.
private struct PushReport {
    var diff: ServerDiff
    var dryRun: Bool
    var changes: [FlagServerClient.Registration.Change] = []
    var revisions: [String: Int] = [:]
    var written = false
    var refusal: String?
    var message: String?
    /// Settings `--settings` asks for, where they differ from the server's.
    var settings: [(environment: String, key: String, settings: ServerFlagSettings)] = []

    var json: FlagValue {
        var object: [String: FlagValue] = [
            "diff": diff.json,
            "dryRun": .bool(dryRun),
            "written": .bool(written),
            "changes": .array(changes.map {
                ["environment": .string($0.environment), "subject": .string($0.subject), "key": .string($0.key)]
            }),
            "revisions": .object(revisions.mapValues(FlagValue.int)),
        ]
        if !settings.isEmpty {
            object["settings"] = .array(settings.map {
                [
                    "environment": .string($0.environment), "key": .string($0.key),
                    "enabled": .bool($0.settings.enabled), "defaultVariant": .string($0.settings.defaultVariant),
                ]
            })
        }
        if let refusal { object["refused"] = .string(refusal) }
        if let message { object["message"] = .string(message) }
        return .object(object)
    }
}
