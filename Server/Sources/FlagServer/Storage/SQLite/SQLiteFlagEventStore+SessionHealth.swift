import FlagServerModel
import Foundation
import SQLiteNIO

extension SQLiteFlagEventStore: SessionHealthCounting {
    /// Groups the raw tracked events by variant of `flag`, app version and platform in one query, most sessions first.
    public func sessionHealth(
        environment: String, flag: String, sessions: [String], crash: String, from: Int64, to: Int64, limit: Int
    ) async throws(StoreError) -> [SessionHealthCount] {
        // The flag key is quoted as one JSON path member (keys may hold dots); keys have no quotes.
        let path = "$.\"" + flag + "\""
        let names = Array(Set(sessions + [crash])).sorted()
        let sql = """
            SELECT CAST(coalesce(json_extract(t.variants, ?), '') AS TEXT) AS variant, b.app_version AS app_version,
                b.platform AS platform, sum(t.name IN (\(SQLiteConnection.placeholders(sessions.count)))) AS sessions,
                sum(t.name = ?) AS crashes
            FROM flag_event_tracked t JOIN flag_event_batches b ON b.seq = t.batch
            WHERE t.environment = ? AND t.name IN (\(SQLiteConnection.placeholders(names.count))) AND t.time >= ? AND t.time < ?
            GROUP BY 1, 2, 3
            ORDER BY sessions DESC, app_version, platform, variant
            LIMIT ?
            """
        var bindings: [SQLiteData] = [.text(path)]
        bindings += sessions.map { .text($0) }
        bindings += [.text(crash), .text(environment)]
        bindings += names.map { .text($0) }
        bindings += [.integer(Int(from)), .integer(Int(to)), .integer(max(0, limit))]
        return try await run {
            try await connection.query(sql, bindings).map { row in
                SessionHealthCount(
                    variant: row.column("variant")?.string ?? "", appVersion: row.column("app_version")?.string ?? "",
                    platform: row.column("platform")?.string ?? "", sessions: row.column("sessions")?.integer ?? 0,
                    crashes: row.column("crashes")?.integer ?? 0)
            }
        }
    }
}
