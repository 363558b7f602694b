import ArgumentParser
import FlagTooling

struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lint", abstract: "Not implemented yet.")

    func run() throws {
        throw ToolingError(.failed, "'flags lint' is not implemented yet.")
    }
}
