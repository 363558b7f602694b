import FlagEvaluation
import FlagServerModel
public import Foundation
import SQLiteNIO

extension SQLiteFlagStore: ConsoleAccountStore {
    /// Every console user, disabled ones too, by name.
    public func consoleUsers() async throws(StoreError) -> [ConsoleUser] {
        try await run {
            try await connection.query("SELECT * FROM console_users ORDER BY name").map { row in
                ConsoleUser(
                    name: row.column("name")?.string ?? "",
                    passwordHash: row.column("password_hash")?.string ?? "",
                    role: ConsoleRole(rawValue: row.column("role")?.string ?? "") ?? .viewer,
                    createdAt: Date(timeIntervalSince1970: row.column("created_at")?.double ?? 0),
                    disabledAt: row.column("disabled_at")?.double.map(Date.init(timeIntervalSince1970:)))
            }
        }
    }

    /// Adds `user` and writes `audit` (when given), in a transaction that refuses an existing name.
    public func insertConsoleUser(_ user: ConsoleUser, audit: AuditEntry?) async throws(StoreError) {
        try await run {
            try await transaction {
                let existing = try await connection.query("SELECT name FROM console_users WHERE name = ?", [.text(user.name)])
                guard existing.isEmpty else { throw StoreError.conflict("console user \"\(user.name)\" exists already") }
                _ = try await connection.query(
                    "INSERT INTO console_users (name, password_hash, role, created_at, disabled_at) VALUES (?, ?, ?, ?, ?)",
                    [
                        .text(user.name), .text(user.passwordHash), .text(user.role.rawValue),
                        .float(user.createdAt.timeIntervalSince1970), user.disabledAt.map { .float($0.timeIntervalSince1970) } ?? .null,
                    ])
                if let audit { try await appendAudit(audit) }
            }
        }
    }

    /// Replaces the user's password hash, role and disabled time, ends their sessions when
    /// `endingSessions`, and writes `audit`, in one transaction.
    public func updateConsoleUser(_ user: ConsoleUser, endingSessions: Bool, audit: AuditEntry) async throws(StoreError) {
        try await run {
            try await transaction {
                let existing = try await connection.query("SELECT name FROM console_users WHERE name = ?", [.text(user.name)])
                guard !existing.isEmpty else { throw StoreError.notFound("console user \"\(user.name)\"") }
                _ = try await connection.query(
                    "UPDATE console_users SET password_hash = ?, role = ?, disabled_at = ? WHERE name = ?",
                    [
                        .text(user.passwordHash), .text(user.role.rawValue),
                        user.disabledAt.map { .float($0.timeIntervalSince1970) } ?? .null, .text(user.name),
                    ])
                if endingSessions {
                    _ = try await connection.query("DELETE FROM console_sessions WHERE user = ?", [.text(user.name)])
                }
                try await appendAudit(audit)
            }
        }
    }

    /// Of the newest `limit` audit entries of console accounts, those about users, newest first.
    public func consoleUserAudit(limit: Int) async throws(StoreError) -> [AuditEntry] {
        try await audit(environment: AuditEntry.accountsEnvironment, key: nil, limit: limit).filter { $0.subject == .user }
    }

    /// Appends an audit entry as it is (inside the caller's transaction).
    func appendAudit(_ entry: AuditEntry) async throws {
        _ = try await connection.query(
            """
            INSERT INTO audit (environment, revision, time, actor, reason, subject, key, before, after)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(entry.environment), .integer(entry.revision), .float(entry.time.timeIntervalSince1970), .text(entry.actor),
                entry.reason.map(SQLiteData.text) ?? .null, .text(entry.subject.rawValue), .text(entry.key),
                entry.before.map { .text($0.serialized()) } ?? .null, entry.after.map { .text($0.serialized()) } ?? .null,
            ])
    }

    /// Adds `session`; throws ``StoreError/notFound(_:)`` when its user does not exist.
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

    /// The session whose id hashes (SHA-256, hex) to `digest`; `nil` when there is none.
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

    /// Deletes the session `digest` and every session that expired before `time`.
    public func deleteConsoleSession(digest: String, expiredBefore time: Date) async throws(StoreError) {
        try await run {
            _ = try await connection.query(
                "DELETE FROM console_sessions WHERE digest = ? OR expires_at < ?",
                [.text(digest), .float(time.timeIntervalSince1970)])
        }
    }
}
