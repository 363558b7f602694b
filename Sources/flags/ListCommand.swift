import ArgumentParser
import FeatureFlags
import FlagTooling

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List flags with their values, winning layers and overrides.")

    @OptionGroup var options: OverrideOptions

    @Option(name: .long, help: "Show only flags whose key, name, description or owner contains this text.")
    var search: String?

    @Option(name: .long, help: "Show only flags of this phase.")
    var phase: Int?

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    func run() throws {
        let rows = try options.session().rows(matching: search, phase: phase)
        Output.standardOutput(format == .json ? FlagTable.json(rows) : FlagTable.text(rows))
    }
}
