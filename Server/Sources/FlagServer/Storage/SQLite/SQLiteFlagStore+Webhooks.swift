import FlagServerModel
import Foundation
import SQLiteNIO

extension SQLiteFlagStore: WebhookStore {
    /// Every endpoint with its secret, oldest first.
    public func webhookEndpoints() async throws(StoreError) -> [WebhookEndpoint] {
        let rows = try await run {
            try await connection.query("SELECT secret, document FROM webhook_endpoints ORDER BY created_at, id").map {
                ($0.column("document")?.string ?? "", $0.column("secret")?.string ?? "")
            }
        }
        var endpoints: [WebhookEndpoint] = []
        for (document, secret) in rows { endpoints.append(try WebhookEndpoint(stored: document, secret: secret)) }
        return endpoints
    }

    /// The endpoint `id` with its secret; `nil` when there is none.
    public func webhookEndpoint(id: String) async throws(StoreError) -> WebhookEndpoint? {
        let row = try await run {
            try await connection.query("SELECT secret, document FROM webhook_endpoints WHERE id = ?", [.text(id)]).first.map {
                ($0.column("document")?.string ?? "", $0.column("secret")?.string ?? "")
            }
        }
        return try row.map { row throws(StoreError) in try WebhookEndpoint(stored: row.0, secret: row.1) }
    }

    /// Inserts or replaces the endpoint and writes `audit`, in one transaction.
    public func putWebhookEndpoint(_ endpoint: WebhookEndpoint, audit: AuditEntry) async throws(StoreError) {
        let document = try endpoint.stored()
        try await run {
            try await transaction {
                _ = try await connection.query(
                    """
                    INSERT INTO webhook_endpoints (id, secret, created_at, document) VALUES (?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET secret = excluded.secret, document = excluded.document
                    """,
                    [.text(endpoint.id), .text(endpoint.secret.text), .float(endpoint.createdAt.timeIntervalSince1970), .text(document)])
                try await appendAudit(audit)
            }
        }
    }

    /// Deletes the endpoint, its deliveries and writes `audit`, in one transaction.
    public func deleteWebhookEndpoint(id: String, audit: AuditEntry) async throws(StoreError) {
        try await run {
            try await transaction {
                let existing = try await connection.query("SELECT id FROM webhook_endpoints WHERE id = ?", [.text(id)])
                guard !existing.isEmpty else { throw StoreError.notFound("webhook \"\(id)\"") }
                _ = try await connection.query("DELETE FROM webhook_deliveries WHERE endpoint = ?", [.text(id)])
                _ = try await connection.query("DELETE FROM webhook_endpoints WHERE id = ?", [.text(id)])
                try await appendAudit(audit)
            }
        }
    }

