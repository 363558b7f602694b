import FlagServerModel
import Foundation
import Logging
import PostgresNIO

extension PostgresFlagEventStore: RolloutEventCounting {
    /// Sums per unit and then per variant in one query over the raw tracked events, reading each
    /// event's variant of `flag` from its `variants` JSON.
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
    /// Assigns each raw tracked event to a step by `stepStarts` and sums the cells and their pairs per
    /// stratum in one query, as ``RolloutEventCounting`` describes.
    public func guardrailMoments(
        environment: String, name: String, sessions: [String], flag: String, variants: [String], stepStarts: [Int64],
        capAtSessions: Bool
    ) async throws(StoreError) -> [GuardrailMoments] {
        guard let runStart = stepStarts.first, !variants.isEmpty else { return [] }
        let names = Array(Set(sessions + [name])).sorted()
        return try await read { [logger] connection in
            var rows: [GuardrailMoments] = []
            // Per (stratum, unit, step, variant), plus per (stratum, unit, variant) over the whole run;
            // then every pair of a unit's cells (whole-run cells only with themselves), summed per
            // stratum. The step is the number of starts at or before the event's time, less one.
            for try await (appVersion, platform, k, v, l, w, units, s1, e1, ss, se, es, ee) in try await connection.query(
                """
                WITH per_step AS (
                    SELECT b.app_version, b.platform, coalesce(t.unit, '#' || t.batch || ':' || t.ordinal) AS owner,
                        width_bucket(t.time, \(stepStarts)::bigint[]) - 1 AS step, t.variants::jsonb ->> \(flag) AS variant,
                        count(*) FILTER (WHERE t.name = ANY(\(sessions))) AS s, count(*) FILTER (WHERE t.name = \(name)) AS e
                    FROM flag_event_tracked t JOIN flag_event_batches b ON b.seq = t.batch
                    WHERE t.environment = \(environment) AND t.name = ANY(\(names)) AND t.time >= \(runStart)
                        AND t.variants IS NOT NULL
                    GROUP BY 1, 2, 3, 4, 5
                ),
                cells AS (
                    SELECT app_version, platform, owner, step, variant, s,
                        CASE WHEN \(capAtSessions) THEN LEAST(e, s) ELSE e END AS e
                    FROM per_step WHERE variant = ANY(\(variants))
                ),
                all_cells AS (
                    SELECT * FROM cells
                    UNION ALL
                    SELECT app_version, platform, owner, -1, variant, sum(s)::bigint, sum(e)::bigint FROM cells GROUP BY 1, 2, 3, 5
                )
                SELECT a.app_version, a.platform, a.step, a.variant, b.step, b.variant, count(*), sum(a.s)::float8,
                    sum(a.e)::float8, sum(a.s * b.s)::float8, sum(a.s * b.e)::float8, sum(a.e * b.s)::float8, sum(a.e * b.e)::float8
                FROM all_cells a JOIN all_cells b ON b.owner = a.owner AND b.app_version = a.app_version AND b.platform = a.platform
                WHERE (a.step >= 0 AND b.step >= 0) OR (a.step < 0 AND b.step < 0 AND a.variant = b.variant)
                GROUP BY 1, 2, 3, 4, 5, 6
                """, logger: logger
            ).decode((String, String, Int32, String, Int32, String, Int64, Double, Double, Double, Double, Double, Double).self) {
                rows.append(GuardrailMoments(
                    appVersion: appVersion, platform: platform, first: .init(step: Int(k), variant: v),
                    second: .init(step: Int(l), variant: w), units: Int(units), sessions: s1, events: e1, sessionProducts: ss,
                    sessionEventProducts: se, eventSessionProducts: es, eventProducts: ee))
            }
            return rows
        }
    }
}
