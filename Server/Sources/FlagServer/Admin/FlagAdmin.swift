public import Foundation
import Logging
import Prometheus

/// The one write path: every change is validated as the whole state it produces, committed as a
/// revision with its audit, then compiled, published and announced.
public actor FlagAdmin {
    nonisolated public let store: any FlagStore
    public let publisher: StatePublisher
    public let events: EventHub
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let writes: Counter?
    /// Writes one at a time: the actor is reentrant while a write awaits the store.
    private let writing = AsyncLock()
    /// The state as last loaded from the store.
    public private(set) var state = ServerState()

    /// How long a write may take, waiting for the write lock and the database included, before it
    /// fails with ``AdminError/unavailable(_:)``; the store rolls back a write past it, so a write
    /// whose caller was told it failed is never committed later.
    public nonisolated let writeTimeout: Duration

    public init(
        store: any FlagStore, publisher: StatePublisher, events: EventHub, metrics: PrometheusCollectorRegistry? = nil,
        logger: Logger = Logger(label: "flag-server.admin"), now: @escaping @Sendable () -> Date = Date.init,
        writeTimeout: Duration = .seconds(10)
    ) {
        self.writeTimeout = writeTimeout
        self.store = store
        self.publisher = publisher
        self.events = events
        self.logger = logger
        self.now = now
        writes = metrics?.makeCounter(descriptor: .named("flag_server_revisions_total", help: "Committed writes."))
    }

    /// Reloads everything from the store, publishes it, and announces environments whose
    /// revision changed.
    /// Call it from a write holding the write lock, or at start.
    public func reload() async throws(StoreError) {
        state = try await store.load()
        // When each new revision was committed (one short read per environment that changed).
        let served = publisher.current.environments
        var modified: [String: Date] = [:]
        for (key, environment) in state.environments where served[key]?.revision != environment.revision {
            modified[key] = try await store.revisions(environment: key, limit: 1).first?.time
        }
        let changed = publisher.publish(state, tokens: try await store.tokens(), modified: modified)
        FreedMemory.release()
        for environment in changed {
            events.publish(environment: environment, revision: state.environments[environment]?.revision ?? 0)
        }
    }

    /// Reloads from the store between writes: a replica catching up with another replica's commit.
    public func refresh() async throws(StoreError) {
        await writing.lock()
        defer { writing.unlock() }
        try await reload()
    }

    /// Computes changes from the current state with `makeChanges`, validates and commits them.
    ///
    /// If another writer (a replica) committed in between, the state is reloaded and
    /// `makeChanges` runs again on it, as often as ``writeTimeout`` allows: concurrent writers
    /// of one environment wait for each other instead of failing.
    ///
    /// - Parameters:
    ///   - revert: Set when the write is a revert, so that the audit records it as one.
    ///   - timeout: The write's time limit, if not ``writeTimeout``.
    /// - Returns: The new revisions of the environments that changed (empty if nothing changed).
    /// - Throws: ``AdminError`` for a refused write; ``AdminError/unavailable(_:)`` when the
    ///   database is unreachable or the write did not commit within ``writeTimeout``. The stored
    ///   state is unchanged then.
    @discardableResult
    public func write(
        actor: String, reason: String?, revert: ChangeSet.Revert? = nil, timeout: Duration? = nil,
        _ makeChanges: @Sendable (ServerState) throws(AdminError) -> [StateChange]
    ) async throws(AdminError) -> [String: Int] {
        let writeTimeout = timeout ?? self.writeTimeout
        let deadline = ContinuousClock.now + writeTimeout
        guard await writing.lock(before: deadline) else {
            throw .unavailable("the write waited \(writeTimeout) for earlier writes and did not start")
        }
        defer { writing.unlock() }
        var attempts = 0
        while true {
            attempts += 1
            let changes = try makeChanges(state)
            let next: ServerState
            let drafts: [AuditDraft]
            do {
                (next, drafts) = try state.applying(changes)
            } catch {
                throw AdminError(store: error)
            }
            guard !drafts.isEmpty else { return [:] }
            let problems = StateValidator.problems(in: next)
            guard problems.isEmpty else { throw .invalid(problems) }
            do {
                let revisions = try await store.commit(
                    ChangeSet(
                        actor: actor, reason: reason, changes: changes, basedOn: state.revisions, revert: revert,
                        deadline: deadline),
                    at: now())
                writes?.increment()
                logger.info("committed", metadata: ["actor": "\(actor)", "revisions": "\(revisions)"])
                // Committed: a failing reload (the database went away just now) must not turn the
                // answer into a failure; the replica synchronizer catches up later.
                do { try await reload() } catch { logger.warning("reload after a commit failed", metadata: ["error": "\(error)"]) }
                return revisions
            } catch {
                guard case .staleRevision = error else { throw AdminError(store: error) }
                logger.notice("write based on a stale revision; reloading and retrying", metadata: ["attempt": "\(attempts)"])
                do { try await reload() } catch { throw AdminError(store: error) }
                guard ContinuousClock.now < deadline else {
                    throw .unavailable(
                        "other writers kept changing the state for \(writeTimeout) (\(attempts) attempts); nothing was written")
                }
            }
        }
    }

    /// Stores a new token and publishes it. Returns the token text, shown this once.
    ///
    /// - Throws: ``AdminError/badRequest(_:)`` for a client or server token for every
    ///   environment (`*`), which delivery would refuse; ``AdminError/notFound(_:)`` for an
    ///   unknown environment.
    public func createToken(name: String, environment: String, role: TokenRole) async throws(AdminError) -> (String, TokenRecord) {
        try Self.checkToken(environment: environment, role: role, in: state)
        let (token, record) = TokenIssuer.issue(name: name, environment: environment, role: role, at: now())
        guard await writing.lock(before: .now + writeTimeout) else {
            throw .unavailable("the token write waited \(writeTimeout) for earlier writes and did not start")
        }
        defer { writing.unlock() }
        do {
            try await store.insertToken(record)
            try await reload()
        } catch {
            throw AdminError(store: error)
        }
        return (token, record)
    }

    /// Whether a token of `role` for `environment` can be used: delivery (client and server
    /// tokens) reads one environment, so only admin tokens may be for every environment (`*`).
    public static func checkToken(environment: String, role: TokenRole, in state: ServerState) throws(AdminError) {
        if environment == TokenIssuer.allEnvironments {
            guard role == .admin else {
                throw .badRequest(
                    "environment: a \(role.rawValue) token must be for one environment (delivery refuses \"*\"); only admin tokens may be for every environment")
            }
        } else if state.environments[environment] == nil {
            throw .notFound("environment \"\(environment)\" does not exist")
        }
    }

    /// Revokes a token; it stops working at once.
    public func revokeToken(id: String) async throws(AdminError) {
        guard await writing.lock(before: .now + writeTimeout) else {
            throw .unavailable("the token write waited \(writeTimeout) for earlier writes and did not start")
        }
        defer { writing.unlock() }
        do {
            try await store.revokeToken(id: id, at: now())
            try await reload()
        } catch {
            throw AdminError(store: error)
        }
    }
}
