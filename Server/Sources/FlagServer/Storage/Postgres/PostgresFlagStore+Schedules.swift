import FlagServerModel
import Foundation
import Logging
import PostgresNIO

extension PostgresFlagStore: ScheduleStore {
    /// Adds `schedule` and writes `audit` (when given), in a transaction that refuses an existing id.
    public func insertSchedule(_ schedule: ScheduledChange, audit: AuditEntry?) async throws(StoreError) {
        let document = try schedule.stored()
        try await run { [logger] in
            try await client.withConnection { connection in
                try await Self.transaction(connection, logger: logger) {
                    var inserted = false
                    for try await _ in try await connection.query(
                        """
                        INSERT INTO scheduled_changes (id, environment, flag, status, run_at, version, document)
                        VALUES (\(schedule.id), \(schedule.environment), \(schedule.flag), \(schedule.status.rawValue),
                                \(schedule.runAt.timeIntervalSince1970), \(schedule.version), \(document))
                        ON CONFLICT (id) DO NOTHING RETURNING id
                        """, logger: logger)
                    {
                        inserted = true
                    }
                    guard inserted else { throw StoreError.conflict("scheduled change \"\(schedule.id)\" exists already") }
                    if let audit { try await Self.appendAudit(audit, connection, logger: logger) }
                }
            }
        }
    }

    /// The scheduled change `id`; `nil` when there is none.
    public func schedule(id: String) async throws(StoreError) -> ScheduledChange? {
        let documents = try await scheduleDocuments("SELECT document FROM scheduled_changes WHERE id = \(id)")
        return documents.first
    }

    /// The scheduled changes of `environment`, of `flag` and due in `from ..< to` where given, earliest first, at most `limit`.
    public func schedules(environment: String, flag: String?, from: Date?, to: Date?, limit: Int) async throws(StoreError) -> [ScheduledChange] {
        // Open ends as the widest bounds, so that one statement serves every filter.
        let lower = from?.timeIntervalSince1970 ?? -Double.greatestFiniteMagnitude
        let upper = to?.timeIntervalSince1970 ?? Double.greatestFiniteMagnitude
        return try await scheduleDocuments(
            """
            SELECT document FROM scheduled_changes
            WHERE environment = \(environment) AND (\(flag)::TEXT IS NULL OR flag = \(flag))
                AND run_at >= \(lower) AND run_at < \(upper)
            ORDER BY run_at, id LIMIT \(limit)
            """)
    }

    /// Up to `limit` pending changes due at or before `time`, earliest first.
    public func dueSchedules(at time: Date, limit: Int) async throws(StoreError) -> [ScheduledChange] {
        try await scheduleDocuments(
            """
            SELECT document FROM scheduled_changes WHERE status = 'pending' AND run_at <= \(time.timeIntervalSince1970)
            ORDER BY run_at, id LIMIT \(limit)
            """)
    }

    /// When the earliest pending change is due; `nil` when none is pending.
    public func nextScheduleTime() async throws(StoreError) -> Date? {
        try await run { [logger] in
            try await client.withConnection { connection in
                let rows = try await connection.query(
                    "SELECT MIN(run_at) FROM scheduled_changes WHERE status = 'pending'", logger: logger)
                for try await next in rows.decode(Double?.self) { return next.map(Date.init(timeIntervalSince1970:)) }
                return nil
            }
        }
    }

    /// Replaces the change by compare-and-set on its version and writes `audit` (when given), in one
    /// transaction; of two servers updating the same version, the second matches no row and is refused.
    public func updateSchedule(_ schedule: ScheduledChange, audit: AuditEntry?) async throws(StoreError) {
        let document = try schedule.stored()
        try await run { [logger] in
            try await client.withConnection { connection in
                try await Self.transaction(connection, logger: logger) {
                    var updated = false
                    // Compare-and-set on the version: the row lock makes a second update of the
                    // same version wait for the first and then match no row, so two servers
                    // claiming one run leave one claim and one conflict.
                    for try await _ in try await connection.query(
                        """
                        UPDATE scheduled_changes SET status = \(schedule.status.rawValue),
                            run_at = \(schedule.runAt.timeIntervalSince1970), version = \(schedule.version), document = \(document)
                        WHERE id = \(schedule.id) AND version = \(schedule.version - 1) RETURNING id
                        """, logger: logger)
                    {
                        updated = true
                    }
                    if updated {
                        if let audit { try await Self.appendAudit(audit, connection, logger: logger) }
                        return
                    }
                    var exists = false
                    for try await _ in try await connection.query(
                        "SELECT id FROM scheduled_changes WHERE id = \(schedule.id)", logger: logger)
                    {
                        exists = true
                    }
                    throw exists
                        ? StoreError.conflict("scheduled change \"\(schedule.id)\" changed meanwhile; read it again")
                        : StoreError.notFound("scheduled change \"\(schedule.id)\"")
                }
            }
        }
    }

    private func scheduleDocuments(_ query: PostgresQuery) async throws(StoreError) -> [ScheduledChange] {
        let documents: [String] = try await run { [logger] in
            try await client.withConnection { connection in
                var documents: [String] = []
                for try await document in try await connection.query(query, logger: logger).decode(String.self) {
                    documents.append(document)
                }
                return documents
            }
        }
        var schedules: [ScheduledChange] = []
        for document in documents { schedules.append(try ScheduledChange(stored: document)) }
        return schedules
    }
}
