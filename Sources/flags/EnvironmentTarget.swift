import ArgumentParser
import FlagServerClient
import FlagTooling
import Foundation

/// `--environment`, `--json`, and the server connection of the commands that manage one
/// environment's objects on a flag server (`flags schedule`, `rollout`, `change-request`,
/// `approval-rule`).
struct EnvironmentTarget: ParsableArguments {
    @OptionGroup var connection: ServerOptions

    @Option(name: .long, help: "The environment.")
    var environment: String

    @Flag(name: .long, help: "Print the server's JSON instead of text.")
    var json = false

    func validate() throws {
        try KeyArgument.check(environment, option: "--environment")
    }

    /// `/admin/v1/environments/<environment>/<components…>`.
    func path(_ components: String...) -> String { path(components) }

    func path(_ components: [String]) -> String {
        FlagServerClient.adminPath(["environments", environment] + components)
    }

    /// Prints `data` (the server's JSON) with `--json`, else `text` of it decoded as `T`.
    func print<T: Decodable>(_ data: Data, as type: T.Type, from operation: String, client: FlagServerClient, _ text: (T) -> String)
        throws
    {
        try ServerAnswer.print(data, json: json, as: type, from: operation, client: client, text)
    }
}

/// How the server-managing commands print an answer.
enum ServerAnswer {
    /// Prints `data` as it came (`json`), or `text` of it decoded as `T`.
    static func print<T: Decodable>(
        _ data: Data, json: Bool, as type: T.Type, from operation: String, client: FlagServerClient, _ text: (T) -> String
    ) throws {
        if json {
            Output.standardOutput(String(decoding: data, as: UTF8.self) + "\n")
        } else {
            Output.standardOutput(text(try client.decodeAnswer(type, data, from: operation)))
        }
    }
}
