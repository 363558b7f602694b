import Foundation
import SQLiteNIO

extension SQLiteFlagEventStore: RolloutEventCounting {
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
}
