import ArgumentParser
import FeatureFlags
import FlagServerClient
import FlagTooling
import Foundation

/// `flags change-request`: an environment's change requests (Server/Docs/Approvals.md).
struct ChangeRequestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "change-request",
        abstract: "List, show, create, edit, approve, reject and apply a flag server's change requests.",
        discussion: """
            Where an environment's approval rule covers a change, it goes through a change request: \
            the server computes its exact diff, identities other than the author approve it, and it \
            applies only while the flag is where it was (Server/Docs/Approvals.md). Exit status: 0 \
            done; 2 usage error (checked before any request); 3 the server cannot be reached, \
            refused the token or answered an error (its message is quoted).
            """,
        subcommands: [
            ChangeRequestListCommand.self, ChangeRequestShowCommand.self, ChangeRequestCreateCommand.self,
            ChangeRequestEditCommand.self, ChangeRequestReviewCommand.Approve.self, ChangeRequestReviewCommand.Reject.self,
            ChangeRequestApplyCommand.self,
        ])
}

extension EnvironmentTarget {
    /// Prints the server's JSON, or the change request it holds.
    func printRequest(_ data: Data, from operation: String, client: FlagServerClient, prefix: String = "") throws {
        try print(data, as: ServerChangeRequest.self, from: operation, client: client) { prefix + $0.details }
    }
}

/// `flags change-request list`.
struct ChangeRequestListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List an environment's change requests, newest first.",
        discussion: "Columns: id, status, approvals (of those the rule asks for now), author, change.")

    @OptionGroup var target: EnvironmentTarget

    @Option(name: .long, help: "At most this many (1–1000; the server's default is 100).")
    var limit: Int?

    func validate() throws {
        if let limit, !(1...1000).contains(limit) { throw ValidationError("--limit must be from 1 to 1000.") }
    }

    func run() throws {
        let path = target.path("change-requests")
        let client = try target.connection.client()
        let data = try client.send("GET", path, query: limit.map { [("limit", String($0))] } ?? [], purpose: .read(environment: target.environment))
        if target.json {
            Output.standardOutput(String(decoding: data, as: UTF8.self) + "\n")
        } else {
            Output.standardOutput(ServerChangeRequest.table(try client.decodeAnswer([ServerChangeRequest].self, data, from: "GET \(path)")))
        }
    }
}

/// `flags change-request show`.
struct ChangeRequestShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a change request: status, author, approvals, the revision it is based on and its exact diff.",
        discussion: "The diff is the server's: each touched subject before and after (sensitive values come redacted).")

    @Argument(help: "The request's id (cr-…).")
    var id: String

    @OptionGroup var target: EnvironmentTarget

    func validate() throws {
        try KeyArgument.checkID(id, option: "id")
    }

    func run() throws {
        let path = target.path("change-requests", id)
        let client = try target.connection.client()
        let data = try client.send("GET", path, purpose: .read(environment: target.environment))
        try target.printRequest(data, from: "GET \(path)", client: client)
    }
}

/// `flags change-request create`.
struct ChangeRequestCreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Propose a change of one flag's settings in one environment.",
        discussion: """
            For example: flags change-request create checkout --environment production --enable \
            --reason "launch". --enable, --disable and --default-variant patch the settings \
            (targeting is kept); --settings-json replaces them. The server answers the exact diff.
            """)

    @Argument(help: "The flag's key.")
    var flag: String

    @OptionGroup var target: EnvironmentTarget

    @OptionGroup var change: ScheduleChangeOptions

    @Option(name: .long, help: "Why, shown to approvers and recorded in the audit log (required).")
    var reason: String

    @Option(name: .long, help: "Not applied before this time: ISO 8601 with a time zone or from now (+2h).")
    var applyAt: String?

    func validate() throws {
        try KeyArgument.check(flag, option: "flag")
    }

    func run() throws {
        let applyTime = try applyAt.map { text throws(ToolingError) in try DurationText.time(text, now: Date(), option: "--apply-at") }
        try ScheduledChangeRequest.checkReason(reason)
        guard let change = try change.change() else {
            throw ToolingError(.invalidInput, "Give the change: --enable, --disable, --default-variant VARIANT or --settings-json FILE.")
        }
        let body = ChangeRequestBody.body(proposal: ChangeRequestBody.flagProposal(flag, change: change), reason: reason, applyAt: applyTime)
        let path = target.path("change-requests")
        let client = try target.connection.client()
        let data = try client.send("POST", path, body: body, purpose: .change("proposing changes", environment: target.environment))
        try target.printRequest(data, from: "POST \(path)", client: client, prefix: "Opened ")
    }
}

