import FlagServerModel
public import Foundation

/// Where the web console keeps its users and sessions.
///
/// Sessions live in the store (not in a replica's memory), so every replica sharing the database
/// accepts a session and a sign-out on one replica ends it on all. Every implementation passes
/// `ConsoleAccountStoreCompatibilityTests`. The schema is created by ``FlagStore/migrate()``.
public protocol ConsoleAccountStore: Sendable {
    /// Every console user, by name.
    func consoleUsers() async throws(StoreError) -> [ConsoleUser]

    /// Stores a new user and, in the same transaction, its audit entry.
    ///
    /// - Throws: ``StoreError/conflict(_:)`` if a user of that name exists.
    func insertConsoleUser(_ user: ConsoleUser, audit: AuditEntry?) async throws(StoreError)

    /// Replaces a user's password hash, role and disabled time and appends `audit`, in one
    /// transaction; with `endingSessions`, also deletes every session of the user (a disabled
    /// user, a reset password).
    ///
    /// - Throws: ``StoreError/notFound(_:)`` if there is no user of that name.
    func updateConsoleUser(_ user: ConsoleUser, endingSessions: Bool, audit: AuditEntry) async throws(StoreError)

    /// The audit entries of console users (subject ``AuditEntry/Subject/user``), newest first.
    func consoleUserAudit(limit: Int) async throws(StoreError) -> [AuditEntry]

    /// Stores a new session.
    func insertConsoleSession(_ session: ConsoleSession) async throws(StoreError)

    /// The session whose id has the SHA-256 `digest`, if it exists (expired ones included: the
    /// caller checks ``ConsoleSession/expiresAt``).
    func consoleSession(digest: String) async throws(StoreError) -> ConsoleSession?

    /// Deletes a session (sign-out) and every session that expired before `time`.
    func deleteConsoleSession(digest: String, expiredBefore time: Date) async throws(StoreError)
}

extension ConsoleAccountStore {
    /// Stores a new user without an audit entry (tests, and stores filled by hand).
    public func insertConsoleUser(_ user: ConsoleUser) async throws(StoreError) {
        try await insertConsoleUser(user, audit: nil)
    }
}
