import FlagEvaluation
import FlagServerModel
import Foundation
import Logging
import PostgresNIO

extension PostgresFlagStore: ApprovalStore {
    /// The rule of every environment that has one, by environment name.
    public func approvalRules() async throws(StoreError) -> [String: ApprovalRule] {
        try await run { [logger] in
            try await client.withConnection { connection in
                var rules: [String: ApprovalRule] = [:]
                let rows = try await connection.query(
                    "SELECT environment, required_approvals, applies_to FROM approval_rules", logger: logger)
                for try await (environment, required, scopes) in rows.decode((String, Int, String).self) {
                    rules[environment] = ApprovalRule(requiredApprovals: required, storedScopes: scopes)
                }
                return rules
            }
        }
    }

    /// Sets the environment's rule (removes it when `rule` is `nil`) and writes `audit`, in one transaction.
    public func putApprovalRule(_ rule: ApprovalRule?, environment: String, audit: AuditEntry) async throws(StoreError) {
        try await run { [logger] in
            try await client.withConnection { connection in
                try await Self.transaction(connection, logger: logger) {
                    if let rule {
                        try await connection.query(
                            """
                            INSERT INTO approval_rules (environment, required_approvals, applies_to)
                            VALUES (\(environment), \(rule.requiredApprovals), \(rule.storedScopes))
                            ON CONFLICT (environment) DO UPDATE SET required_approvals = EXCLUDED.required_approvals,
                                applies_to = EXCLUDED.applies_to
                            """, logger: logger)
                    } else {
                        try await connection.query("DELETE FROM approval_rules WHERE environment = \(environment)", logger: logger)
                    }
                    try await Self.appendAudit(audit, connection, logger: logger)
                }
            }
        }
    }

    /// Adds `request`; an existing id is refused (``StoreError/conflict(_:)``).
    public func insertChangeRequest(_ request: ChangeRequest) async throws(StoreError) {
        let document = try request.stored()
        try await run { [logger] in
            try await client.withConnection { connection in
                var inserted = false
                for try await _ in try await connection.query(
                    """
                    INSERT INTO change_requests (id, environment, status, created_at, version, document)
                    VALUES (\(request.id), \(request.environment), \(request.status.rawValue),
                            \(request.createdAt.timeIntervalSince1970), \(request.version), \(document))
                    ON CONFLICT (id) DO NOTHING RETURNING id
                    """, logger: logger)
                {
                    inserted = true
                }
                guard inserted else { throw StoreError.conflict("change request \"\(request.id)\" exists already") }
            }
        }
    }

    /// The change request `id`; `nil` when there is none.
    public func changeRequest(id: String) async throws(StoreError) -> ChangeRequest? {
        let document: String? = try await run { [logger] in
            try await client.withConnection { connection in
                let rows = try await connection.query("SELECT document FROM change_requests WHERE id = \(id)", logger: logger)
                for try await document in rows.decode(String.self) { return document }
                return nil
            }
        }
        return try document.map { stored throws(StoreError) in try ChangeRequest(stored: stored) }
    }

    /// The newest `limit` change requests of `environment`, newest first.
    public func changeRequests(environment: String, limit: Int) async throws(StoreError) -> [ChangeRequest] {
        let documents: [String] = try await run { [logger] in
            try await client.withConnection { connection in
                var documents: [String] = []
                let rows = try await connection.query(
                    """
                    SELECT document FROM change_requests WHERE environment = \(environment)
                    ORDER BY created_at DESC, id DESC LIMIT \(limit)
                    """, logger: logger)
                for try await document in rows.decode(String.self) { documents.append(document) }
                return documents
            }
        }
        var requests: [ChangeRequest] = []
        for document in documents { requests.append(try ChangeRequest(stored: document)) }
        return requests
    }

    /// Replaces the request in one statement conditioned on the stored version being one less than `request`'s.
    public func updateChangeRequest(_ request: ChangeRequest) async throws(StoreError) {
        let document = try request.stored()
        try await run { [logger] in
            try await client.withConnection { connection in
                var updated = false
                // Compare-and-set on the version: two replicas updating the same request at once
                // leave one update and one conflict.
                for try await _ in try await connection.query(
                    """
                    UPDATE change_requests SET status = \(request.status.rawValue), version = \(request.version),
                        document = \(document)
                    WHERE id = \(request.id) AND version = \(request.version - 1) RETURNING id
                    """, logger: logger)
                {
                    updated = true
                }
                guard !updated else { return }
                var exists = false
                for try await _ in try await connection.query(
                    "SELECT id FROM change_requests WHERE id = \(request.id)", logger: logger)
                {
                    exists = true
                }
                throw exists
                    ? StoreError.conflict("change request \"\(request.id)\" changed meanwhile; read it again")
                    : StoreError.notFound("change request \"\(request.id)\"")
            }
        }
    }
}
