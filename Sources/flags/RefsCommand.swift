import ArgumentParser
import FlagTooling

struct RefsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "refs", abstract: "Not implemented yet.")

    func run() throws {
        throw ToolingError(.failed, "'flags refs' is not implemented yet.")
    }
}
