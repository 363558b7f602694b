import ArgumentParser
import FlagServer

@main
struct FlagServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flag-server",
        abstract: "A feature-flag server: OFREP, app_config and flagd delivery, and a JSON admin API.",
        version: "flag-server \(FlagServer.version)",
        subcommands: [
            ServeCommand.self, RelayCommand.self, AddUserCommand.self, SetUserCommand.self, ResetPasswordCommand.self, AddTokenCommand.self,
        ],
        defaultSubcommand: ServeCommand.self
    )
}
