import FlagServerModel
import Foundation
import Logging
import PostgresNIO

extension PostgresFlagStore: WebhookStore {
    /// Every endpoint with its secret, oldest first.
    public func webhookEndpoints() async throws(StoreError) -> [WebhookEndpoint] {
        let rows: [(String, String)] = try await run { [logger] in
            try await client.withConnection { connection in
                var rows: [(String, String)] = []
                let result = try await connection.query(
                    "SELECT document, secret FROM webhook_endpoints ORDER BY created_at, id", logger: logger)
                for try await row in result.decode((String, String).self) { rows.append(row) }
                return rows
            }
        }
        var endpoints: [WebhookEndpoint] = []
        for (document, secret) in rows { endpoints.append(try WebhookEndpoint(stored: document, secret: secret)) }
        return endpoints
    }

    /// The endpoint `id` with its secret; `nil` when there is none.
    public func webhookEndpoint(id: String) async throws(StoreError) -> WebhookEndpoint? {
        let row: (String, String)? = try await run { [logger] in
            try await client.withConnection { connection in
                let result = try await connection.query(
                    "SELECT document, secret FROM webhook_endpoints WHERE id = \(id)", logger: logger)
                for try await row in result.decode((String, String).self) { return row }
                return nil
            }
        }
        return try row.map { row throws(StoreError) in try WebhookEndpoint(stored: row.0, secret: row.1) }
    }

    /// Inserts or replaces the endpoint and writes `audit`, in one transaction.
    public func putWebhookEndpoint(_ endpoint: WebhookEndpoint, audit: AuditEntry) async throws(StoreError) {
        let document = try endpoint.stored()
        try await run { [logger] in
            try await client.withConnection { connection in
                try await Self.transaction(connection, logger: logger) {
                    try await connection.query(
                        """
                        INSERT INTO webhook_endpoints (id, secret, created_at, document)
                        VALUES (\(endpoint.id), \(endpoint.secret.text), \(endpoint.createdAt.timeIntervalSince1970), \(document))
                        ON CONFLICT (id) DO UPDATE SET secret = EXCLUDED.secret, document = EXCLUDED.document
                        """, logger: logger)
                    try await Self.appendAudit(audit, connection, logger: logger)
                }
            }
        }
    }

    /// Deletes the endpoint, its deliveries and writes `audit`, in one transaction.
    public func deleteWebhookEndpoint(id: String, audit: AuditEntry) async throws(StoreError) {
        try await run { [logger] in
            try await client.withConnection { connection in
                try await Self.transaction(connection, logger: logger) {
                    var deleted = false
                    for try await _ in try await connection.query(
                        "DELETE FROM webhook_endpoints WHERE id = \(id) RETURNING id", logger: logger)
                    {
                        deleted = true
                    }
                    guard deleted else { throw StoreError.notFound("webhook \"\(id)\"") }
                    try await connection.query("DELETE FROM webhook_deliveries WHERE endpoint = \(id)", logger: logger)
                    try await Self.appendAudit(audit, connection, logger: logger)
                }
            }
        }
    }

    /// Adds `deliveries` in one transaction.
    public func insertWebhookDeliveries(_ deliveries: [WebhookDelivery]) async throws(StoreError) {
        guard !deliveries.isEmpty else { return }
        var rows: [(WebhookDelivery, String)] = []
        for delivery in deliveries { rows.append((delivery, try delivery.stored())) }
        try await run { [logger, rows] in
            try await client.withConnection { connection in
                try await Self.transaction(connection, logger: logger) {
                    for (delivery, document) in rows {
                        try await connection.query(
                            """
                            INSERT INTO webhook_deliveries (id, endpoint, status, next_attempt_at, created_at, updated_at, document)
                            VALUES (\(delivery.id), \(delivery.endpoint), \(delivery.status.rawValue),
                                    \(delivery.nextAttemptAt?.timeIntervalSince1970), \(delivery.createdAt.timeIntervalSince1970),
                                    \(delivery.updatedAt.timeIntervalSince1970), \(document))
                            """, logger: logger)
                    }
                }
            }
        }
    }

    /// The endpoints with a pending delivery due at or before `time`.
    public func endpointsWithDueWebhookDeliveries(at time: Date) async throws(StoreError) -> [String] {
        try await run { [logger] in
            try await client.withConnection { connection in
                var endpoints: [String] = []
                let rows = try await connection.query(
                    """
                    SELECT DISTINCT endpoint FROM webhook_deliveries
                    WHERE status = 'pending' AND next_attempt_at <= \(time.timeIntervalSince1970)
                    """, logger: logger)
                for try await endpoint in rows.decode(String.self) { endpoints.append(endpoint) }
                return endpoints
            }
        }
    }

