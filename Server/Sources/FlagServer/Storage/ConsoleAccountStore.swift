public import Foundation

/// Where the web console keeps its users and sessions.
///
/// Sessions live in the store (not in a replica's memory), so every replica sharing the database
/// accepts a session and a sign-out on one replica ends it on all. Every implementation passes
/// `ConsoleAccountStoreCompatibilityTests`. The schema is created by ``FlagStore/migrate()``.
public protocol ConsoleAccountStore: Sendable {
    /// Every console user, by name.
    func consoleUsers() async throws(StoreError) -> [ConsoleUser]

    /// Stores a new user.
    ///
    /// - Throws: ``StoreError/conflict(_:)`` if a user of that name exists.
    func insertConsoleUser(_ user: ConsoleUser) async throws(StoreError)

    /// Stores a new session.
    func insertConsoleSession(_ session: ConsoleSession) async throws(StoreError)

    /// The session whose id has the SHA-256 `digest`, if it exists (expired ones included: the
    /// caller checks ``ConsoleSession/expiresAt``).
    func consoleSession(digest: String) async throws(StoreError) -> ConsoleSession?

    /// Deletes a session (sign-out) and every session that expired before `time`.
    func deleteConsoleSession(digest: String, expiredBefore time: Date) async throws(StoreError)
}
