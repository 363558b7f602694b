import ArgumentParser
import FeatureFlags
import FlagTooling

struct SetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Set a local override and save it to the override file.")

    @Argument(help: "The flag key.")
    var key: String

    @Argument(help: "The value as JSON (true, 20, 0.5, {\"a\":1}); any text for string flags.")
    var value: String

    @OptionGroup var options: OverrideOptions

    func run() throws {
        let row = try options.session().setOverride(key: key, text: value)
        Output.standardOutput("\(row.definition.key) = \(row.shownValue) (\(row.details.layer))\n")
    }
}
