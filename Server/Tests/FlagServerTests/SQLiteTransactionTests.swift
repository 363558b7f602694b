@testable import FlagServer
import Foundation
import SQLiteNIO
import Testing

/// A write transaction whose task is cancelled still ends: SQLiteNIO drops a cancelled task's
/// statements, and a dropped `ROLLBACK` or `COMMIT` left the connection inside the transaction,
/// so every later write failed with "cannot start a transaction within a transaction" (seen when
/// a stopped server's background work was cancelled mid-write on a store another server used).
@Suite
struct SQLiteTransactionTests {
    private static func withConnection(_ body: (SQLiteConnection) async throws -> Void) async throws {
        let connection = try await SQLiteConnection.open(storage: .memory)
        do {
            _ = try await connection.query("CREATE TABLE t (x INTEGER NOT NULL)")
            try await body(connection)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    private static func values(_ connection: SQLiteConnection) async throws -> [Int] {
        try await connection.query("SELECT x FROM t ORDER BY x").compactMap { $0.column("x")?.integer }
    }

    @Test
    func aTransactionCancelledInItsBodyRollsBackAndTheNextOneRuns() async throws {
        try await Self.withConnection { connection in
            let cancelled = Task {
                try await connection.writeTransaction {
                    _ = try await connection.query("INSERT INTO t (x) VALUES (1)")
                    withUnsafeCurrentTask { $0?.cancel() }
                    // Dropped by SQLiteNIO: the task is cancelled.
                    _ = try await connection.query("INSERT INTO t (x) VALUES (2)")
                }
            }
            await #expect(throws: CancellationError.self) { try await cancelled.value }
            try await connection.writeTransaction {
                _ = try await connection.query("INSERT INTO t (x) VALUES (3)")
            }
            #expect(try await Self.values(connection) == [3])
        }
    }

    @Test
    func aTransactionWhoseTaskIsCancelledBeforeCommitCommitsAndSaysSo() async throws {
        try await Self.withConnection { connection in
            let cancelled = Task {
                try await connection.writeTransaction {
                    _ = try await connection.query("INSERT INTO t (x) VALUES (1)")
                    withUnsafeCurrentTask { $0?.cancel() }
                    return 1
                }
            }
            // Its caller is told it succeeded, and it did.
            #expect(try await cancelled.value == 1)
            try await connection.writeTransaction {
                _ = try await connection.query("INSERT INTO t (x) VALUES (2)")
            }
            #expect(try await Self.values(connection) == [1, 2])
        }
    }
}
