import FlagServerModel
import Foundation
import SQLiteNIO

extension SQLiteFlagEventStore: RolloutEventCounting {
    /// Sums per unit and then per variant in one query over the raw tracked events, reading each
    /// event's variant of `flag` from its `variants` JSON.
    public func unitRatesByVariant(
        environment: String, name: String, sessions: [String], flag: String, since: Int64, capAtSessions: Bool
    ) async throws(StoreError) -> [String: UnitRateSums] {
        // The flag key is quoted as one JSON path member (keys may hold dots); keys have no quotes.
        let path = "$.\"" + flag + "\""
        let names = Array(Set(sessions + [name])).sorted()
        let sessionMarks = SQLiteConnection.placeholders(sessions.count)
        // Per (variant, unit) first, then per variant; a row without a unit is a unit of its own.
        let events = capAtSessions ? "min(e, s)" : "e"
        let sql = """
            SELECT variant, count(*) AS units, sum(s) AS s1, sum(s * s) AS s2, sum(\(events)) AS e1,
                sum(\(events) * \(events)) AS e2, sum(s * \(events)) AS se
            FROM (
                SELECT json_extract(variants, ?) AS variant, coalesce(unit, '#' || batch || ':' || ordinal) AS owner,
                    sum(name IN (\(sessionMarks))) AS s, sum(name = ?) AS e
                FROM flag_event_tracked
                WHERE environment = ? AND name IN (\(SQLiteConnection.placeholders(names.count))) AND time >= ?
                    AND variants IS NOT NULL
                GROUP BY variant, owner
            )
            WHERE variant IS NOT NULL
            GROUP BY variant
            """
        var bindings: [SQLiteData] = [.text(path)]
        bindings += sessions.map { .text($0) }
        bindings += [.text(name), .text(environment)]
        bindings += names.map { .text($0) }
        bindings.append(.integer(Int(since)))
        return try await run {
            var sums: [String: UnitRateSums] = [:]
            for row in try await connection.query(sql, bindings) {
                guard let variant = row.column("variant")?.string else { continue }
                func number(_ column: String) -> Double { row.column(column)?.double ?? 0 }
                sums[variant] = UnitRateSums(
                    units: row.column("units")?.integer ?? 0, sessions: number("s1"), sessionSquares: number("s2"),
                    events: number("e1"), eventSquares: number("e2"), products: number("se"))
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
        let path = "$.\"" + flag + "\""
        let names = Array(Set(sessions + [name])).sorted()
        // The step of an event: the last start at or before its time (the run's first step otherwise).
        let laterStarts = stepStarts.enumerated().dropFirst().reversed()
        let step = laterStarts.isEmpty ? "0" : "CASE " + laterStarts.map { "WHEN t.time >= ? THEN \($0.offset) " }.joined() + "ELSE 0 END"
        let events = capAtSessions ? "min(e, s)" : "e"
        // Per (stratum, unit, step, variant), plus per (stratum, unit, variant) over the whole run;
        // then every pair of a unit's cells (whole-run cells only with themselves), summed per stratum.
        let sql = """
            WITH per_step AS (
                SELECT b.app_version AS app_version, b.platform AS platform,
                    coalesce(t.unit, '#' || t.batch || ':' || t.ordinal) AS owner, \(step) AS step,
                    json_extract(t.variants, ?) AS variant,
                    sum(t.name IN (\(SQLiteConnection.placeholders(sessions.count)))) AS s, sum(t.name = ?) AS e
                FROM flag_event_tracked t JOIN flag_event_batches b ON b.seq = t.batch
                WHERE t.environment = ? AND t.name IN (\(SQLiteConnection.placeholders(names.count))) AND t.time >= ?
                    AND t.variants IS NOT NULL
                GROUP BY 1, 2, 3, 4, 5
            ),
            cells AS (
                SELECT app_version, platform, owner, step, variant, s, \(events) AS e
                FROM per_step WHERE variant IN (\(SQLiteConnection.placeholders(variants.count)))
            ),
            all_cells AS (
                SELECT * FROM cells
                UNION ALL
                SELECT app_version, platform, owner, -1, variant, sum(s), sum(e) FROM cells GROUP BY 1, 2, 3, 5
            )
            SELECT a.app_version AS app_version, a.platform AS platform, a.step AS k, a.variant AS v, b.step AS l,
                b.variant AS w, count(*) AS units, sum(a.s) AS s1, sum(a.e) AS e1, sum(a.s * b.s) AS ss, sum(a.s * b.e) AS se,
                sum(a.e * b.s) AS es, sum(a.e * b.e) AS ee
            FROM all_cells a JOIN all_cells b ON b.owner = a.owner AND b.app_version = a.app_version AND b.platform = a.platform
            WHERE (a.step >= 0 AND b.step >= 0) OR (a.step < 0 AND b.step < 0 AND a.variant = b.variant)
            GROUP BY 1, 2, 3, 4, 5, 6
            """
        var bindings: [SQLiteData] = laterStarts.map { .integer(Int($0.element)) }
        bindings.append(.text(path))
        bindings += sessions.map { .text($0) }
        bindings += [.text(name), .text(environment)]
        bindings += names.map { .text($0) }
        bindings.append(.integer(Int(runStart)))
        bindings += variants.map { .text($0) }
        return try await run {
            var rows: [GuardrailMoments] = []
            for row in try await connection.query(sql, bindings) {
                guard let appVersion = row.column("app_version")?.string, let platform = row.column("platform")?.string,
                    let v = row.column("v")?.string, let w = row.column("w")?.string
                else { continue }
                func number(_ column: String) -> Double { row.column(column)?.double ?? 0 }
                rows.append(GuardrailMoments(
                    appVersion: appVersion, platform: platform, first: .init(step: row.column("k")?.integer ?? 0, variant: v),
                    second: .init(step: row.column("l")?.integer ?? 0, variant: w), units: row.column("units")?.integer ?? 0,
                    sessions: number("s1"), events: number("e1"), sessionProducts: number("ss"), sessionEventProducts: number("se"),
                    eventSessionProducts: number("es"), eventProducts: number("ee")))
            }
            return rows
        }
    }
}
