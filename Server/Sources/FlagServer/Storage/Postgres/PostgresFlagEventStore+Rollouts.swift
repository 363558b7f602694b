import Foundation
import Logging
import PostgresNIO

extension PostgresFlagEventStore: RolloutEventCounting {
    public func unitRatesByVariant(
        environment: String, name: String, sessions: [String], flag: String, since: Int64, capAtSessions: Bool
    ) async throws(StoreError) -> [String: UnitRateSums] {
        let names = Array(Set(sessions + [name])).sorted()
        return try await read { [logger] connection in
            var sums: [String: UnitRateSums] = [:]
            // Per (variant, unit) first, then per variant; a row without a unit is a unit of its own.
            for try await (variant, units, s1, s2, e1, e2, se) in try await connection.query(
                """
                SELECT variant, count(*), sum(s)::float8, sum(s * s)::float8, sum(e)::float8, sum(e * e)::float8, sum(s * e)::float8
                FROM (
                    SELECT variant, s, CASE WHEN \(capAtSessions) THEN LEAST(e, s) ELSE e END AS e
                    FROM (
                        SELECT variants::jsonb ->> \(flag) AS variant,
                            coalesce(unit, '#' || batch || ':' || ordinal) AS owner,
                            count(*) FILTER (WHERE name = ANY(\(sessions))) AS s,
                            count(*) FILTER (WHERE name = \(name)) AS e
                        FROM flag_event_tracked
                        WHERE environment = \(environment) AND name = ANY(\(names)) AND time >= \(since)
                            AND variants IS NOT NULL
                        GROUP BY 1, 2
                    ) AS per_unit
                    WHERE variant IS NOT NULL
                ) AS capped
                GROUP BY variant
                """, logger: logger
            ).decode((String, Int64, Double, Double, Double, Double, Double).self) {
                sums[variant] = UnitRateSums(
                    units: Int(units), sessions: s1, sessionSquares: s2, events: e1, eventSquares: e2, products: se)
            }
            return sums
        }
    }
}
