import FlagServerModel
public import Foundation
import FlagEvaluation
import Logging
import PostgresNIO

extension PostgresFlagStore: ConsoleAccountStore {
    /// Every console user, disabled ones too, by name.
    public func consoleUsers() async throws(StoreError) -> [ConsoleUser] {
        try await run { [logger] in
            try await client.withConnection { connection in
                var users: [ConsoleUser] = []
                let rows = try await connection.query(
                    "SELECT name, password_hash, role, created_at, disabled_at FROM console_users ORDER BY name", logger: logger)
                for try await (name, hash, role, createdAt, disabledAt) in rows.decode((String, String, String, Double, Double?).self) {
                    users.append(ConsoleUser(
                        name: name, passwordHash: hash, role: ConsoleRole(rawValue: role) ?? .viewer,
                        createdAt: Date(timeIntervalSince1970: createdAt),
                        disabledAt: disabledAt.map(Date.init(timeIntervalSince1970:))))
                }
                return users
            }
        }
    }

    /// Adds `user` and writes `audit` (when given), in one transaction; an existing name is refused,
    /// also when two replicas create the same user at once.
    public func insertConsoleUser(_ user: ConsoleUser, audit: AuditEntry?) async throws(StoreError) {
        try await run { [logger] in
            try await client.withConnection { connection in
                try await Self.transaction(connection, logger: logger) {
                    var inserted = false
                    // ON CONFLICT rather than a read first: two replicas creating the same user at once
                    // leave one row and one conflict error.
                    for try await _ in try await connection.query(
                        """
                        INSERT INTO console_users (name, password_hash, role, created_at, disabled_at)
                        VALUES (\(user.name), \(user.passwordHash), \(user.role.rawValue), \(user.createdAt.timeIntervalSince1970),
                                \(user.disabledAt?.timeIntervalSince1970))
                        ON CONFLICT (name) DO NOTHING RETURNING name
                        """, logger: logger)
                    {
                        inserted = true
                    }
                    guard inserted else { throw StoreError.conflict("console user \"\(user.name)\" exists already") }
                    if let audit { try await Self.appendAudit(audit, connection, logger: logger) }
                }
            }
        }
    }

    /// Replaces the user's password hash, role and disabled time, ends their sessions when
    /// `endingSessions`, and writes `audit`, in one transaction.
    public func updateConsoleUser(_ user: ConsoleUser, endingSessions: Bool, audit: AuditEntry) async throws(StoreError) {
        try await run { [logger] in
            try await client.withConnection { connection in
                try await Self.transaction(connection, logger: logger) {
                    var updated = false
                    for try await _ in try await connection.query(
                        """
                        UPDATE console_users SET password_hash = \(user.passwordHash), role = \(user.role.rawValue),
                            disabled_at = \(user.disabledAt?.timeIntervalSince1970)
                        WHERE name = \(user.name) RETURNING name
                        """, logger: logger)
                    {
                        updated = true
                    }
                    guard updated else { throw StoreError.notFound("console user \"\(user.name)\"") }
                    if endingSessions {
                        try await connection.query("DELETE FROM console_sessions WHERE user_name = \(user.name)", logger: logger)
                    }
                    try await Self.appendAudit(audit, connection, logger: logger)
                }
            }
        }
    }

    /// Of the newest `limit` audit entries of console accounts, those about users, newest first.
    public func consoleUserAudit(limit: Int) async throws(StoreError) -> [AuditEntry] {
        try await audit(environment: AuditEntry.accountsEnvironment, key: nil, limit: limit).filter { $0.subject == .user }
    }

    /// Appends an audit entry as it is (inside the caller's transaction).
    static func appendAudit(_ entry: AuditEntry, _ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO audit (environment, revision, time, actor, reason, subject, key, before, after)
            VALUES (\(entry.environment), \(entry.revision), \(entry.time.timeIntervalSince1970), \(entry.actor),
                    \(entry.reason), \(entry.subject.rawValue), \(entry.key), \(entry.before?.serialized()),
                    \(entry.after?.serialized()))
            """, logger: logger)
    }

    /// Adds `session`; throws ``StoreError/notFound(_:)`` when its user does not exist.
    public func insertConsoleSession(_ session: ConsoleSession) async throws(StoreError) {
        try await run { [logger] in
            try await client.withConnection { connection in
                var inserted = false
                for try await _ in try await connection.query(
                    """
                    INSERT INTO console_sessions (digest, user_name, created_at, expires_at)
                    SELECT \(session.digest), name, \(session.createdAt.timeIntervalSince1970), \(session.expiresAt.timeIntervalSince1970)
                    FROM console_users WHERE name = \(session.user)
                    RETURNING digest
                    """, logger: logger)
                {
                    inserted = true
                }
                guard inserted else { throw StoreError.notFound("console user \"\(session.user)\"") }
            }
        }
    }

    /// The session whose id hashes (SHA-256, hex) to `digest`; `nil` when there is none.
    public func consoleSession(digest: String) async throws(StoreError) -> ConsoleSession? {
        try await run { [logger] in
            try await client.withConnection { connection in
                var session: ConsoleSession?
                let rows = try await connection.query(
                    "SELECT digest, user_name, created_at, expires_at FROM console_sessions WHERE digest = \(digest)",
                    logger: logger)
                for try await (digest, user, createdAt, expiresAt) in rows.decode((String, String, Double, Double).self) {
                    session = ConsoleSession(
                        digest: digest, user: user, createdAt: Date(timeIntervalSince1970: createdAt),
                        expiresAt: Date(timeIntervalSince1970: expiresAt))
                }
                return session
            }
        }
    }

    /// Deletes the session `digest` and every session that expired before `time`.
    public func deleteConsoleSession(digest: String, expiredBefore time: Date) async throws(StoreError) {
        try await run { [logger] in
            try await client.withConnection { connection in
                _ = try await connection.query(
                    "DELETE FROM console_sessions WHERE digest = \(digest) OR expires_at < \(time.timeIntervalSince1970)",
                    logger: logger)
            }
        }
    }
}
