import ArgumentParser
import FeatureFlags
import FlagServerClient
import FlagTooling
import Foundation

/// `flags rollout`: a flag server's progressive rollouts with guardrails.
struct RolloutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollout",
        abstract: "Create, inspect and drive a flag server's progressive rollouts, and manage their templates.",
        discussion: """
            A rollout plan moves one flag in one environment from an old variant to a new one in \
            steps, while guardrails compare the two (Server/Docs/Rollouts.md). Exit status: 0 \
            done; 2 usage error (checked before any request); 3 the server cannot be reached, \
            refused the token or answered an error (its message is quoted).
            """,
        subcommands: [
            RolloutListCommand.self, RolloutShowCommand.self, RolloutCreateCommand.self,
            RolloutStartCommand.self, RolloutPauseCommand.self, RolloutResumeCommand.self, RolloutRollbackCommand.self,
            RolloutDeleteCommand.self, RolloutTemplateCommand.self,
        ])
}

extension EnvironmentTarget {
    /// `/admin/v1/environments/<environment>/rollouts/<components…>`.
    func rolloutPath(_ components: String...) -> String { path(["rollouts"] + components) }

    /// Prints the server's JSON, or the plan it holds.
    func printPlan(_ data: Data, from operation: String, client: FlagServerClient, prefix: String = "") throws {
        try print(data, as: ServerRolloutPlan.self, from: operation, client: client) { prefix + $0.details }
    }
}

/// `flags rollout list`.
struct RolloutListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List an environment's rollout plans (or one flag's), newest first.")

    @OptionGroup var target: EnvironmentTarget

    @Option(name: .long, help: "Only this flag's plans.")
    var flag: String?

    @Option(name: .long, help: "At most this many (1–500; the server's default is 100).")
    var limit: Int?

    func validate() throws {
        if let flag { try KeyArgument.check(flag, option: "--flag") }
        if let limit, !(1...500).contains(limit) { throw ValidationError("--limit must be from 1 to 500.") }
    }

    func run() throws {
        let path = target.rolloutPath()
        var query: [(name: String, value: String)] = []
        if let flag { query.append(("flag", flag)) }
        if let limit { query.append(("limit", String(limit))) }
        let client = try target.connection.client()
        let data = try client.send("GET", path, query: query, purpose: .read(environment: target.environment))
        if target.json {
            Output.standardOutput(String(decoding: data, as: UTF8.self) + "\n")
        } else {
            Output.standardOutput(ServerRolloutPlan.table(try client.decodeAnswer([ServerRolloutPlan].self, data, from: "GET \(path)")))
        }
    }
}

/// `flags rollout show`.
struct RolloutShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a plan: its steps with the current one marked (>), status, guardrails and their latest numbers.")

    @Argument(help: "The plan's id (ro-…).")
    var id: String

    @OptionGroup var target: EnvironmentTarget

    func validate() throws {
        try KeyArgument.checkID(id, option: "id")
    }

    func run() throws {
        let path = target.rolloutPath(id)
        let client = try target.connection.client()
        try target.printPlan(try client.send("GET", path, purpose: .read(environment: target.environment)), from: "GET \(path)", client: client)
    }
}

/// `--steps`, `--guardrail`, `--alpha`, `--evaluation-interval`, `--on-regression`, `--restart`:
/// a plan's or a template's shape.
struct RolloutShapeOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The steps as percent:duration, the last 100 (its duration is not used), such as 1:1h,5:1h,25:2h,50:2h,100.",
            valueName: "steps"))
    var steps: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A guardrail, metric[:event]:tolerance[:direction] (metric crash_rate, error_rate or event_rate with its event; direction increase, the default, or decrease). Repeatable, up to 10.",
            valueName: "guardrail"))
    var guardrail: [String] = []

    @Option(name: .long, help: "The sequential test's error rate, 0.001–0.2 (the server's default 0.05).")
    var alpha: Double?

    @Option(name: .long, help: "How often the guardrails are evaluated, 1s–1d, such as 5m (the server's default 5m).")
    var evaluationInterval: String?

    @Option(name: .long, help: "What a regression does: pause or rollback (the server's default rollback).")
    var onRegression: String?

    @Option(name: .long, help: "Which units a rolled-back plan serves first when started again: same_units (the server's default) or new_units.")
    var restart: String?

    func validate() throws {
        if guardrail.count > 10 { throw ValidationError("--guardrail: at most 10 guardrails.") }
        if let alpha, !(0.001...0.2).contains(alpha) { throw ValidationError("--alpha must be from 0.001 to 0.2.") }
        if let onRegression, !["pause", "rollback"].contains(onRegression) {
            throw ValidationError("--on-regression must be pause or rollback.")
        }
        if let restart, !["same_units", "new_units"].contains(restart) {
            throw ValidationError("--restart must be same_units or new_units.")
        }
    }

    /// The fields these options give, checked.
    func fields() throws(ToolingError) -> [String: FlagValue] {
        var object: [String: FlagValue] = [:]
        if let steps { object["steps"] = .array(try RolloutSpecification.steps(steps).map(\.json)) }
        if !guardrail.isEmpty {
            var guardrails: [FlagValue] = []
            for text in guardrail { guardrails.append(try RolloutSpecification.guardrail(text)) }
            object["guardrails"] = .array(guardrails)
        }
        if let alpha { object["alpha"] = .double(alpha) }
        if let evaluationInterval {
            let seconds = try DurationText.seconds(evaluationInterval, option: "--evaluation-interval")
            guard seconds <= 86400 else { throw ToolingError(.invalidInput, "--evaluation-interval: at most 1d.") }
            object["evaluationIntervalSeconds"] = .int(seconds)
        }
        if let onRegression { object["onRegression"] = .string(onRegression) }
        if let restart { object["restart"] = .string(restart) }
        return object
    }
}

