import FeatureFlags
import Foundation

/// A scheduled change as the server's admin API answers it
/// (`/admin/v1/environments/{environment}/flags/{key}/schedules`), for `flags schedule`.
public struct ServerScheduledChange: Sendable, Hashable, Decodable {
    /// The change's identifier (`sc-` and 16 hexadecimal digits).
    public var id: String
    /// The environment it applies to.
    public var environment: String
    /// The key of the flag it changes.
    public var flag: String
    /// Exactly one of `patch`, `settings`, `definition`.
    public var change: [String: FlagValue]
    /// As the server wrote it (ISO 8601).
    public var runAt: String
    /// The flag's revision it was based on; it applies only while the flag is still there.
    public var basedOnRevision: Int?
    /// Who scheduled it, when the server says.
    public var actor: String?
    /// Why, as whoever scheduled it wrote it.
    public var reason: String
    /// `pending`, `ran`, `held`, `missed`, `cancelled` or `failed`.
    public var status: String
    /// The revision a run produced (`ran`).
    public var revision: Int?
    /// Why it was held, missed, failed or cancelled.
    public var outcome: String?
    /// The approved change request it applies, if it came from one.
    public var changeRequest: String?
    /// The server holding the change while it runs.
    public var claimedBy: String?
    /// Bumped on every stored change; an edit names the version it is based on.
    public var version: Int

    /// A scheduled change as the server answers it.
    public init(
        id: String, environment: String, flag: String, change: [String: FlagValue], runAt: String, reason: String,
        status: String, outcome: String? = nil, version: Int = 1
    ) {
        self.id = id
        self.environment = environment
        self.flag = flag
        self.change = change
        self.runAt = runAt
        self.reason = reason
        self.status = status
        self.outcome = outcome
        self.version = version
    }

    /// `patch {"enabled":true}`: the change's form and its JSON.
    public var changeText: String {
        change.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.jsonString)" }.joined(separator: "; ")
    }

    /// A table of changes, one a line.
    ///
    /// ```text
    /// ID           FLAG      RUN AT                STATUS   OUTCOME
    /// sc-1f2e3d4c  checkout  2026-12-01T09:00:00Z  pending  -
    /// 1 scheduled change
    /// ```
    public static func table(_ changes: [ServerScheduledChange]) -> String {
        guard !changes.isEmpty else { return "No scheduled changes.\n" }
        let rows = changes.map { change in
            [change.id, change.flag, change.runAt, change.status,
             change.outcome ?? change.revision.map { "revision \($0)" } ?? "-"]
        }
        return TextColumns.render(header: ["ID", "FLAG", "RUN AT", "STATUS", "OUTCOME"], rows: rows)
            + "\(changes.count) scheduled change\(changes.count == 1 ? "" : "s")\n"
    }

    /// Every field of one change, one a line.
    public var details: String {
        var lines = [
            "\(id): \(flag) in \(environment), \(status)",
            "  run at:   \(runAt)",
            "  change:   \(changeText)",
            "  reason:   \(reason)",
        ]
        if let actor { lines.append("  by:       \(actor)") }
        if let basedOnRevision { lines.append("  based on: revision \(basedOnRevision)") }
        if let revision { lines.append("  ran as:   revision \(revision)") }
        if let outcome { lines.append("  outcome:  \(outcome)") }
        if let changeRequest { lines.append("  applies change request \(changeRequest)") }
        if let claimedBy { lines.append("  running on \(claimedBy)") }
        lines.append("  version:  \(version)")
        return lines.joined(separator: "\n") + "\n"
    }
}
