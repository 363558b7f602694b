import ArgumentParser
import FeatureFlags
import FlagServerClient
import FlagTooling
import Foundation

/// `--enable`/`--disable`, `--default-variant`, `--settings-json`: what a scheduled change sets.
struct ScheduleChangeOptions: ParsableArguments {
    @Flag(name: .long, help: "Switch the flag on.")
    var enable = false

    @Flag(name: .long, help: "Switch the flag off.")
    var disable = false

    @Option(name: .long, help: "Serve this variant by default.")
    var defaultVariant: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Instead: replace the whole settings with this JSON file's ({\"enabled\", \"defaultVariant\", \"targeting\"?}).",
            valueName: "file"))
    var settingsJSON: String?

    /// The largest settings file read.
    static let maximumBytes = 1 << 20

    func validate() throws {
        if enable && disable { throw ValidationError("Give --enable or --disable, not both.") }
    }

    /// The change (`{"patch": …}` or `{"settings": …}`), or nil when no option gives one.
    func change() throws(ToolingError) -> FlagValue? {
        var file: (file: String, text: String)?
        if let settingsJSON {
            guard let data = FileManager.default.contents(atPath: settingsJSON) else {
                throw ToolingError(.invalidInput, "--settings-json: cannot read \(settingsJSON).")
            }
            guard data.count <= Self.maximumBytes else {
                throw ToolingError(.invalidInput, "--settings-json \(settingsJSON): \(data.count) bytes; at most \(Self.maximumBytes) are read.")
            }
            file = (settingsJSON, String(decoding: data, as: UTF8.self))
        }
        return try ScheduledChangeRequest.change(
            enabled: enable ? true : disable ? false : nil, defaultVariant: defaultVariant, settingsJSON: file)
    }
}

/// `flags schedule create`.
struct ScheduleCreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Schedule a change of one flag's settings in one environment.",
        discussion: """
            For example: flags schedule create checkout --environment production --at +2h \
            --enable --reason "launch". --enable, --disable and --default-variant patch the \
            settings (targeting is kept); --settings-json replaces them. The change is held, not \
            applied, if the flag changes before its time.
            """)

    @Argument(help: "The flag's key.")
    var flag: String

    @OptionGroup var target: EnvironmentTarget

    @Option(name: .long, help: "When: ISO 8601 with a time zone (2026-12-01T09:00:00Z) or from now (+2h, +1d).")
    var at: String

    @OptionGroup var change: ScheduleChangeOptions

    @Option(name: .long, help: "Why, recorded in the audit log (required).")
    var reason: String

    @Option(name: .long, help: "The revision at which the flag last changed that this change is based on (default: the current one).")
    var basedOnRevision: Int?

    func validate() throws {
        try KeyArgument.check(flag, option: "flag")
        if let basedOnRevision, basedOnRevision < 0 { throw ValidationError("--based-on-revision must be 0 or more.") }
    }

    func run() throws {
        let runAt = try DurationText.time(at, now: Date(), option: "--at")
        try ScheduledChangeRequest.checkReason(reason)
        guard let change = try change.change() else {
            throw ToolingError(.invalidInput, "Give the change: --enable, --disable, --default-variant VARIANT or --settings-json FILE.")
        }
        let body = ScheduledChangeRequest(change: change, runAt: runAt, reason: reason, basedOnRevision: basedOnRevision).body
        let path = target.schedulePath(flag: flag)
        let client = try target.connection.client()
        let data = try client.send(
            "POST", path, body: body, purpose: .change("scheduling changes", environment: target.environment))
        try target.print(data, as: ServerScheduledChange.self, from: "POST \(path)", client: client) { "Scheduled " + $0.details }
    }
}

/// `flags schedule edit`.
struct ScheduleEditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Change a pending scheduled change's time, change or reason.",
        discussion: """
            Reads the change, replaces what the options give and keeps the rest; the edit is \
            based on the version read, so a concurrent edit is refused (409) rather than lost. \
            The change is based again on the flag's current revision.
            """)

    @Argument(help: "The change's id (sc-…).")
    var id: String

    @Option(name: .long, help: "The flag it changes.")
    var flag: String

    @OptionGroup var target: EnvironmentTarget

    @Option(name: .long, help: "The new time: ISO 8601 with a time zone or from now (+2h).")
    var at: String?

    @OptionGroup var change: ScheduleChangeOptions

    @Option(name: .long, help: "The new reason.")
    var reason: String?

    func validate() throws {
        try KeyArgument.checkID(id, option: "id")
        try KeyArgument.check(flag, option: "--flag")
    }

    func run() throws {
        let runAt = try at.map { text throws(ToolingError) in try DurationText.time(text, now: Date(), option: "--at") }
        if let reason { try ScheduledChangeRequest.checkReason(reason) }
        let newChange = try change.change()
        guard runAt != nil || reason != nil || newChange != nil else {
            throw ToolingError(
                .invalidInput, "Nothing to edit: give --at, --reason or a change (--enable, --disable, --default-variant, --settings-json).")
        }
        let path = target.schedulePath(flag: flag, id: id)
        let client = try target.connection.client()
        let current = try client.decodeAnswer(
            ServerScheduledChange.self, try client.send("GET", path, purpose: .read(environment: target.environment)), from: "GET \(path)")
        guard let currentTime = try? Date(current.runAt, strategy: .iso8601) else {
            throw ToolingError(.serverFailure, "The server's answer to GET \(path) has a runAt that is not ISO 8601: \"\(current.runAt)\".")
        }
        let body = ScheduledChangeRequest(
            change: newChange ?? .object(current.change), runAt: runAt ?? currentTime, reason: reason ?? current.reason,
            version: current.version
        ).body
        let data = try client.send("PUT", path, body: body, purpose: .change("editing scheduled changes", environment: target.environment))
        try target.print(data, as: ServerScheduledChange.self, from: "PUT \(path)", client: client) { "Edited " + $0.details }
    }
}

/// `flags schedule cancel`.
struct ScheduleCancelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel", abstract: "Cancel a pending scheduled change (it is kept with the status cancelled).")

    @Argument(help: "The change's id (sc-…).")
    var id: String

    @Option(name: .long, help: "The flag it changes.")
    var flag: String

    @OptionGroup var target: EnvironmentTarget

    @Option(name: .long, help: "Why, recorded in the audit log.")
    var reason: String?

    func validate() throws {
        try KeyArgument.checkID(id, option: "id")
        try KeyArgument.check(flag, option: "--flag")
        if let reason, reason.utf8.count > 1000 { throw ValidationError("--reason: at most 1000 bytes.") }
    }

    func run() throws {
        let path = target.schedulePath(flag: flag, id: id)
        let client = try target.connection.client()
        let data = try client.send(
            "DELETE", path, query: reason.map { [("reason", $0)] } ?? [],
            purpose: .change("cancelling scheduled changes", environment: target.environment))
        try target.print(data, as: ServerScheduledChange.self, from: "DELETE \(path)", client: client) { "Cancelled " + $0.details }
    }
}