    /// Adds `deliveries` in one transaction.
    public func insertWebhookDeliveries(_ deliveries: [WebhookDelivery]) async throws(StoreError) {
        guard !deliveries.isEmpty else { return }
        var documents: [String] = []
        for delivery in deliveries { documents.append(try delivery.stored()) }
        try await run {
            try await transaction {
                for (delivery, document) in zip(deliveries, documents) {
                    _ = try await connection.query(
                        """
                        INSERT INTO webhook_deliveries (id, endpoint, status, next_attempt_at, created_at, updated_at, document)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                        Self.row(delivery, document))
                }
            }
        }
    }

    /// The endpoints with a pending delivery due at or before `time`.
    public func endpointsWithDueWebhookDeliveries(at time: Date) async throws(StoreError) -> [String] {
        try await run {
            try await connection.query(
                "SELECT DISTINCT endpoint FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ?",
                [.float(time.timeIntervalSince1970)]
            ).compactMap { $0.column("endpoint")?.string }
        }
    }

    /// Claims up to `limit` of the endpoint's due deliveries until `leaseUntil`, inside SQLite's write
    /// lock, so that processes sharing the file never claim the same delivery.
    public func claimWebhookDeliveries(endpoint: String, dueAt time: Date, leaseUntil: Date, limit: Int) async throws(StoreError) -> [WebhookDelivery] {
        // In a write transaction (SQLite's write lock): processes sharing the file claim in turn.
        let documents = try await run {
            try await transaction {
                let rows = try await connection.query(
                    """
                    SELECT id, document FROM webhook_deliveries WHERE endpoint = ? AND status = 'pending' AND next_attempt_at <= ?
                    ORDER BY next_attempt_at, id LIMIT ?
                    """,
                    [.text(endpoint), .float(time.timeIntervalSince1970), .integer(limit)])
                for row in rows {
                    _ = try await connection.query(
                        "UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ?",
                        [.float(leaseUntil.timeIntervalSince1970), .text(row.column("id")?.string ?? "")])
                }
                return rows.map { $0.column("document")?.string ?? "" }
            }
        }
        var deliveries: [WebhookDelivery] = []
        for document in documents { deliveries.append(try WebhookDelivery(stored: document)) }
        return deliveries
    }

    /// Replaces the stored delivery with `delivery`.
    public func updateWebhookDelivery(_ delivery: WebhookDelivery) async throws(StoreError) {
        let document = try delivery.stored()
        try await run {
            try await transaction {
                let existing = try await connection.query("SELECT id FROM webhook_deliveries WHERE id = ?", [.text(delivery.id)])
                guard !existing.isEmpty else { throw StoreError.notFound("webhook delivery \"\(delivery.id)\"") }
                _ = try await connection.query(
                    "UPDATE webhook_deliveries SET status = ?, next_attempt_at = ?, updated_at = ?, document = ? WHERE id = ?",
                    [
                        .text(delivery.status.rawValue), delivery.nextAttemptAt.map { .float($0.timeIntervalSince1970) } ?? .null,
                        .float(delivery.updatedAt.timeIntervalSince1970), .text(document), .text(delivery.id),
                    ])
            }
        }
    }

    /// The endpoint's newest `limit` deliveries, newest first.
    public func webhookDeliveries(endpoint: String, limit: Int) async throws(StoreError) -> [WebhookDelivery] {
        let documents = try await run {
            try await connection.query(
                "SELECT document FROM webhook_deliveries WHERE endpoint = ? ORDER BY created_at DESC, id DESC LIMIT ?",
                [.text(endpoint), .integer(limit)]
            ).map { $0.column("document")?.string ?? "" }
        }
        var deliveries: [WebhookDelivery] = []
        for document in documents { deliveries.append(try WebhookDelivery(stored: document)) }
        return deliveries
    }

    /// The delivery `id`; `nil` when there is none.
    public func webhookDelivery(id: String) async throws(StoreError) -> WebhookDelivery? {
        let document = try await run {
            try await connection.query("SELECT document FROM webhook_deliveries WHERE id = ?", [.text(id)]).first?.column("document")?.string
        }
        return try document.map { stored throws(StoreError) in try WebhookDelivery(stored: stored) }
    }

    /// Deletes delivered and failed deliveries last updated before `time`; returns how many.
    @discardableResult
    public func deleteWebhookDeliveries(finishedBefore time: Date) async throws(StoreError) -> Int {
        try await run {
            try await transaction {
                let rows = try await connection.query(
                    "DELETE FROM webhook_deliveries WHERE status <> 'pending' AND updated_at < ? RETURNING id",
                    [.float(time.timeIntervalSince1970)])
                return rows.count
            }
        }
    }

    static func row(_ delivery: WebhookDelivery, _ document: String) -> [SQLiteData] {
        [
            .text(delivery.id), .text(delivery.endpoint), .text(delivery.status.rawValue),
            delivery.nextAttemptAt.map { .float($0.timeIntervalSince1970) } ?? .null, .float(delivery.createdAt.timeIntervalSince1970),
            .float(delivery.updatedAt.timeIntervalSince1970), .text(document),
        ]
    }
}
