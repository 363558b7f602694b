public import Foundation
import PostgresNIO

extension PostgresFlagStore: ConsoleAccountStore {
    public func consoleUsers() async throws(StoreError) -> [ConsoleUser] {
        try await run { [logger] in
            try await client.withConnection { connection in
                var users: [ConsoleUser] = []
                let rows = try await connection.query(
                    "SELECT name, password_hash, role, created_at FROM console_users ORDER BY name", logger: logger)
                for try await (name, hash, role, createdAt) in rows.decode((String, String, String, Double).self) {
                    users.append(ConsoleUser(
                        name: name, passwordHash: hash, role: ConsoleRole(rawValue: role) ?? .viewer,
                        createdAt: Date(timeIntervalSince1970: createdAt)))
                }
                return users
            }
        }
    }

    public func insertConsoleUser(_ user: ConsoleUser) async throws(StoreError) {
        try await run { [logger] in
            try await client.withConnection { connection in
                var inserted = false
                // ON CONFLICT rather than a read first: two replicas creating the same user at once
                // leave one row and one conflict error.
                for try await _ in try await connection.query(
                    """
                    INSERT INTO console_users (name, password_hash, role, created_at)
                    VALUES (\(user.name), \(user.passwordHash), \(user.role.rawValue), \(user.createdAt.timeIntervalSince1970))
                    ON CONFLICT (name) DO NOTHING RETURNING name
                    """, logger: logger)
                {
                    inserted = true
                }
                guard inserted else { throw StoreError.conflict("console user \"\(user.name)\" exists already") }
            }
        }
    }

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

    public func deleteConsoleSession(digest: String, expiredBefore time: Date) async throws(StoreError) {
        try await run { [logger] in
            try await client.withConnection { connection in
                try await connection.query(
                    "DELETE FROM console_sessions WHERE digest = \(digest) OR expires_at < \(time.timeIntervalSince1970)",
                    logger: logger)
            }
        }
    }
}
