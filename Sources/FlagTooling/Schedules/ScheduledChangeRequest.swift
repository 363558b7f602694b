import FeatureFlags
import FlagServerClient
import Foundation

/// The body of `POST` and `PUT …/flags/{key}/schedules`, built from `flags schedule` options.
public struct ScheduledChangeRequest: Sendable, Hashable {
    /// `{"patch": {…}}` or `{"settings": {…}}`.
    public var change: FlagValue
    /// When the change is due.
    public var runAt: Date
    /// Why, recorded in the audit log.
    public var reason: String
    /// The flag's revision the change is based on; `nil` lets the server take its current one.
    public var basedOnRevision: Int?
    /// `PUT` only: the version the edit is based on.
    public var version: Int?

    /// A request for `change` at `runAt`.
    public init(change: FlagValue, runAt: Date, reason: String, basedOnRevision: Int? = nil, version: Int? = nil) {
        self.change = change
        self.runAt = runAt
        self.reason = reason
        self.basedOnRevision = basedOnRevision
        self.version = version
    }

    /// The JSON body.
    public var body: FlagValue {
        var object: [String: FlagValue] = [
            "change": change, "runAt": .string(DurationText.text(runAt)), "reason": .string(reason),
        ]
        if let basedOnRevision { object["basedOnRevision"] = .int(basedOnRevision) }
        if let version { object["version"] = .int(version) }
        return .object(object)
    }

    /// The change that `--enable`/`--disable`, `--default-variant` and `--settings-json`
    /// give: a settings patch of the first two, or the whole settings read from the file's text.
    /// `nil` when none is given.
    ///
    /// - Throws: ``ToolingError`` (invalid input) naming the options when they are combined
    ///   wrongly or the settings are not a JSON object.
    public static func change(
        enabled: Bool?, defaultVariant: String?, settingsJSON: (file: String, text: String)?
    ) throws(ToolingError) -> FlagValue? {
        if let settingsJSON {
            guard enabled == nil, defaultVariant == nil else {
                throw ToolingError(
                    .invalidInput, "--settings-json replaces the whole settings: give it without --enable, --disable or --default-variant.")
            }
            guard let value = try? FlagValue(json: settingsJSON.text), case .object(let settings) = value else {
                throw ToolingError(
                    .invalidInput,
                    "--settings-json \(settingsJSON.file): not a JSON object of settings, such as {\"enabled\": true, \"defaultVariant\": \"on\"}.")
            }
            return .object(["settings": .object(settings)])
        }
        var patch: [String: FlagValue] = [:]
        if let enabled { patch["enabled"] = .bool(enabled) }
        if let defaultVariant {
            guard !defaultVariant.isEmpty else { throw ToolingError(.invalidInput, "--default-variant: give a variant's name.") }
            patch["defaultVariant"] = .string(defaultVariant)
        }
        return patch.isEmpty ? nil : .object(["patch": .object(patch)])
    }

    /// Checks a reason as the server does: not empty, at most 1,000 bytes.
    public static func checkReason(_ reason: String, option: String = "--reason") throws(ToolingError) {
        guard !reason.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ToolingError(.invalidInput, "\(option): give a reason; it is recorded in the audit log.")
        }
        guard reason.utf8.count <= 1000 else {
            throw ToolingError(.invalidInput, "\(option): the reason is \(reason.utf8.count) bytes; at most 1000 are kept.")
        }
    }
}
