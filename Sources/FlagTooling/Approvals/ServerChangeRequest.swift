import FeatureFlags
import Foundation

/// A change request as the server's admin API answers it
/// (`/admin/v1/environments/{environment}/change-requests`), for `flags change-request`.
public struct ServerChangeRequest: Sendable, Hashable, Decodable {
    /// An approver, author or actor: `token bob`, `user carol`, `server scheduler`.
    public struct Identity: Sendable, Hashable, Decodable, CustomStringConvertible {
        /// `token`, `user` or `server`.
        public var kind: String
        /// The token's or user's name, or the server's role (`scheduler`).
        public var name: String

        /// The identity of `kind` named `name`.
        public init(kind: String, name: String) {
            self.kind = kind
            self.name = name
        }

        /// `kind name`, such as `token bob`.
        public var description: String { "\(kind) \(name)" }
    }

    /// One touched subject's state before and after, as the audit would record it.
    public struct DiffEntry: Sendable, Hashable, Decodable {
        /// The environment the subject lives in.
        public var environment: String
        /// What kind of thing changes: `flag`, `segment` or `environment`.
        public var subject: String
        /// The flag's or segment's key, or the environment's name.
        public var key: String
        /// `nil`: the subject did not exist (before) or is deleted (after).
        public var before: FlagValue?
        /// The subject's state after the change; `nil` when the change deletes it.
        public var after: FlagValue?

        /// A diff entry as the server answers it.
        public init(environment: String, subject: String, key: String, before: FlagValue?, after: FlagValue?) {
            self.environment = environment
            self.subject = subject
            self.key = key
            self.before = before
            self.after = after
        }
    }

    /// One approval given and still standing.
    public struct Approval: Sendable, Hashable, Decodable {
        /// Who approved.
        public var approver: Identity
        /// When, as the server wrote it (ISO 8601).
        public var time: String
        /// What the approver wrote with it, if anything.
        public var comment: String?
    }

    /// One step of the request's life.
    public struct Step: Sendable, Hashable, Decodable {
        /// `opened`, `edited`, `approved`, `rejected`, `applied` or `approvals_withdrawn`.
        public var action: String
        /// Who took the step.
        public var actor: Identity
        /// When, as the server wrote it (ISO 8601).
        public var time: String
        /// The comment given with the step, if any.
        public var comment: String?
        /// The revision an application produced.
        public var revision: Int?
    }

    /// The request's identifier.
    public var id: String
    /// The environment the change applies to.
    public var environment: String
    /// `open`, `rejected` or `applied`.
    public var status: String
    /// Who opened the request; an author cannot approve their own request.
    public var author: Identity
    /// Why the change is wanted, as the author wrote it.
    public var reason: String
    /// The change, in the forms of the direct API (`flag` with `patch`, `settings` or `definition`; …).
    public var proposal: [String: FlagValue]
    /// The environment's revision at which the changed subject last changed, when the request was opened or edited.
    public var basedOnRevision: Int
    /// The exact change, computed when the request was opened and on every edit.
    public var diff: [DiffEntry]
    /// The approvals given and still standing.
    public var approvals: [Approval]
    /// Every step of the request, oldest first.
    public var history: [Step]
    /// Not applied before this time (ISO 8601), when scheduled.
    public var applyAt: String?
    /// The environment revision the application produced; `nil` until applied.
    public var appliedRevision: Int?
    /// When the request was opened (ISO 8601).
    public var createdAt: String
    /// When the request last changed (ISO 8601).
    public var updatedAt: String
    /// Bumped on every stored change; an edit names the version it is based on.
    public var version: Int
    /// What the environment's rule asks for now (0: no rule).
    public var requiredApprovals: Int
    /// Whether the approvals meet the rule now.
    public var approved: Bool

    /// `flag "checkout": patch {"enabled":true}`: the proposal's subject and its change.
    public var proposalText: String {
        var subject: String
        var rest = proposal
        if case .string(let flag)? = rest.removeValue(forKey: "flag") {
            subject = "flag \"\(flag)\""
        } else if case .string(let segment)? = rest.removeValue(forKey: "segment") {
            subject = "segment \"\(segment)\""
        } else {
            subject = "approval rule"
        }
        let change = rest.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.jsonString)" }.joined(separator: "; ")
        return change.isEmpty ? subject : "\(subject): \(change)"
    }

    /// `1 of 2`, or `none needed` without a rule.
    public var approvalsText: String {
        requiredApprovals == 0 ? "\(approvals.count) (no rule: none needed)" : "\(approvals.count) of \(requiredApprovals)"
    }

    /// A table of requests, one a line.
    ///
    /// ```text
    /// ID          STATUS  APPROVALS  AUTHOR       CHANGE
    /// cr-1f2e3d4c  open    0 of 1     token alice  flag "checkout": patch {"enabled":true}
    /// 1 change request
    /// ```
    public static func table(_ requests: [ServerChangeRequest]) -> String {
        guard !requests.isEmpty else { return "No change requests.\n" }
        let rows = requests.map { request in
            [request.id, request.status, request.approvalsText, request.author.description, request.proposalText]
        }
        return TextColumns.render(header: ["ID", "STATUS", "APPROVALS", "AUTHOR", "CHANGE"], rows: rows)
            + "\(requests.count) change request\(requests.count == 1 ? "" : "s")\n"
    }

    /// Every field of one request, its diff subject by subject (as the server gives it), its
    /// approvals and its history.
    public var details: String {
        var lines = [
            "\(id): \(status) in \(environment)\(status == "open" ? approved ? ", approved" : ", awaiting approval" : "")",
            "  change:    \(proposalText)",
            "  reason:    \(reason)",
            "  author:    \(author)",
            "  approvals: \(approvalsText)",
            "  based on:  revision \(basedOnRevision)",
        ]
        if let applyAt { lines.append("  apply at:  \(applyAt)") }
        if let appliedRevision { lines.append("  applied:   revision \(appliedRevision)") }
        lines.append("  version:   \(version)")
        lines.append("Diff:")
        if diff.isEmpty { lines.append("  (no change)") }
        for entry in diff {
            lines.append("  \(entry.subject) \"\(entry.key)\" in \(entry.environment)")
            lines.append("    before: \(entry.before.map(\.jsonString) ?? "(none)")")
            lines.append("    after:  \(entry.after.map(\.jsonString) ?? "(none)")")
        }
        if !approvals.isEmpty {
            lines.append("Approvals:")
            for approval in approvals {
                lines.append("  \(approval.approver) at \(approval.time)\(approval.comment.map { ": \($0)" } ?? "")")
            }
        }
        lines.append("History:")
        for step in history {
            var line = "  \(step.time) \(step.action) by \(step.actor)"
            if let revision = step.revision { line += " (revision \(revision))" }
            if let comment = step.comment { line += ": \(comment)" }
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
