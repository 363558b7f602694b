public import Foundation

/// What a token may do, in one environment.
public enum TokenRole: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// Evaluate only: OFREP, `app_config`, the event stream.
    case client
    /// Also read the flagd flag-definition file.
    case server
    /// Also write through the admin API.
    case admin

    var rank: Int {
        switch self {
        case .client: 0
        case .server: 1
        case .admin: 2
        }
    }

    /// Orders roles by what they may do: client, then server, then admin.
    public static func < (lhs: TokenRole, rhs: TokenRole) -> Bool { lhs.rank < rhs.rank }
}

/// A stored token: never the token itself, only its SHA-256 digest.
public struct TokenRecord: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The public part of the token, which also appears in the token text (`ffs_<id>_<secret>`).
    public var id: String
    /// A name for people (`ios-app`, `ci`), shown as the actor in the audit.
    public var name: String
    /// The environment the token acts in; `*` (``TokenIssuer/allEnvironments``) for every environment.
    public var environment: String
    /// What the token may do there.
    public var role: TokenRole
    /// The SHA-256 digest of the whole token text, hex-encoded.
    public var digest: String
    /// When the token was issued.
    public var createdAt: Date
    /// When the token was revoked; `nil` while it is valid.
    public var revokedAt: Date?

    /// A record as stored; `digest` is the hex SHA-256 of the whole token text.
    public init(id: String, name: String, environment: String, role: TokenRole, digest: String, createdAt: Date, revokedAt: Date? = nil) {
        self.id = id
        self.name = name
        self.environment = environment
        self.role = role
        self.digest = digest
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    /// The record with its digest printed as `<REDACTED>`.
    public var description: String {
        "TokenRecord(id: \(id), name: \(name), environment: \(environment), role: \(role.rawValue), digest: <REDACTED>)"
    }
}
