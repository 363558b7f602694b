import FlagServerModel
import Foundation
import Logging
import PostgresNIO

extension PostgresFlagEventStore: RolloutAttributionCounting {
    /// Counts the raw tracked events since `since` in one query, reading each event's variant of `flag` from its `variants` JSON.
    public func attributionCounts(
        environment: String, flag: String, sessions: [String], crash: String, since: Int64
    ) async throws(StoreError) -> RolloutAttributionCounts {
        let names = Array(Set(sessions + [crash])).sorted()
        return try await read { [logger] connection in
            var counts = RolloutAttributionCounts.zero
            for try await (total, crashes, totalWithout, crashesWithout) in try await connection.query(
                """
                SELECT count(*) FILTER (WHERE name = ANY(\(sessions))),
                    count(*) FILTER (WHERE name = \(crash)),
                    count(*) FILTER (WHERE name = ANY(\(sessions)) AND none),
                    count(*) FILTER (WHERE name = \(crash) AND none)
                FROM (
                    SELECT name, coalesce(variants::jsonb ->> \(flag), '') = '' AS none
                    FROM flag_event_tracked
                    WHERE environment = \(environment) AND name = ANY(\(names)) AND time >= \(since)
                ) AS health
                """, logger: logger
            ).decode((Int64, Int64, Int64, Int64).self) {
                counts = RolloutAttributionCounts(
                    sessions: Int(total), crashes: Int(crashes), sessionsWithoutVariant: Int(totalWithout),
                    crashesWithoutVariant: Int(crashesWithout))
            }
            return counts
        }
    }
}
