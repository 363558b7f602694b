import FlagServerModel
import Foundation
import SQLiteNIO

extension SQLiteFlagEventStore: RolloutAttributionCounting {
    /// Counts the raw tracked events since `since` in one query, reading each event's variant of `flag` from its `variants` JSON.
    public func attributionCounts(
        environment: String, flag: String, sessions: [String], crash: String, since: Int64
    ) async throws(StoreError) -> RolloutAttributionCounts {
        // The flag key is quoted as one JSON path member (keys may hold dots); keys have no quotes.
        let path = "$.\"" + flag + "\""
        let names = Array(Set(sessions + [crash])).sorted()
        let sessionMarks = SQLiteConnection.placeholders(sessions.count)
        let sql = """
            SELECT sum(name IN (\(sessionMarks))) AS sessions, sum(name = ?) AS crashes,
                sum(name IN (\(sessionMarks)) AND none) AS sessions_without, sum(name = ? AND none) AS crashes_without
            FROM (
                SELECT name, coalesce(json_extract(variants, ?), '') = '' AS none
                FROM flag_event_tracked
                WHERE environment = ? AND name IN (\(SQLiteConnection.placeholders(names.count))) AND time >= ?
            )
            """
        var bindings: [SQLiteData] = sessions.map { .text($0) }
        bindings.append(.text(crash))
        bindings += sessions.map { .text($0) }
        bindings += [.text(crash), .text(path), .text(environment)]
        bindings += names.map { .text($0) }
        bindings.append(.integer(Int(since)))
        return try await run {
            let rows = try await connection.query(sql, bindings)
            func count(_ column: String) -> Int { rows.first?.column(column)?.integer ?? 0 }
            return RolloutAttributionCounts(
                sessions: count("sessions"), crashes: count("crashes"), sessionsWithoutVariant: count("sessions_without"),
                crashesWithoutVariant: count("crashes_without"))
        }
    }
}
