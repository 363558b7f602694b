import ArgumentParser

@main
struct Flags: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flags",
        abstract: "Manage and evaluate feature flags.",
        subcommands: [EvalCommand.self]
    )
}
