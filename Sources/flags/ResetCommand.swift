import ArgumentParser
import FeatureFlags
import FlagTooling

struct ResetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset", abstract: "Remove every local override of the manifest's flags.")

    @OptionGroup var options: OverrideOptions

    func run() throws {
        let count = try options.session().removeAllOverrides()
        Output.standardOutput("Removed \(count) override\(count == 1 ? "" : "s").\n")
    }
}