/// `flags change-request edit`.
struct ChangeRequestEditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Change an open request's change, reason or time (its author only; every approval is withdrawn).",
        discussion: """
            Reads the request, replaces what the options give and keeps the rest. The server \
            computes the diff again and bases the request on the flag's current revision.
            """)

    @Argument(help: "The request's id (cr-…).")
    var id: String

    @OptionGroup var target: EnvironmentTarget

    @OptionGroup var change: ScheduleChangeOptions

    @Option(name: .long, help: "The new reason.")
    var reason: String?

    @Option(name: .long, help: "The new time before which it is not applied: ISO 8601 with a time zone or from now (+2h).")
    var applyAt: String?

    func validate() throws {
        try KeyArgument.checkID(id, option: "id")
    }

    func run() throws {
        let applyTime = try applyAt.map { text throws(ToolingError) in try DurationText.time(text, now: Date(), option: "--apply-at") }
        if let reason { try ScheduledChangeRequest.checkReason(reason) }
        let newChange = try change.change()
        guard applyTime != nil || reason != nil || newChange != nil else {
            throw ToolingError(
                .invalidInput,
                "Nothing to edit: give --apply-at, --reason or a change (--enable, --disable, --default-variant, --settings-json).")
        }
        let path = target.path("change-requests", id)
        let client = try target.connection.client()
        let current = try client.decodeAnswer(
            ServerChangeRequest.self, try client.send("GET", path, purpose: .read(environment: target.environment)), from: "GET \(path)")
        var proposal = FlagValue.object(current.proposal)
        if let newChange {
            guard case .string(let flag)? = current.proposal["flag"] else {
                throw ToolingError(.invalidInput, "\(id) does not change a flag's settings; edit it through the admin API.")
            }
            proposal = ChangeRequestBody.flagProposal(flag, change: newChange)
        }
        let keptTime = try current.applyAt.map { text throws(ToolingError) in
            guard let time = try? Date(text, strategy: .iso8601) else {
                throw ToolingError(.serverFailure, "The server's answer to GET \(path) has an applyAt that is not ISO 8601: \"\(text)\".")
            }
            return time
        }
        let body = ChangeRequestBody.body(proposal: proposal, reason: reason ?? current.reason, applyAt: applyTime ?? keptTime)
        let data = try client.send("PUT", path, body: body, purpose: .change("editing change requests", environment: target.environment))
        try target.printRequest(data, from: "PUT \(path)", client: client, prefix: "Edited ")
    }
}

/// `flags change-request approve` and `reject`.
enum ChangeRequestReviewCommand {
    /// `--comment`, the id and the target.
    struct Review: ParsableArguments {
        @Argument(help: "The request's id (cr-…).")
        var id: String

        @OptionGroup var target: EnvironmentTarget

        @Option(name: .long, help: "A comment, kept with the approval or rejection.")
        var comment: String?

        func validate() throws {
            try KeyArgument.checkID(id, option: "id")
            if let comment, comment.utf8.count > 1000 { throw ValidationError("--comment: at most 1000 bytes.") }
        }

        func run(_ action: String, _ done: String) throws {
            let path = target.path("change-requests", id, action)
            let client = try target.connection.client()
            let body: FlagValue = .object(comment.map { ["comment": .string($0)] } ?? [:])
            let data = try client.send("POST", path, body: body, purpose: .change("reviewing change requests", environment: target.environment))
            try target.printRequest(data, from: "POST \(path)", client: client, prefix: done + " ")
        }
    }

    struct Approve: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "approve", abstract: "Approve a change request (not your own; once per identity).")

        @OptionGroup var review: Review

        func run() throws { try review.run("approve", "Approved") }
    }

    struct Reject: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reject", abstract: "Reject a change request, closing it (its author may reject their own).")

        @OptionGroup var review: Review

        func run() throws { try review.run("reject", "Rejected") }
    }
}

/// `flags change-request apply`.
struct ChangeRequestApplyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Apply an approved change request.",
        discussion: """
            Refused (exit status 3, the server's message quoted) without the approvals the rule asks \
            for now, before its apply-at time, or when the flag changed since the request's revision.
            """)

    @Argument(help: "The request's id (cr-…).")
    var id: String

    @OptionGroup var target: EnvironmentTarget

    func validate() throws {
        try KeyArgument.checkID(id, option: "id")
    }

    func run() throws {
        let path = target.path("change-requests", id, "apply")
        let client = try target.connection.client()
        let data = try client.send("POST", path, purpose: .change("applying change requests", environment: target.environment))
        try target.printRequest(data, from: "POST \(path)", client: client, prefix: "Applied ")
    }
}