    /// Claims up to `limit` of the endpoint's due deliveries until `leaseUntil` in one statement that
    /// skips rows another replica has locked (`FOR UPDATE SKIP LOCKED`), so no delivery is claimed twice.
    public func claimWebhookDeliveries(endpoint: String, dueAt time: Date, leaseUntil: Date, limit: Int) async throws(StoreError) -> [WebhookDelivery] {
        let documents: [String] = try await run { [logger] in
            try await client.withConnection { connection in
                // One statement: the rows another server has locked are skipped, not waited for,
                // and a claimed row's next attempt moves past the lease.
                var documents: [String] = []
                let rows = try await connection.query(
                    """
                    UPDATE webhook_deliveries SET next_attempt_at = \(leaseUntil.timeIntervalSince1970)
                    WHERE id IN (
                        SELECT id FROM webhook_deliveries
                        WHERE endpoint = \(endpoint) AND status = 'pending' AND next_attempt_at <= \(time.timeIntervalSince1970)
                        ORDER BY next_attempt_at, id LIMIT \(limit)
                        FOR UPDATE SKIP LOCKED
                    )
                    RETURNING document
                    """, logger: logger)
                for try await document in rows.decode(String.self) { documents.append(document) }
                return documents
            }
        }
        var deliveries: [WebhookDelivery] = []
        for document in documents { deliveries.append(try WebhookDelivery(stored: document)) }
        return deliveries.sorted { ($0.nextAttemptAt ?? .distantPast, $0.id) < ($1.nextAttemptAt ?? .distantPast, $1.id) }
    }

    /// Replaces the stored delivery with `delivery`.
    public func updateWebhookDelivery(_ delivery: WebhookDelivery) async throws(StoreError) {
        let document = try delivery.stored()
        try await run { [logger] in
            try await client.withConnection { connection in
                var updated = false
                for try await _ in try await connection.query(
                    """
                    UPDATE webhook_deliveries SET status = \(delivery.status.rawValue),
                        next_attempt_at = \(delivery.nextAttemptAt?.timeIntervalSince1970),
                        updated_at = \(delivery.updatedAt.timeIntervalSince1970), document = \(document)
                    WHERE id = \(delivery.id) RETURNING id
                    """, logger: logger)
                {
                    updated = true
                }
                guard updated else { throw StoreError.notFound("webhook delivery \"\(delivery.id)\"") }
            }
        }
    }

    /// The endpoint's newest `limit` deliveries, newest first.
    public func webhookDeliveries(endpoint: String, limit: Int) async throws(StoreError) -> [WebhookDelivery] {
        let documents: [String] = try await run { [logger] in
            try await client.withConnection { connection in
                var documents: [String] = []
                let rows = try await connection.query(
                    """
                    SELECT document FROM webhook_deliveries WHERE endpoint = \(endpoint)
                    ORDER BY created_at DESC, id DESC LIMIT \(limit)
                    """, logger: logger)
                for try await document in rows.decode(String.self) { documents.append(document) }
                return documents
            }
        }
        var deliveries: [WebhookDelivery] = []
        for document in documents { deliveries.append(try WebhookDelivery(stored: document)) }
        return deliveries
    }

    /// The delivery `id`; `nil` when there is none.
    public func webhookDelivery(id: String) async throws(StoreError) -> WebhookDelivery? {
        let document: String? = try await run { [logger] in
            try await client.withConnection { connection in
                let rows = try await connection.query("SELECT document FROM webhook_deliveries WHERE id = \(id)", logger: logger)
                for try await document in rows.decode(String.self) { return document }
                return nil
            }
        }
        return try document.map { stored throws(StoreError) in try WebhookDelivery(stored: stored) }
    }

    /// Deletes delivered and failed deliveries last updated before `time`; returns how many.
    @discardableResult
    public func deleteWebhookDeliveries(finishedBefore time: Date) async throws(StoreError) -> Int {
        try await run { [logger] in
            try await client.withConnection { connection in
                var count = 0
                for try await _ in try await connection.query(
                    """
                    DELETE FROM webhook_deliveries WHERE status <> 'pending' AND updated_at < \(time.timeIntervalSince1970)
                    RETURNING id
                    """, logger: logger)
                {
                    count += 1
                }
                return count
            }
        }
    }
}
