public import Foundation

/// A person who signs in to the web console: a name, a bcrypt password hash and a role.
public struct ConsoleUser: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The sign-in name, also the actor recorded in the audit for the user's changes.
    public var name: String
    /// The bcrypt hash of the password (never the password).
    public var passwordHash: String
    /// What the user may do.
    public var role: ConsoleRole
    /// When the user was created.
    public var createdAt: Date
    /// When an admin disabled the user (`nil`: active). A disabled user cannot sign in and has
    /// no session; the user stays listed, as the actor of past changes.
    public var disabledAt: Date?

    /// A user as stored; `passwordHash` is a bcrypt hash.
    public init(name: String, passwordHash: String, role: ConsoleRole, createdAt: Date, disabledAt: Date? = nil) {
        self.name = name
        self.passwordHash = passwordHash
        self.role = role
        self.createdAt = createdAt
        self.disabledAt = disabledAt
    }

    /// The user with the password hash printed as `<REDACTED>`.
    public var description: String {
        "ConsoleUser(name: \(name), role: \(role.rawValue), disabled: \(disabledAt != nil), passwordHash: <REDACTED>)"
    }
}