/// `flags rollout create`.
struct RolloutCreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a draft rollout plan from a template, from --steps, or a template with options overriding it.",
        discussion: """
            For example: flags rollout create checkout --environment production --from off --to on \
            --steps 1:1h,5:1h,25:2h,50:2h,100 --guardrail crash_rate:0.005. Without --from, the \
            plan moves from the variant the flag serves by default in the environment now. The \
            plan is a draft until `flags rollout start`.
            """)

    @Argument(help: "The flag's key.")
    var flag: String

    @OptionGroup var target: EnvironmentTarget

    @Option(name: .long, help: "The variant served now, the old one (default: the flag's default variant in the environment).")
    var from: String?

    @Option(name: .long, help: "The variant to roll out (the new one).")
    var to: String

    @Option(name: .long, help: "A rollout template's name.")
    var template: String?

    @OptionGroup var shape: RolloutShapeOptions

    func validate() throws {
        try KeyArgument.check(flag, option: "flag")
        for (option, variant) in [("--from", from), ("--to", to)] {
            if let variant, !(1...128).contains(variant.count) {
                throw ValidationError("\(option): a variant's name is 1 to 128 characters.")
            }
        }
        if from == to { throw ValidationError("--from and --to must be different variants.") }
        if let template { try KeyArgument.check(template, option: "--template") }
        if template == nil && shape.steps == nil { throw ValidationError("Give --template NAME or --steps (or both).") }
    }

    func run() throws {
        var body = try shape.fields()
        let client = try target.connection.client()
        body["flag"] = .string(flag)
        body["oldVariant"] = .string(try from ?? currentDefaultVariant(client))
        body["newVariant"] = .string(to)
        if let template { body["template"] = .string(template) }
        let path = target.rolloutPath()
        let data = try client.send(
            "POST", path, body: .object(body), purpose: .change("creating rollout plans", environment: target.environment))
        try target.printPlan(data, from: "POST \(path)", client: client, prefix: "Created ")
    }
}

extension RolloutCreateCommand {
    /// The flag's default variant in the environment, the one a plan without `--from` moves from.
    func currentDefaultVariant(_ client: FlagServerClient) throws(ToolingError) -> String {
        struct Answer: Decodable {
            struct Settings: Decodable { var defaultVariant: String }
            var settings: Settings
        }
        let path = FlagServerClient.adminPath(["environments", target.environment, "flags", flag])
        let data = try client.send("GET", path, purpose: .read(environment: target.environment))
        let variant = try client.decodeAnswer(Answer.self, data, from: "GET \(path)").settings.defaultVariant
        guard variant != to else {
            throw ToolingError(
                .invalidInput, "\"\(flag)\" already serves \"\(to)\" by default in \(target.environment); give the variant to move from with --from.")
        }
        return variant
    }
}

/// `flags rollout delete`.
struct RolloutDeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a plan that is not running or paused (its history goes with it).")

    @Argument(help: "The plan's id (ro-…).")
    var id: String

    @OptionGroup var target: EnvironmentTarget

    func validate() throws {
        try KeyArgument.checkID(id, option: "id")
    }

    func run() throws {
        let path = target.rolloutPath(id)
        _ = try target.connection.client().send(
            "DELETE", path, purpose: .change("deleting rollout plans", environment: target.environment))
        if !target.json { Output.standardOutput("Deleted rollout plan \(id).\n") }
    }
}
