import Foundation
import SQLiteNIO

extension SQLiteFlagEventStore: RolloutEventCounting {
    public func trackedCountsByVariant(
        environment: String, name: String, flag: String, since: Int64
    ) async throws(StoreError) -> [String: Int] {
        // The flag key is quoted as one JSON path member (keys may hold dots); keys have no quotes.
        let path = "$.\"" + flag + "\""
        return try await run {
            var counts: [String: Int] = [:]
            for row in try await connection.query(
                """
                SELECT json_extract(variants, ?) AS variant, count(*) AS events FROM flag_event_tracked
                WHERE environment = ? AND name = ? AND time >= ? AND variants IS NOT NULL
                GROUP BY variant
                """,
                [.text(path), .text(environment), .text(name), .integer(Int(since))])
            {
                guard let variant = row.column("variant")?.string else { continue }
                counts[variant, default: 0] += row.column("events")?.integer ?? 0
            }
            return counts
        }
    }
}
