import ArgumentParser
import FeatureFlags
import FlagServerClient
import FlagTooling
import Foundation

/// `flags schedule`: a flag server's scheduled changes.
struct ScheduleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "List, show, create, edit and cancel a flag server's scheduled changes.",
        discussion: """
            A scheduled change sets one flag's settings in one environment at a time \
            (Server/Docs/ScheduledChanges.md). Times are ISO 8601 with a time zone \
            (2026-12-01T09:00:00Z) or from now (+2h, +1d12h). Exit status: 0 done; 2 usage error \
            (checked before any request); 3 the server cannot be reached, refused the token or \
            answered an error (its message is quoted).
            """,
        subcommands: [
            ScheduleListCommand.self, ScheduleShowCommand.self, ScheduleCreateCommand.self, ScheduleEditCommand.self,
            ScheduleCancelCommand.self,
        ])
}

extension EnvironmentTarget {
    /// `/admin/v1/environments/<environment>/flags/<flag>/schedules[/<id>]`.
    func schedulePath(flag: String, id: String? = nil) -> String {
        path(["flags", flag, "schedules"] + (id.map { [$0] } ?? []))
    }
}

/// Checks names that go into a request path, as the server's keys are.
enum KeyArgument {
    static func check(_ value: String, option: String) throws {
        guard (1...128).contains(value.count),
            value.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)) })
        else {
            throw ValidationError("\(option) \"\(value)\": 1 to 128 letters, digits, '.', '_' or '-'.")
        }
    }

    static func checkID(_ value: String, option: String) throws {
        guard (1...64).contains(value.count), !value.contains("/") else {
            throw ValidationError("\(option) \"\(value)\": an id is 1 to 64 characters, without '/'.")
        }
    }
}

/// `flags schedule list`.
struct ScheduleListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List an environment's scheduled changes (or one flag's), soonest first.",
        discussion: "Columns: id, flag, time, status, outcome (or the revision a run produced).")

    @OptionGroup var target: EnvironmentTarget

    @Option(name: .long, help: "Only this flag's changes, in every status.")
    var flag: String?

    @Option(name: .long, help: "Without --flag: only changes at or after this time.")
    var from: String?

    @Option(name: .long, help: "Without --flag: only changes before this time.")
    var to: String?

    @Option(name: .long, help: "At most this many (1–1000; the server's default is 100).")
    var limit: Int?

    func validate() throws {
        if let flag { try KeyArgument.check(flag, option: "--flag") }
        if let limit, !(1...1000).contains(limit) { throw ValidationError("--limit must be from 1 to 1000.") }
        if flag != nil, from != nil || to != nil {
            throw ValidationError("--from and --to select the environment's calendar; give them without --flag.")
        }
    }

    func run() throws {
        let now = Date()
        var query: [(name: String, value: String)] = []
        if let from { query.append(("from", DurationText.text(try DurationText.time(from, now: now, option: "--from")))) }
        if let to { query.append(("to", DurationText.text(try DurationText.time(to, now: now, option: "--to")))) }
        if let limit { query.append(("limit", String(limit))) }
        let path =
            flag.map { target.schedulePath(flag: $0) }
            ?? target.path("schedules")
        let client = try target.connection.client()
        let data = try client.send("GET", path, query: query, purpose: .read(environment: target.environment))
        try target.print(data, as: [ServerScheduledChange].self, from: "GET \(path)", client: client, ServerScheduledChange.table)
    }
}

/// `flags schedule show`.
struct ScheduleShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one scheduled change.")

    @Argument(help: "The change's id (sc-…).")
    var id: String

    @Option(name: .long, help: "The flag it changes.")
    var flag: String

    @OptionGroup var target: EnvironmentTarget

    func validate() throws {
        try KeyArgument.checkID(id, option: "id")
        try KeyArgument.check(flag, option: "--flag")
    }

    func run() throws {
        let path = target.schedulePath(flag: flag, id: id)
        let client = try target.connection.client()
        let data = try client.send("GET", path, purpose: .read(environment: target.environment))
        try target.print(data, as: ServerScheduledChange.self, from: "GET \(path)", client: client, \.details)
    }
}
