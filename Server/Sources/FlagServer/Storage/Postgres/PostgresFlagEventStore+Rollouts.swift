import Foundation
import Logging
import PostgresNIO

extension PostgresFlagEventStore: RolloutEventCounting {
    public func trackedCountsByVariant(
        environment: String, name: String, flag: String, since: Int64
    ) async throws(StoreError) -> [String: Int] {
        try await read { [logger] connection in
            var counts: [String: Int] = [:]
            for try await (variant, events) in try await connection.query(
                """
                SELECT variants::jsonb ->> \(flag) AS variant, count(*) FROM flag_event_tracked
                WHERE environment = \(environment) AND name = \(name) AND time >= \(since) AND variants IS NOT NULL
                GROUP BY 1
                """, logger: logger
            ).decode((String?, Int64).self) {
                guard let variant else { continue }
                counts[variant, default: 0] += Int(events)
            }
            return counts
        }
    }
}
