import FlagEvaluation
import FlagServerModel
import Foundation
import SQLiteNIO

extension SQLiteFlagStore: ApprovalStore {
    /// The rule of every environment that has one, by environment name.
    public func approvalRules() async throws(StoreError) -> [String: ApprovalRule] {
        try await run {
            var rules: [String: ApprovalRule] = [:]
            for row in try await connection.query("SELECT environment, required_approvals, applies_to FROM approval_rules") {
                rules[row.column("environment")?.string ?? ""] = ApprovalRule(
                    requiredApprovals: row.column("required_approvals")?.integer ?? 0,
                    storedScopes: row.column("applies_to")?.string ?? "[]")
            }
            return rules
        }
    }

    /// Sets the environment's rule (removes it when `rule` is `nil`) and writes `audit`, in one transaction.
    public func putApprovalRule(_ rule: ApprovalRule?, environment: String, audit: AuditEntry) async throws(StoreError) {
        try await run {
            try await transaction {
                if let rule {
                    _ = try await connection.query(
                        """
                        INSERT INTO approval_rules (environment, required_approvals, applies_to) VALUES (?, ?, ?)
                        ON CONFLICT (environment) DO UPDATE SET required_approvals = excluded.required_approvals,
                            applies_to = excluded.applies_to
                        """,
                        [.text(environment), .integer(rule.requiredApprovals), .text(rule.storedScopes)])
                } else {
                    _ = try await connection.query("DELETE FROM approval_rules WHERE environment = ?", [.text(environment)])
                }
                try await appendAudit(audit)
            }
        }
    }

    /// Adds `request`, in a transaction that refuses an existing id.
    public func insertChangeRequest(_ request: ChangeRequest) async throws(StoreError) {
        let document = try request.stored()
        try await run {
            try await transaction {
                let existing = try await connection.query("SELECT id FROM change_requests WHERE id = ?", [.text(request.id)])
                guard existing.isEmpty else { throw StoreError.conflict("change request \"\(request.id)\" exists already") }
                _ = try await connection.query(
                    "INSERT INTO change_requests (id, environment, status, created_at, version, document) VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        .text(request.id), .text(request.environment), .text(request.status.rawValue),
                        .float(request.createdAt.timeIntervalSince1970), .integer(request.version), .text(document),
                    ])
            }
        }
    }

    /// The change request `id`; `nil` when there is none.
    public func changeRequest(id: String) async throws(StoreError) -> ChangeRequest? {
        let document = try await run {
            try await connection.query("SELECT document FROM change_requests WHERE id = ?", [.text(id)]).first?.column("document")?.string
        }
        return try document.map { stored throws(StoreError) in try ChangeRequest(stored: stored) }
    }

    /// The newest `limit` change requests of `environment`, newest first.
    public func changeRequests(environment: String, limit: Int) async throws(StoreError) -> [ChangeRequest] {
        let documents = try await run {
            try await connection.query(
                "SELECT document FROM change_requests WHERE environment = ? ORDER BY created_at DESC, id DESC LIMIT ?",
                [.text(environment), .integer(limit)]
            ).map { $0.column("document")?.string ?? "" }
        }
        var requests: [ChangeRequest] = []
        for document in documents { requests.append(try ChangeRequest(stored: document)) }
        return requests
    }

    /// Replaces the request when the stored version is one less than `request`'s (compare-and-set).
    public func updateChangeRequest(_ request: ChangeRequest) async throws(StoreError) {
        let document = try request.stored()
        try await run {
            try await transaction {
                let rows = try await connection.query("SELECT version FROM change_requests WHERE id = ?", [.text(request.id)])
                guard let stored = rows.first?.column("version")?.integer else {
                    throw StoreError.notFound("change request \"\(request.id)\"")
                }
                guard stored == request.version - 1 else {
                    throw StoreError.conflict("change request \"\(request.id)\" changed meanwhile; read it again")
                }
                _ = try await connection.query(
                    "UPDATE change_requests SET status = ?, version = ?, document = ? WHERE id = ?",
                    [.text(request.status.rawValue), .integer(request.version), .text(document), .text(request.id)])
            }
        }
    }
}
