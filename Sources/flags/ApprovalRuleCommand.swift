import ArgumentParser
import FeatureFlags
import FlagServerClient
import FlagTooling
import Foundation

/// `flags approval-rule`: an environment's approval rule (Server/Docs/Approvals.md).
struct ApprovalRuleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approval-rule",
        abstract: "Show, set and remove an environment's approval rule.",
        discussion: """
            A rule says how many identities other than the author approve the changes it covers \
            (settings, segments, definitions). A rule asking for less than the current one is \
            refused (409): propose it as a change request. Exit status: 0 done; 2 usage error \
            (checked before any request); 3 the server cannot be reached, refused the token or \
            answered an error (its message is quoted).
            """,
        subcommands: [ApprovalRuleShowCommand.self, ApprovalRuleSetCommand.self, ApprovalRuleRemoveCommand.self])
}

/// Prints the server's JSON, or the rule.
private func printRule(_ data: Data, target: EnvironmentTarget, from operation: String, client: FlagServerClient, prefix: String = "") throws {
    if target.json {
        Output.standardOutput(String(decoding: data, as: UTF8.self) + "\n")
    } else {
        Output.standardOutput(prefix + (try client.decodeAnswer(ApprovalRuleRequest.self, data, from: operation)).text(environment: target.environment))
    }
}

/// `flags approval-rule show`.
struct ApprovalRuleShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show an environment's approval rule (exit status 3, a 404, when it has none).")

    @OptionGroup var target: EnvironmentTarget

    func run() throws {
        let path = target.path("approval-rule")
        let client = try target.connection.client()
        let data = try client.send("GET", path, purpose: .read(environment: target.environment))
        try printRule(data, target: target, from: "GET \(path)", client: client)
    }
}

/// `flags approval-rule set`.
struct ApprovalRuleSetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set an environment's approval rule.",
        discussion: "For example: flags approval-rule set --environment production --required-approvals 2 --applies-to settings,segments")

    @OptionGroup var target: EnvironmentTarget

    @Option(name: .long, help: "How many identities other than the author must approve (1–10).")
    var requiredApprovals: Int

    @Option(
        name: .long, parsing: .singleValue,
        help: ArgumentHelp("What it covers: settings, segments, definitions (comma-separated or repeated; default all three).", valueName: "scopes"))
    var appliesTo: [String] = []

    @Option(name: .long, help: "Why, recorded in the audit log.")
    var reason: String?

    var rule: ApprovalRuleRequest {
        let scopes = appliesTo.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        return ApprovalRuleRequest(requiredApprovals: requiredApprovals, appliesTo: scopes.isEmpty ? nil : scopes, reason: reason)
    }

    func validate() throws {
        // Thrown while parsing, a ToolingError would not be the usage error (exit status 2) it is.
        do { try rule.check() } catch { throw ValidationError(error.message) }
    }

    func run() throws {
        let path = target.path("approval-rule")
        let client = try target.connection.client()
        let data = try client.send("PUT", path, body: rule.body, purpose: .change("setting approval rules", environment: target.environment))
        try printRule(data, target: target, from: "PUT \(path)", client: client, prefix: "Set the rule of ")
    }
}

/// `flags approval-rule remove`.
struct ApprovalRuleRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove an environment's approval rule.",
        discussion: "Refused (409) under a rule: removing it is a change the rule governs; propose it as a change request.")

    @OptionGroup var target: EnvironmentTarget

    @Option(name: .long, help: "Why, recorded in the audit log.")
    var reason: String?

    func validate() throws {
        if let reason, reason.utf8.count > 1000 { throw ValidationError("--reason: at most 1000 bytes.") }
    }

    func run() throws {
        let path = target.path("approval-rule")
        _ = try target.connection.client().send(
            "DELETE", path, query: reason.map { [("reason", $0)] } ?? [],
            purpose: .change("removing approval rules", environment: target.environment))
        if !target.json { Output.standardOutput("Removed the approval rule of \(target.environment).\n") }
    }
}
