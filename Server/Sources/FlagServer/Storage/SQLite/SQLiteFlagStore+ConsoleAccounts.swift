public import Foundation
import SQLiteNIO

extension SQLiteFlagStore: ConsoleAccountStore {
    public func consoleUsers() async throws(StoreError) -> [ConsoleUser] {
        try await run {
            try await connection.query("SELECT * FROM console_users ORDER BY name").map { row in
                ConsoleUser(
                    name: row.column("name")?.string ?? "",
                    passwordHash: row.column("password_hash")?.string ?? "",
                    role: ConsoleRole(rawValue: row.column("role")?.string ?? "") ?? .viewer,
                    createdAt: Date(timeIntervalSince1970: row.column("created_at")?.double ?? 0))
            }
        }
    }

    public func insertConsoleUser(_ user: ConsoleUser) async throws(StoreError) {
        try await run {
            let existing = try await connection.query("SELECT name FROM console_users WHERE name = ?", [.text(user.name)])
            guard existing.isEmpty else { throw StoreError.conflict("console user \"\(user.name)\" exists already") }
            _ = try await connection.query(
                "INSERT INTO console_users (name, password_hash, role, created_at) VALUES (?, ?, ?, ?)",
                [.text(user.name), .text(user.passwordHash), .text(user.role.rawValue), .float(user.createdAt.timeIntervalSince1970)])
        }
    }

    public func insertConsoleSession(_ session: ConsoleSession) async throws(StoreError) {
        try await run {
            let users = try await connection.query("SELECT name FROM console_users WHERE name = ?", [.text(session.user)])
            guard !users.isEmpty else { throw StoreError.notFound("console user \"\(session.user)\"") }
            _ = try await connection.query(
                "INSERT INTO console_sessions (digest, user, created_at, expires_at) VALUES (?, ?, ?, ?)",
                [
                    .text(session.digest), .text(session.user), .float(session.createdAt.timeIntervalSince1970),
                    .float(session.expiresAt.timeIntervalSince1970),
                ])
        }
    }

    public func consoleSession(digest: String) async throws(StoreError) -> ConsoleSession? {
        try await run {
            try await connection.query("SELECT * FROM console_sessions WHERE digest = ?", [.text(digest)]).first.map { row in
                ConsoleSession(
                    digest: row.column("digest")?.string ?? "",
                    user: row.column("user")?.string ?? "",
                    createdAt: Date(timeIntervalSince1970: row.column("created_at")?.double ?? 0),
                    expiresAt: Date(timeIntervalSince1970: row.column("expires_at")?.double ?? 0))
            }
        }
    }

    public func deleteConsoleSession(digest: String, expiredBefore time: Date) async throws(StoreError) {
        try await run {
            _ = try await connection.query(
                "DELETE FROM console_sessions WHERE digest = ? OR expires_at < ?",
                [.text(digest), .float(time.timeIntervalSince1970)])
        }
    }
}
