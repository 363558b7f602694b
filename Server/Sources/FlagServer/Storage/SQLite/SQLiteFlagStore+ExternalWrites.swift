import FlagServerModel
import SQLiteNIO

extension SQLiteFlagStore {
    /// SQLite's `data_version` of this store's connection: it changes when another connection
    /// (another process on the same file, such as `flag-server add-token`) commits, and not for
    /// this connection's own commits. Reading it is a lookup in the shared-memory index: no table
    /// is read.
    public func dataVersion() async throws(StoreError) -> Int {
        try await run {
            guard let version = try await connection.query("PRAGMA data_version").first?.column("data_version")?.integer else {
                throw StoreError.database("PRAGMA data_version returned no number")
            }
            return version
        }
    }
}
