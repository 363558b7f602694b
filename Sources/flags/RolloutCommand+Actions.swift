import ArgumentParser
import FeatureFlags
import FlagServerClient
import FlagTooling
import Foundation

/// The plan and the target of `flags rollout start|pause|resume|rollback`.
struct RolloutActionOptions: ParsableArguments {
    @Argument(help: "The plan's id (ro-…).")
    var id: String

    @OptionGroup var target: EnvironmentTarget

    func validate() throws {
        try KeyArgument.checkID(id, option: "id")
    }

    /// `POST …/rollouts/<id>/<action>` with `{"comment"?}`, printing the plan it answers.
    func perform(_ action: String, activity: String, comment: String?, done: String) throws {
        let path = target.rolloutPath(id, action)
        let client = try target.connection.client()
        let data = try client.send(
            "POST", path, body: .object(comment.map { ["comment": .string($0)] } ?? [:]),
            purpose: .change("\(activity) rollout plans", environment: target.environment))
        try target.printPlan(data, from: "POST \(path)", client: client, prefix: done + " ")
    }
}

/// `flags rollout start`.
struct RolloutStartCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start",
        abstract: "Start a draft or rolled-back plan: it serves its first step.",
        discussion: "The flag must have no targeting other than the plan's own split (409 otherwise).")

    @OptionGroup var plan: RolloutActionOptions

    func run() throws {
        try plan.perform("start", activity: "starting", comment: nil, done: "Started")
    }
}

/// `flags rollout pause`.
struct RolloutPauseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause", abstract: "Pause a running plan: the current split is held until it is resumed.")

    @OptionGroup var plan: RolloutActionOptions

    @Option(name: .long, help: "Why, kept in the plan's history.")
    var comment: String?

    func validate() throws {
        if let comment, comment.count > 1000 { throw ValidationError("--comment: at most 1000 characters.") }
    }

    func run() throws {
        try plan.perform("pause", activity: "pausing", comment: comment, done: "Paused")
    }
}

/// `flags rollout resume`.
struct RolloutResumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Resume a paused plan: the same units, and the step's duration restarts.")

    @OptionGroup var plan: RolloutActionOptions

    func run() throws {
        try plan.perform("resume", activity: "resuming", comment: nil, done: "Resumed")
    }
}

/// `flags rollout rollback`.
struct RolloutRollbackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollback", abstract: "Roll a running or paused plan back: the old variant for everyone.")

    @OptionGroup var plan: RolloutActionOptions

    @Option(name: .long, help: "Why, kept in the plan's history and the audit.")
    var comment: String?

    func validate() throws {
        if let comment, comment.count > 1000 { throw ValidationError("--comment: at most 1000 characters.") }
    }

    func run() throws {
        try plan.perform("rollback", activity: "rolling back", comment: comment, done: "Rolled back")
    }
}
