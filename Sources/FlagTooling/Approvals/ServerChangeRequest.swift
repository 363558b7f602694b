import FeatureFlags
import Foundation

/// A change request as the server's admin API answers it
/// (`/admin/v1/environments/{environment}/change-requests`), for `flags change-request`.
public struct ServerChangeRequest: Sendable, Hashable, Decodable {
    /// An approver, author or actor: `token bob`, `user carol`, `server scheduler`.
    public struct Identity: Sendable, Hashable, Decodable, CustomStringConvertible {
        public var kind: String
        public var name: String

        public init(kind: String, name: String) {
            self.kind = kind
            self.name = name
        }

        public var description: String { "\(kind) \(name)" }
    }

    /// One touched subject's state before and after, as the audit would record it.
    public struct DiffEntry: Sendable, Hashable, Decodable {
        public var environment: String
        public var subject: String
        public var key: String
        /// `nil`: the subject did not exist (before) or is deleted (after).
        public var before: FlagValue?
        public var after: FlagValue?

        public init(environment: String, subject: String, key: String, before: FlagValue?, after: FlagValue?) {
            self.environment = environment
            self.subject = subject
            self.key = key
            self.before = before
            self.after = after
        }
    }

    public struct Approval: Sendable, Hashable, Decodable {
        public var approver: Identity
        public var time: String
        public var comment: String?
    }

    public struct Step: Sendable, Hashable, Decodable {
        public var action: String
        public var actor: Identity
        public var time: String
        public var comment: String?
        public var revision: Int?
    }

    public var id: String
    public var environment: String
    /// `open`, `rejected` or `applied`.
    public var status: String
    public var author: Identity
    public var reason: String
    /// The change, in the forms of the direct API (`flag` with `patch`, `settings` or `definition`; …).
    public var proposal: [String: FlagValue]
    public var basedOnRevision: Int
    public var diff: [DiffEntry]
    public var approvals: [Approval]
    public var history: [Step]
    public var applyAt: String?
    public var appliedRevision: Int?
    public var createdAt: String
    public var updatedAt: String
    public var version: Int
    /// What the environment's rule asks for now (0: no rule).
    public var requiredApprovals: Int
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
