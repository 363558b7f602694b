import FlagServerModel
import Foundation
import Logging
import PostgresNIO

extension PostgresFlagEventStore: SessionHealthCounting {
    /// Groups the raw tracked events by variant of `flag`, app version and platform in one query, most
    /// sessions first (ties in byte order, `COLLATE "C"`).
    public func sessionHealth(
        environment: String, flag: String, sessions: [String], crash: String, from: Int64, to: Int64, limit: Int
    ) async throws(StoreError) -> [SessionHealthCount] {
        let names = Array(Set(sessions + [crash])).sorted()
        let limit = max(0, limit)
        return try await read { [logger] connection in
            var counts: [SessionHealthCount] = []
            for try await (variant, appVersion, platform, total, crashes) in try await connection.query(
                """
                SELECT coalesce(t.variants::jsonb ->> \(flag), '') COLLATE "C" AS variant, b.app_version COLLATE "C",
                    b.platform COLLATE "C", count(*) FILTER (WHERE t.name = ANY(\(sessions))) AS sessions,
                    count(*) FILTER (WHERE t.name = \(crash))
                FROM flag_event_tracked t JOIN flag_event_batches b ON b.seq = t.batch
                WHERE t.environment = \(environment) AND t.name = ANY(\(names)) AND t.time >= \(from) AND t.time < \(to)
                GROUP BY 1, 2, 3
                ORDER BY 4 DESC, 2, 3, 1
                LIMIT \(limit)
                """, logger: logger
            ).decode((String, String, String, Int64, Int64).self) {
                counts.append(SessionHealthCount(
                    variant: variant, appVersion: appVersion, platform: platform, sessions: Int(total), crashes: Int(crashes)))
            }
            return counts
        }
    }
}
