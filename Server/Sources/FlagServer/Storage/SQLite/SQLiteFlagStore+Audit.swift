import FlagEvaluation
import FlagServerModel
import Foundation
import SQLiteNIO

/// The audit's reads: an environment's entries, and the newest entry of many keys at once.
extension SQLiteFlagStore {
    /// The newest `limit` audit entries of `environment` (of `key` only, when given), from the `audit` table.
    public func audit(environment: String, key: String?, limit: Int) async throws(StoreError) -> [AuditEntry] {
        try await run {
            var sql = "SELECT * FROM audit WHERE environment = ?"
            var binds: [SQLiteData] = [.text(environment)]
            if let key {
                sql += " AND key = ?"
                binds.append(.text(key))
            }
            sql += " ORDER BY id DESC LIMIT ?"
            binds.append(.integer(max(0, limit)))
            return try await connection.query(sql, binds).map(Self.auditEntry)
        }
    }

    /// The newest entry of each of `keys` in `environment` (keys without one are absent): one
    /// query for 500 keys, each key's entry of the highest `id` found through `audit_by_key`.
    public func latestAuditEntries(environment: String, keys: [String]) async throws(StoreError) -> [String: AuditEntry] {
        try await run {
            var entries: [String: AuditEntry] = [:]
            let keys = Array(Set(keys)).sorted()
            for start in stride(from: 0, to: keys.count, by: 500) {
                let chunk = keys[start..<min(start + 500, keys.count)]
                let rows = try await connection.query(
                    """
                    SELECT audit.* FROM audit JOIN (
                        SELECT MAX(id) AS newest FROM audit
                        WHERE environment = ? AND key IN (\(SQLiteConnection.placeholders(chunk.count))) GROUP BY key
                    ) ON audit.id = newest
                    """, [.text(environment)] + chunk.map(SQLiteData.text))
                for row in rows {
                    let entry = try Self.auditEntry(row)
                    entries[entry.key] = entry
                }
            }
            return entries
        }
    }

    /// An `audit` row as an entry.
    static func auditEntry(_ row: SQLiteRow) throws -> AuditEntry {
        AuditEntry(
            environment: row.column("environment")?.string ?? "",
            revision: row.column("revision")?.integer ?? 0,
            time: Date(timeIntervalSince1970: row.column("time")?.double ?? 0),
            actor: row.column("actor")?.string ?? "",
            reason: row.column("reason")?.string,
            subject: AuditEntry.Subject(rawValue: row.column("subject")?.string ?? "") ?? .flag,
            key: row.column("key")?.string ?? "",
            before: try row.column("before")?.string.map { try JSONValue(parsing: $0) },
            after: try row.column("after")?.string.map { try JSONValue(parsing: $0) },
            revertedTo: row.column("reverted_to")?.integer
        )
    }
}
