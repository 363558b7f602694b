public import Foundation

/// A person who signs in to the web console: a name, a bcrypt password hash and a role.
public struct ConsoleUser: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The sign-in name, also the actor recorded in the audit for the user's changes.
    public var name: String
    /// The bcrypt hash of the password (never the password).
    public var passwordHash: String
    public var role: ConsoleRole
    public var createdAt: Date

    public init(name: String, passwordHash: String, role: ConsoleRole, createdAt: Date) {
        self.name = name
        self.passwordHash = passwordHash
        self.role = role
        self.createdAt = createdAt
    }

    public var description: String {
        "ConsoleUser(name: \(name), role: \(role.rawValue), passwordHash: <REDACTED>)"
    }
}
