import ArgumentParser
import FlagTooling

struct RemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Not implemented yet.")

    func run() throws {
        throw ToolingError(.failed, "'flags remove' is not implemented yet.")
    }
}
