import FlagServerModel
public import Foundation

/// Where the server keeps flags, environments, segments, history and tokens.
///
/// Every implementation passes the same compatibility suite (`FlagStoreCompatibilityTests`).
/// Writes are transactions: ``commit(_:at:)`` checks ``ChangeSet/basedOn`` against the current
/// revisions inside the transaction, so replicas sharing one database never lose each other's
/// write; the stale writer reloads and retries.
public protocol FlagStore: Sendable {
    /// The stores of other features this backend provides (``StoreCapabilities``; none by default).
    var capabilities: StoreCapabilities { get }

    /// Creates or upgrades the schema to the newest migration. Safe to call on every start.
    func migrate() async throws(StoreError)

    /// The applied schema version.
    func schemaVersion() async throws(StoreError) -> Int

    /// The whole current state (definitions and every environment).
    func load() async throws(StoreError) -> ServerState

    /// Applies `changes` atomically, bumps the revision of every environment they change, and
    /// appends their audit entries.
    ///
    /// - Returns: The new revision of every environment the write changed.
    /// - Throws: ``StoreError/staleRevision(environment:expected:actual:)`` if an environment has
    ///   moved past ``ChangeSet/basedOn``; nothing is written then.
    @discardableResult
    func commit(_ changes: ChangeSet, at time: Date) async throws(StoreError) -> [String: Int]

    /// The revisions of `environment`, newest first.
    func revisions(environment: String, limit: Int) async throws(StoreError) -> [RevisionRecord]

    /// Audit entries of `environment`, newest first, optionally of one flag or segment key.
    func audit(environment: String, key: String?, limit: Int) async throws(StoreError) -> [AuditEntry]

    /// The newest audit entry of each of `keys` in `environment`, as ``audit(environment:key:limit:)``
    /// with a limit of 1 gives it; keys without an entry are absent. The default reads them one
    /// by one; the backends read them in one query.
    func latestAuditEntries(environment: String, keys: [String]) async throws(StoreError) -> [String: AuditEntry]

    /// Every token, revoked ones included.
    func tokens() async throws(StoreError) -> [TokenRecord]

    /// Stores a new token.
    func insertToken(_ token: TokenRecord) async throws(StoreError)

    /// Whether the first start finished: its secrets (the first admin token) were shown.
    func isBootstrapFinished() async throws(StoreError) -> Bool

    /// Records that the first start's secrets were shown (see ``FlagServer/start(store:eventStore:configuration:metrics:consoleAccounts:logger:now:showBootstrap:)``).
    func finishBootstrap(at time: Date) async throws(StoreError)

    /// Closes the store; call it once, after the last use.
    func close() async

    /// Marks a token revoked; revoked tokens stay listed for the record.
    func revokeToken(id: String, at time: Date) async throws(StoreError)
}

extension FlagStore {
    /// One ``audit(environment:key:limit:)`` read a key, for stores without a query of their own.
    public func latestAuditEntries(environment: String, keys: [String]) async throws(StoreError) -> [String: AuditEntry] {
        var entries: [String: AuditEntry] = [:]
        for key in Set(keys) {
            if let entry = try await audit(environment: environment, key: key, limit: 1).first { entries[key] = entry }
        }
        return entries
    }
}
