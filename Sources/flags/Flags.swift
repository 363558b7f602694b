import ArgumentParser
import FlagServerClient
import FlagTooling
import Foundation

/// The `flags` command: inspect and override flags, lint their lifecycle, generate Swift code,
/// find and remove stale flags.
@main
struct Flags: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flags",
        abstract: "Manage feature flags from a manifest: inspect, override, lint, generate, find and remove; sync with a flag server.",
        discussion: """
            The manifest is a flagd flag-definition file whose flags carry the registry (type, owner, \
            phase, removal target, dependencies…) in their metadata.

            Exit status: 0 success; 1 the command found a problem (an unknown flag, a wrong value, \
            lint errors, flags that differ from a server's); 2 usage error, or a manifest or override \
            file that cannot be used; 3 a flag server cannot be reached, refused the token or \
            answered an error.
            """,
        subcommands: [
            // Overrides: the command-line debug menu.
            ListCommand.self, GetCommand.self, SetCommand.self, ClearCommand.self, ResetCommand.self,
            // Lifecycle.
            LintCommand.self, GenerateCommand.self, ExportCommand.self, RefsCommand.self, RemoveCommand.self,
            // Evaluation.
            EvalCommand.self,
            // Experiments.
            StatsCommand.self,
            // A flag server.
            PushCommand.self, PullCommand.self, DiffCommand.self,
            ScheduleCommand.self, RolloutCommand.self, ChangeRequestCommand.self, ApprovalRuleCommand.self,
        ]
    )

    /// Runs the command, mapping failures to the documented exit statuses.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let failure as ToolingError {
            Output.error(failure.message)
            Foundation.exit(failure.exitStatus)
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                Output.standardError(fullMessage(for: error) + "\n")
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
