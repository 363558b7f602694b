import ArgumentParser
import FeatureFlags
import FlagTooling

struct ClearCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear", abstract: "Remove one flag's local override.")

    @Argument(help: "The flag key.")
    var key: String

    @OptionGroup var options: OverrideOptions

    func run() throws {
        let row = try options.session().clearOverride(key: key)
        Output.standardOutput("\(row.definition.key) = \(row.shownValue) (\(row.details.layer))\n")
    }
}
