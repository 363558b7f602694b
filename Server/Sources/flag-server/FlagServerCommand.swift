import ArgumentParser

@main
struct FlagServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flag-server",
        abstract: "A feature-flag server: OFREP, app_config and flagd delivery, and a JSON admin API.",
        subcommands: [ServeCommand.self, AddUserCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}
