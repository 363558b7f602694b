import ArgumentParser
import FlagTooling

struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "generate", abstract: "Not implemented yet.")

    func run() throws {
        throw ToolingError(.failed, "'flags generate' is not implemented yet.")
    }
}
