import ArgumentParser
import FeatureFlags
import FlagServerClient
import FlagTooling
import Foundation

/// `flags rollout template`: reusable plan shapes.
struct RolloutTemplateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "template",
        abstract: "List, show, create or replace, and delete rollout templates (steps, guardrails and policy without a flag).",
        discussion: "Writing or deleting a template needs an admin token for all environments (\"*\").",
        subcommands: [
            RolloutTemplateListCommand.self, RolloutTemplateShowCommand.self, RolloutTemplatePutCommand.self,
            RolloutTemplateDeleteCommand.self,
        ])
}

/// The connection and `--json` of the template commands.
struct RolloutTemplateTarget: ParsableArguments {
    @OptionGroup var connection: ServerOptions

    @Flag(name: .long, help: "Print the server's JSON instead of text.")
    var json = false

    func print<T: Decodable>(_ data: Data, as type: T.Type, from operation: String, client: FlagServerClient, _ text: (T) -> String)
        throws
    {
        try ServerAnswer.print(data, json: json, as: type, from: operation, client: client, text)
    }
}

/// `flags rollout template list`.
struct RolloutTemplateListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the rollout templates.")

    @OptionGroup var target: RolloutTemplateTarget

    func run() throws {
        let path = FlagServerClient.adminPath(["rollout-templates"])
        let client = try target.connection.client()
        let data = try client.send("GET", path, purpose: .read(environment: nil))
        try target.print(data, as: [ServerRolloutTemplate].self, from: "GET \(path)", client: client, ServerRolloutTemplate.table)
    }
}

/// `flags rollout template show`.
struct RolloutTemplateShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one rollout template.")

    @Argument(help: "The template's name.")
    var name: String

    @OptionGroup var target: RolloutTemplateTarget

    func validate() throws {
        try KeyArgument.check(name, option: "name")
    }

    func run() throws {
        let path = FlagServerClient.adminPath(["rollout-templates", name])
        let client = try target.connection.client()
        let data = try client.send("GET", path, purpose: .read(environment: nil))
        try target.print(data, as: ServerRolloutTemplate.self, from: "GET \(path)", client: client, \.details)
    }
}

/// `flags rollout template put`.
struct RolloutTemplatePutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "put",
        abstract: "Create or replace a rollout template.",
        discussion: """
            For example: flags rollout template put careful --steps 1:1h,5:1h,25:2h,50:2h,100 \
            --guardrail crash_rate:0.005 --on-regression rollback. Options left out take the \
            server's defaults (a replaced template does not keep its old values).
            """)

    @Argument(help: "The template's name.")
    var name: String

    @OptionGroup var target: RolloutTemplateTarget

    @Option(name: .long, help: "What the template is for.")
    var description: String?

    @OptionGroup var shape: RolloutShapeOptions

    func validate() throws {
        try KeyArgument.check(name, option: "name")
        if shape.steps == nil { throw ValidationError("Give the template's --steps, such as 1:1h,5:1h,25:2h,50:2h,100.") }
        if let description, description.count > 1000 { throw ValidationError("--description: at most 1000 characters.") }
    }

    func run() throws {
        var body = try shape.fields()
        if let description { body["description"] = .string(description) }
        let path = FlagServerClient.adminPath(["rollout-templates", name])
        let client = try target.connection.client()
        let data = try client.send("PUT", path, body: .object(body), purpose: .change("writing rollout templates", environment: nil))
        try target.print(data, as: ServerRolloutTemplate.self, from: "PUT \(path)", client: client) { "Stored template " + $0.details }
    }
}

/// `flags rollout template delete`.
struct RolloutTemplateDeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a rollout template (plans made from it keep their steps).")

    @Argument(help: "The template's name.")
    var name: String

    @OptionGroup var target: RolloutTemplateTarget

    func validate() throws {
        try KeyArgument.check(name, option: "name")
    }

    func run() throws {
        let path = FlagServerClient.adminPath(["rollout-templates", name])
        _ = try target.connection.client().send("DELETE", path, purpose: .change("deleting rollout templates", environment: nil))
        if !target.json { Output.standardOutput("Deleted rollout template \(name).\n") }
    }
}
