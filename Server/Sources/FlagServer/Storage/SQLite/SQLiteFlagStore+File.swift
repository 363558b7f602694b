import SQLiteNIO

extension SQLiteFlagStore {
    /// The database's file as SQLite opened it; `nil` for an in-memory database (or when SQLite
    /// cannot say).
    func databaseFile() async -> String? {
        let file = try? await run { () async throws -> String? in
            let rows = try await connection.query("PRAGMA database_list")
            return rows.first { $0.column("name")?.string == "main" }?.column("file")?.string
        }
        guard let file, !file.isEmpty else { return nil }
        return file
    }
}
