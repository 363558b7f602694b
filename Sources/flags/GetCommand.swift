import ArgumentParser
import FeatureFlags
import FlagTooling

struct GetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get", abstract: "Explain one flag: its value, winning layer and what every layer says.")

    @Argument(help: "The flag key.")
    var key: String

    @OptionGroup var options: OverrideOptions

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    func run() throws {
        let row = try options.session().row(forKey: key)
        Output.standardOutput(format == .json ? row.detailedJSON.jsonString + "\n" : FlagTable.details(row))
    }
}
