import FlagEvaluation
import FlagServerModel
import Foundation
import PostgresNIO

/// The audit's reads: an environment's entries, and the newest entry of many keys at once.
extension PostgresFlagStore {
    /// The newest `limit` audit entries of `environment` (of `key` only, when given), newest first.
    public func audit(environment: String, key: String?, limit: Int) async throws(StoreError) -> [AuditEntry] {
        try await run { [logger] in
            try await client.withConnection { connection in
                let rows = try await connection.query(
                    """
                    SELECT revision, time, actor, reason, subject, key, before, after, reverted_to FROM audit
                    WHERE environment = \(environment) AND (\(key)::TEXT IS NULL OR key = \(key))
                    ORDER BY id DESC LIMIT \(max(0, limit))
                    """, logger: logger)
                var entries: [AuditEntry] = []
                for try await (revision, time, actor, reason, subject, key, before, after, revertedTo) in rows.decode(
                    (Int, Double, String, String?, String, String, String?, String?, Int?).self)
                {
                    entries.append(AuditEntry(
                        environment: environment, revision: revision, time: Date(timeIntervalSince1970: time), actor: actor,
                        reason: reason, subject: AuditEntry.Subject(rawValue: subject) ?? .flag, key: key,
                        before: try before.map { try JSONValue(parsing: $0) },
                        after: try after.map { try JSONValue(parsing: $0) }, revertedTo: revertedTo))
                }
                return entries
            }
        }
    }

    /// The newest entry of each of `keys` in `environment` (keys without one are absent), in one
    /// query: each key's entry of the highest `id`.
    public func latestAuditEntries(environment: String, keys: [String]) async throws(StoreError) -> [String: AuditEntry] {
        let keys = Array(Set(keys)).sorted()
        guard !keys.isEmpty else { return [:] }
        return try await run { [logger] in
            try await client.withConnection { connection in
                let rows = try await connection.query(
                    """
                    SELECT DISTINCT ON (key) revision, time, actor, reason, subject, key, before, after, reverted_to FROM audit
                    WHERE environment = \(environment) AND key = ANY(\(keys))
                    ORDER BY key, id DESC
                    """, logger: logger)
                var entries: [String: AuditEntry] = [:]
                for try await (revision, time, actor, reason, subject, key, before, after, revertedTo) in rows.decode(
                    (Int, Double, String, String?, String, String, String?, String?, Int?).self)
                {
                    entries[key] = AuditEntry(
                        environment: environment, revision: revision, time: Date(timeIntervalSince1970: time), actor: actor,
                        reason: reason, subject: AuditEntry.Subject(rawValue: subject) ?? .flag, key: key,
                        before: try before.map { try JSONValue(parsing: $0) },
                        after: try after.map { try JSONValue(parsing: $0) }, revertedTo: revertedTo)
                }
                return entries
            }
        }
    }
}
