@testable import FlagServer
import Logging
import PostgresNIO
import SQLiteNIO
import Testing

/// A write reads the settings of the flags it touches by the settings' primary key (environment,
/// flag). The query used to name only the flags, so both stores scanned every environment's
/// settings: at 10,000 flags a one-flag settings write read the whole table (a third of its CPU
/// on SQLite, `Server/Docs/Scale.md`).
@Suite
struct SettingsLookupTests {
    /// Runs `body` with a migrated in-memory SQLite store, closed afterwards.
    private static func withSQLiteStore(_ body: (SQLiteFlagStore) async throws -> Void) async throws {
        let store = try await SQLiteFlagStore(path: nil)
        do {
            try await store.migrate()
            try await body(store)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    @Test
    func sqliteLooksTheSettingsUpByTheirKey() async throws {
        try await Self.withSQLiteStore { store in
            let query = SQLiteFlagStore.settingsQuery(environments: ["development", "production"], flags: ["a", "b", "c"])
            let plan = try await store.connection.query("EXPLAIN QUERY PLAN " + query.sql, query.binds)
                .compactMap { $0.column("detail")?.string }
            #expect(plan.count == 1)
            let detail = try #require(plan.first)
            #expect(detail.hasPrefix("SEARCH flag_settings"), "\(plan)")
            #expect(detail.contains("environment=? AND flag=?"), "\(plan)")
        }
    }

    @Test
    func sqliteReadsOnlyTheNamedSettings() async throws {
        try await Self.withSQLiteStore { store in
            _ = try await store.connection.query("INSERT INTO environments (key, revision, position) VALUES ('development', 1, 0), ('production', 1, 1)")
            for environment in ["development", "production"] {
                for flag in ["a", "b", "c"] {
                    _ = try await store.connection.query(
                        "INSERT INTO flag_settings (environment, flag, document) VALUES (?, ?, '{}')", [.text(environment), .text(flag)])
                }
            }
            let query = SQLiteFlagStore.settingsQuery(environments: ["development", "production"], flags: ["a", "c"])
            let rows = try await store.connection.query(query.sql, query.binds).map {
                "\($0.column("environment")?.string ?? "")/\($0.column("flag")?.string ?? "")"
            }
            #expect(rows.sorted() == ["development/a", "development/c", "production/a", "production/c"])
        }
    }

    @Test(.enabled(if: PostgresTestDatabase.enabled, "needs FLAG_SERVER_TEST_DATABASE_URL (source .ci/postgres.sh; postgres_setup)"))
    func postgresLooksTheSettingsUpByTheirKey() async throws {
        let store = try PostgresTestDatabase.makeStore()
        do {
            try await store.migrate()
            let logger = Logger(label: "test.postgres")
            let plan = try await store.client.withConnection { connection in
                // A tiny table is scanned whatever the query: ask for the plan an index allows.
                _ = try await connection.query("SET enable_seqscan = off", logger: logger)
                var query = PostgresFlagStore.settingsQuery(environments: ["development", "production"], flags: ["a", "b"])
                query.sql = "EXPLAIN " + query.sql
                var lines: [String] = []
                for try await line in try await connection.query(query, logger: logger).decode(String.self) { lines.append(line) }
                return lines.joined(separator: "\n")
            }
            #expect(plan.contains("flag_settings_pkey"), "\(plan)")
            #expect(plan.contains("Index Cond: ((environment = ANY"), "\(plan)")
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }
}
