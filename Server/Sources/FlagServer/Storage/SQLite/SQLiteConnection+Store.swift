import FlagServerModel
import SQLiteNIO

extension SQLiteConnection {
    /// `count` bound-parameter marks for an `IN (…)` list or a row: `?, ?, ?`.
    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// Runs `body` in a write transaction, rolling back if it throws. `BEGIN IMMEDIATE` takes
    /// SQLite's write lock first, so processes sharing the file serialize their writes (waiting up
    /// to the connection's `busy_timeout`).
    func writeTransaction<T: Sendable>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async throws -> T {
        _ = try await query("BEGIN IMMEDIATE")
        do {
            let result = try await body()
            try await queryEvenIfCancelled("COMMIT")
            return result
        } catch {
            try? await queryEvenIfCancelled("ROLLBACK")
            throw error
        }
    }

    /// Runs `sql` even when the calling task is cancelled.
    ///
    /// SQLiteNIO drops the statement of a cancelled task before it runs. A `COMMIT` or `ROLLBACK`
    /// dropped that way would leave the connection inside its transaction, and every later
    /// `BEGIN` would fail ("cannot start a transaction within a transaction") until a restart,
    /// losing whatever the open transaction held. So these statements run in a task of their
    /// own, which the caller's cancellation does not reach.
    func queryEvenIfCancelled(_ sql: String) async throws {
        let connection = self
        try await Task.detached { _ = try await connection.query(sql) }.value
    }
}

extension StoreError {
    /// A failure of a SQLite store's operation as a store error: a ``StoreError`` as it is, a busy
    /// or locked database as ``unavailable(_:)`` naming `database` ("the event database is
    /// locked…"), anything else as ``database(_:)``.
    static func sqlite(_ error: any Error, database: String) -> StoreError {
        switch error {
        case let error as StoreError:
            return error
        case let error as SQLiteError:
            switch error.reason {
            case .busy, .locked, .busyTimeout:
                return .unavailable("\(database) is locked by another writer and did not free in time")
            default:
                return .database(String(describing: error))
            }
        default:
            return .database(String(describing: error))
        }
    }
}
