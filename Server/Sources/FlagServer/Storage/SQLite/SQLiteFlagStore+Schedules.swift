import FlagServerModel
import Foundation
import SQLiteNIO

extension SQLiteFlagStore: ScheduleStore {
    /// Adds `schedule` and writes `audit` (when given), in a transaction that refuses an existing id.
    public func insertSchedule(_ schedule: ScheduledChange, audit: AuditEntry?) async throws(StoreError) {
        let document = try schedule.stored()
        try await run {
            try await transaction {
                let existing = try await connection.query("SELECT id FROM scheduled_changes WHERE id = ?", [.text(schedule.id)])
                guard existing.isEmpty else { throw StoreError.conflict("scheduled change \"\(schedule.id)\" exists already") }
                _ = try await connection.query(
                    "INSERT INTO scheduled_changes (id, environment, flag, status, run_at, version, document) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [
                        .text(schedule.id), .text(schedule.environment), .text(schedule.flag), .text(schedule.status.rawValue),
                        .float(schedule.runAt.timeIntervalSince1970), .integer(schedule.version), .text(document),
                    ])
                if let audit { try await appendAudit(audit) }
            }
        }
    }

    /// The scheduled change `id`; `nil` when there is none.
    public func schedule(id: String) async throws(StoreError) -> ScheduledChange? {
        let document = try await run {
            try await connection.query("SELECT document FROM scheduled_changes WHERE id = ?", [.text(id)]).first?.column("document")?.string
        }
        return try document.map { stored throws(StoreError) in try ScheduledChange(stored: stored) }
    }

    /// The scheduled changes of `environment`, of `flag` and due in `from ..< to` where given, earliest first, at most `limit`.
    public func schedules(environment: String, flag: String?, from: Date?, to: Date?, limit: Int) async throws(StoreError) -> [ScheduledChange] {
        var sql = "SELECT document FROM scheduled_changes WHERE environment = ?"
        var bindings: [SQLiteData] = [.text(environment)]
        if let flag {
            sql += " AND flag = ?"
            bindings.append(.text(flag))
        }
        if let from {
            sql += " AND run_at >= ?"
            bindings.append(.float(from.timeIntervalSince1970))
        }
        if let to {
            sql += " AND run_at < ?"
            bindings.append(.float(to.timeIntervalSince1970))
        }
        sql += " ORDER BY run_at, id LIMIT ?"
        bindings.append(.integer(limit))
        return try await documents(sql, bindings)
    }

    /// Up to `limit` pending changes due at or before `time`, earliest first.
    public func dueSchedules(at time: Date, limit: Int) async throws(StoreError) -> [ScheduledChange] {
        try await documents(
            "SELECT document FROM scheduled_changes WHERE status = 'pending' AND run_at <= ? ORDER BY run_at, id LIMIT ?",
            [.float(time.timeIntervalSince1970), .integer(limit)])
    }

    /// When the earliest pending change is due; `nil` when none is pending.
    public func nextScheduleTime() async throws(StoreError) -> Date? {
        try await run {
            try await connection.query("SELECT MIN(run_at) AS next FROM scheduled_changes WHERE status = 'pending'")
                .first?.column("next")?.double.map(Date.init(timeIntervalSince1970:))
        }
    }

    /// Replaces the change by compare-and-set on its version and writes `audit` (when given), in one transaction.
    public func updateSchedule(_ schedule: ScheduledChange, audit: AuditEntry?) async throws(StoreError) {
        let document = try schedule.stored()
        try await run {
            try await transaction {
                let rows = try await connection.query("SELECT version FROM scheduled_changes WHERE id = ?", [.text(schedule.id)])
                guard let stored = rows.first?.column("version")?.integer else {
                    throw StoreError.notFound("scheduled change \"\(schedule.id)\"")
                }
                guard stored == schedule.version - 1 else {
                    throw StoreError.conflict("scheduled change \"\(schedule.id)\" changed meanwhile; read it again")
                }
                _ = try await connection.query(
                    "UPDATE scheduled_changes SET status = ?, run_at = ?, version = ?, document = ? WHERE id = ?",
                    [
                        .text(schedule.status.rawValue), .float(schedule.runAt.timeIntervalSince1970), .integer(schedule.version),
                        .text(document), .text(schedule.id),
                    ])
                if let audit { try await appendAudit(audit) }
            }
        }
    }

    private func documents(_ sql: String, _ bindings: [SQLiteData]) async throws(StoreError) -> [ScheduledChange] {
        let documents = try await run {
            try await connection.query(sql, bindings).map { $0.column("document")?.string ?? "" }
        }
        var schedules: [ScheduledChange] = []
        for document in documents { schedules.append(try ScheduledChange(stored: document)) }
        return schedules
    }
}
