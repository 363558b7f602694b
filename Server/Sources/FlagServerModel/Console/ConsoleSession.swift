public import Foundation

/// A signed-in console session as stored: the SHA-256 digest of the session id (the cookie's
/// value), never the id itself, so a leaked database does not leak sessions.
public struct ConsoleSession: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The hex SHA-256 digest of the session id.
    public var digest: String
    /// The ``ConsoleUser/name`` of the user.
    public var user: String
    /// When the user signed in.
    public var createdAt: Date
    /// When the session ends; it is refused from then on.
    public var expiresAt: Date

    /// A session as stored.
    public init(digest: String, user: String, createdAt: Date, expiresAt: Date) {
        self.digest = digest
        self.user = user
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// The session with its digest printed as `<REDACTED>`.
    public var description: String {
        "ConsoleSession(user: \(user), expiresAt: \(expiresAt), digest: <REDACTED>)"
    }
}
