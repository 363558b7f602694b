import ArgumentParser
import FeatureFlags
import FlagTooling

struct SetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Set a local override and save it to the override file.")

    @Argument(help: "The flag key.")
    var key: String

    @Argument(help: "The value, as launch arguments take it: true/false, YES/NO, 1/0 or on/off; 20; 0.5; any text for string flags; JSON for objects ({\"a\":1}).")
    var value: String

    @OptionGroup var options: OverrideOptions

    func run() throws {
        let row = try options.session().setOverride(key: key, text: value)
        Output.standardOutput("\(row.definition.key) = \(row.shownValue) (\(row.details.layer))\n")
    }
}
