import FlagEvaluation
import FlagServerModel
public import Foundation
public import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import Synchronization

/// The shared store: PostgreSQL, for several server processes (replicas) over one database.
///
/// Every write is one transaction that first takes a transaction-scoped advisory lock, so writes
/// of all replicas are serialized: revision numbers are unique and ordered, and the
/// ``ChangeSet/basedOn`` check of ``commit(_:at:)`` sees the newest state. A commit announces its
/// revisions with `NOTIFY` inside the transaction (delivered only if it commits); replicas
/// ``listen(onListening:onAnnouncement:)``. Migrations run under a session advisory lock, so
/// replicas starting together apply each one once.
///
/// ```swift
/// let store = PostgresFlagStore(configuration: try PostgresConfiguration(url: "postgres://flags@127.0.0.1/flags"))
/// try await store.migrate()
/// ```
public final class PostgresFlagStore: ReplicatedFlagStore {
    let client: PostgresClient
    private let runner: Task<Void, Never>
    let logger: Logger
    private let now: @Sendable () -> Date
    /// What this store is connected to, without the password.
    public let configuration: PostgresConfiguration
    /// The NOTIFY channel: one per schema, so that servers over different schemas stay apart.
    let channel: String
    /// Advisory lock keys, one per schema: writes (per transaction) and migrations (per session).
    private let writeLock: Int64
    private let migrationLock: Int64

    /// Connects (lazily, through a pool of at most `maximumConnections`) to the database of
    /// `configuration`. While a ``ReplicaSynchronizer`` runs, one more connection, outside the
    /// pool, stays open for `LISTEN`.
    ///
    /// - Parameter now: The clock stamped into announcements (the start of the propagation delay).
    /// - Parameter tokenWriteTimeout: How long a token's creation or revocation waits for a
    ///   connection at most, and runs: past it, it is rolled back and fails
    ///   ``StoreError/unavailable(_:)``, never committed later.
    public init(
        configuration: PostgresConfiguration, maximumConnections: Int = 8,
        logger: Logger = Logger(label: "flag-server.postgres"), now: @escaping @Sendable () -> Date = Date.init,
        tokenWriteTimeout: Duration = .seconds(10)
    ) {
        self.configuration = configuration
        self.tokenWriteTimeout = tokenWriteTimeout
        self.logger = logger
        self.now = now
        let tls: PostgresClient.Configuration.TLS =
            switch configuration.tls {
            case .disable: .disable
            case .prefer: .prefer(.makeClientConfiguration())
            case .require: .require(.makeClientConfiguration())
            }
        var options = PostgresClient.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.username,
            password: configuration.password, database: configuration.database, tls: tls)
        options.options.maximumConnections = max(2, maximumConnections)
        options.options.connectTimeout = .seconds(5)
        if let schema = configuration.schema {
            options.options.additionalStartupParameters = [("search_path", schema)]
        }
        let client = PostgresClient(configuration: options, backgroundLogger: logger)
        self.client = client
        runner = Task { await client.run() }
        let schema = configuration.schema ?? "public"
        channel = "flag_server_revisions_" + schema
        writeLock = Self.lockKey("flag-server write " + schema)
        migrationLock = Self.lockKey("flag-server migrate " + schema)
    }

    /// Closes every connection.
    public func close() async {
        runner.cancel()
        await runner.value
    }

    /// Creates the schema if named, then applies the migrations newer than `schema_migrations` under an
    /// advisory lock, so that replicas starting together apply them once.
    public func migrate() async throws(StoreError) {
        try await run { [logger, migrationLock, configuration] in
            try await client.withConnection { connection in
                // Replicas starting together wait here; the first applies the migrations, the
                // others then find nothing left to do. A session lock ends with the connection.
                try await connection.query("SELECT pg_advisory_lock(\(migrationLock))", logger: logger)
                do {
                    if let schema = configuration.schema {
                        try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(schema)"), logger: logger)
                    }
                    try await connection.query(
                        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)",
                        logger: logger)
                    let current = try await Self.version(connection, logger: logger)
                    for migration in PostgresMigrations.all where migration.version > current {
                        try await Self.transaction(connection, logger: logger) {
                            for statement in migration.statements {
                                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                            }
                            try await connection.query(
                                "INSERT INTO schema_migrations (version, applied_at) VALUES (\(migration.version), \(Date().timeIntervalSince1970))",
                                logger: logger)
                        }
                        logger.info("applied migration", metadata: ["version": "\(migration.version)"])
                    }
                } catch {
                    _ = try? await connection.query("SELECT pg_advisory_unlock(\(migrationLock))", logger: logger)
                    throw error
                }
                try await connection.query("SELECT pg_advisory_unlock(\(migrationLock))", logger: logger)
            }
        }
    }

    /// The newest migration applied to the database (0 for a new one).
    public func schemaVersion() async throws(StoreError) -> Int {
        try await run { [logger] in
            try await client.withConnection { connection in try await Self.version(connection, logger: logger) }
        }
    }

    /// Reads every environment's flags, segments and revision.
    public func load() async throws(StoreError) -> ServerState {
        try await run { [logger] in
            try await client.withConnection { connection in
                try await Self.transaction(connection, logger: logger, readOnly: true) {
                    try await Self.readState(connection, logger: logger)
                }
            }
        }
    }

    /// Checks the revisions and writes `changes` in one transaction under the write advisory lock, every
    /// statement bounded by the change set's deadline, and announces the new revisions to every replica
    /// (`NOTIFY`) as part of the same commit.
    @discardableResult
    public func commit(_ changes: ChangeSet, at time: Date) async throws(StoreError) -> [String: Int] {
        try await run { [logger, writeLock, channel, now] in
            try await withConnection(before: changes.deadline) { connection in
                try await Self.transaction(connection, logger: logger) {
                    if let deadline = changes.deadline {
                        // Every statement of the write, waiting for the write lock included, ends by the deadline.
                        let milliseconds = max(1, Int(((deadline - .now) / .milliseconds(1)).rounded(.up)))
                        try await connection.query(
                            PostgresQuery(unsafeSQL: "SET LOCAL statement_timeout = \(milliseconds)"), logger: logger)
                    }
                    try await connection.query("SELECT pg_advisory_xact_lock(\(writeLock))", logger: logger)
                    // Only the rows the changes can touch: a write costs what it changes.
                    let state = try await Self.readState(connection, logger: logger, footprint: StateFootprint(changes.changes))
                    for (environment, expected) in changes.basedOn.sorted(by: { $0.key < $1.key }) {
                        let actual = state.environments[environment]?.revision ?? 0
                        guard actual == expected else {
                            throw StoreError.staleRevision(environment: environment, expected: expected, actual: actual)
                        }
                    }
                    let transition = try state.transition(applying: changes.changes)
                    let revisions = try await Self.write(
                        connection, logger: logger, from: state, transition, changes: changes, time: time)
                    if !revisions.isEmpty {
                        let payload = RevisionAnnouncement(revisions: revisions, committedAt: now().timeIntervalSince1970).payload
                        try await connection.query("SELECT pg_notify(\(channel), \(payload))", logger: logger)
                    }
                    // The last step before COMMIT: a write whose caller stopped waiting rolls back.
                    try changes.checkDeadline()
                    return revisions
                }
            }
        }
    }

    /// The newest `limit` revisions of `environment`, newest first.
    public func revisions(environment: String, limit: Int) async throws(StoreError) -> [RevisionRecord] {
        try await run { [logger] in
            try await client.withConnection { connection in
                var records: [RevisionRecord] = []
                let rows = try await connection.query(
                    """
                    SELECT revision, time, actor, reason FROM revisions WHERE environment = \(environment)
                    ORDER BY revision DESC LIMIT \(max(0, limit))
                    """, logger: logger)
                for try await (revision, time, actor, reason) in rows.decode((Int, Double, String, String?).self) {
                    records.append(RevisionRecord(
                        environment: environment, revision: revision, time: Date(timeIntervalSince1970: time), actor: actor,
                        reason: reason))
                }
                return records
            }
        }
    }

    /// Whether the bootstrap row is written.
    public func isBootstrapFinished() async throws(StoreError) -> Bool {
        try await run { [logger] in
            try await client.withConnection { connection in
                var finished = false
                for try await _ in try await connection.query("SELECT id FROM bootstrap WHERE id = 1", logger: logger) {
                    finished = true
                }
                return finished
            }
        }
    }

    /// Writes the bootstrap row once; a second call leaves the first time.
    public func finishBootstrap(at time: Date) async throws(StoreError) {
        try await run { [logger] in
            try await client.withConnection { connection in
                _ = try await connection.query(
                    "INSERT INTO bootstrap (id, finished_at) VALUES (1, \(time.timeIntervalSince1970)) ON CONFLICT (id) DO NOTHING",
                    logger: logger)
            }
        }
    }

    /// Every token, revoked ones too, oldest first.
    public func tokens() async throws(StoreError) -> [TokenRecord] {
        try await run { [logger] in
            try await client.withConnection { connection in
                try await Self.readTokens(connection, logger: logger)
            }
        }
    }

    /// Adds `token` and announces a token change to every replica, in one transaction bounded by the
    /// token write timeout.
    public func insertToken(_ token: TokenRecord) async throws(StoreError) {
        let deadline = ContinuousClock.now + tokenWriteTimeout
        try await run { [logger, channel, now] in
            try await withConnection(before: deadline) { [channel, now] connection in
                try await Self.transaction(connection, logger: logger) {
                    try await connection.query(
                        """
                        INSERT INTO tokens (id, name, environment, role, digest, created_at)
                        VALUES (\(token.id), \(token.name), \(token.environment), \(token.role.rawValue), \(token.digest),
                                \(token.createdAt.timeIntervalSince1970))
                        """, logger: logger)
                    let payload = RevisionAnnouncement(revisions: [:], tokens: true, committedAt: now().timeIntervalSince1970).payload
                    try await connection.query("SELECT pg_notify(\(channel), \(payload))", logger: logger)
                    // The last step before COMMIT: a write whose caller stopped waiting rolls back.
                    try StoreError.checkDeadline(deadline)
                }
            }
        }
    }

    /// Marks the token revoked at `time` (an already revoked one keeps its first time) and announces a
    /// token change to every replica, in one transaction bounded by the token write timeout.
    public func revokeToken(id: String, at time: Date) async throws(StoreError) {
        let deadline = ContinuousClock.now + tokenWriteTimeout
        try await run { [logger, channel, now] in
            try await withConnection(before: deadline) { [channel, now] connection in
                try await Self.transaction(connection, logger: logger) {
                    var found = false
                    for try await _ in try await connection.query("SELECT id FROM tokens WHERE id = \(id)", logger: logger) {
                        found = true
                    }
                    guard found else { throw StoreError.notFound("token \"\(id)\"") }
                    try await connection.query(
                        "UPDATE tokens SET revoked_at = \(time.timeIntervalSince1970) WHERE id = \(id) AND revoked_at IS NULL",
                        logger: logger)
                    let payload = RevisionAnnouncement(revisions: [:], tokens: true, committedAt: now().timeIntervalSince1970).payload
                    try await connection.query("SELECT pg_notify(\(channel), \(payload))", logger: logger)
                    // The last step before COMMIT: a write whose caller stopped waiting rolls back.
                    try StoreError.checkDeadline(deadline)
                }
            }
        }
    }

    // MARK: - Replication

    /// Every environment's revision and the token generation, in one read.
    public func currentVersion() async throws(StoreError) -> StoreVersion {
        try await run { [logger] in
            try await client.withConnection { connection in
                var revisions: [String: Int] = [:]
                for try await (key, revision) in try await connection.query(
                    "SELECT key, revision FROM environments", logger: logger
                ).decode((String, Int).self) {
                    revisions[key] = revision
                }
                var generation = 0
                for try await count in try await connection.query(
                    "SELECT count(*) + count(revoked_at) FROM tokens", logger: logger
                ).decode(Int.self) {
                    generation = count
                }
                return StoreVersion(revisions: revisions, tokenGeneration: generation)
            }
        }
    }

    /// Listens on the announcement channel on a connection of its own (see ``ReplicatedFlagStore``).
    public func listen(
        onListening: @Sendable () async -> Void,
        onAnnouncement: @Sendable (RevisionAnnouncement?) async -> Void
    ) async throws(StoreError) {
        try await run { [channel, logger, self] in
            // A connection of its own, outside the pool: when it goes silent it is closed and
            // dropped, never handed back to the pool (it might hang whatever ran on it next).
            let connection = try await PostgresConnection.connect(
                configuration: try listeningConfiguration(), id: Self.listeningConnectionIDs.add(1, ordering: .relaxed).newValue,
                logger: logger)
            do {
                // Cancelled (a heartbeat did not come back, or shutdown): close at once, without
                // waiting for a backend that may never answer.
                try await withTaskCancellationHandler {
                    try await connection.listen(on: channel) { notifications in
                        await onListening()
                        for try await notification in notifications {
                            await onAnnouncement(RevisionAnnouncement(payload: notification.payload))
                        }
                    }
                } onCancel: {
                    let closed: EventLoopFuture<Void> = connection.close()
                    _ = closed
                }
            } catch {
                // Closing ends at once (it does not wait for the backend); a connection must be
                // closed before it is released.
                try? await connection.close()
                throw error
            }
            try? await connection.close()
            throw StoreError.database("the notification connection ended")
        }
    }

    /// Numbers the listening connections (for postgres-nio's logs).
    private static let listeningConnectionIDs = Atomic<Int>(0)

    /// The configuration of a connection outside the pool (listening, the rollout lock): the
    /// pool's, one connection.
    func listeningConfiguration() throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS =
            switch configuration.tls {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        var options = PostgresConnection.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.username,
            password: configuration.password, database: configuration.database, tls: tls)
        options.options.connectTimeout = .seconds(5)
        if let schema = configuration.schema {
            options.options.additionalStartupParameters = [("search_path", schema)]
        }
        return options
    }

    /// Sends `announcement` on the announcement channel (`pg_notify`), outside any write.
    public func announce(_ announcement: RevisionAnnouncement) async throws(StoreError) {
        try await run { [channel, logger] in
            try await client.withConnection { connection in
                // Read to the end, so the statement (and its implicit transaction) has completed
                // when this returns.
                let payload = announcement.payload
                for try await _ in try await connection.query("SELECT pg_notify(\(channel), \(payload))", logger: logger) {}
            }
        }
    }

    // MARK: - Internals

    /// A stable 64-bit key for `pg_advisory_lock` (FNV-1a of `name`).
    static func lockKey(_ name: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }

    /// Runs `body`, mapping every failure that is not already a ``StoreError`` to one.
    ///
    /// A database that cannot be reached, closed the connection, or cancelled a statement at the
    /// write's deadline is ``StoreError/unavailable(_:)`` (a 503 for the client), its details
    /// (host, port, driver text) logged and not passed on; other database failures are
    /// ``StoreError/database(_:)``.
    func run<T: Sendable>(_ body: () async throws -> T) async throws(StoreError) -> T {
        do {
            return try await body()
        } catch let error as StoreError {
            throw error
        } catch let error as PSQLError {
            let detail = "\(configuration.host):\(configuration.port): \(error.serverInfo?[.message] ?? "\(error.code)")"
            if Self.isUnavailable(error) {
                logger.warning("database unavailable", metadata: ["error": "\(detail)"])
                throw .unavailable(Self.unavailableMessage)
            }
            throw .database(detail)
        } catch {
            logger.warning(
                "database unavailable", metadata: ["error": "\(configuration.host):\(configuration.port): \(error)"])
            throw .unavailable(Self.unavailableMessage)
        }
    }

    /// How long a token's creation or revocation waits for a connection at most, and runs: past
    /// it, it is rolled back and fails ``StoreError/unavailable(_:)``, never committed later.
    let tokenWriteTimeout: Duration

    static let unavailableMessage = "the database is unavailable or did not answer in time"

    /// Whether `error` says the database could not be reached or gave up on a statement (as opposed
    /// to refusing what was sent).
    static func isUnavailable(_ error: PSQLError) -> Bool {
        guard let state = error.serverInfo?[.sqlState] else {
            // No answer from the server: the connection failed, closed or was cancelled.
            return error.code != .server
        }
        // 08: connection exception; 53: insufficient resources; 57: operator intervention
        // (57014: the statement timeout of a write's deadline); 55P03: lock not available.
        return state.hasPrefix("08") || state.hasPrefix("53") || state.hasPrefix("57") || state == "55P03"
    }

    /// Runs `body` on a pooled connection, waiting for one at most until `deadline`.
    ///
    /// The pool waits for a connection as long as the database is unreachable; a write with a
    /// deadline stops waiting then (its lease request is cancelled), so it cannot be sent later.
    func withConnection<T: Sendable>(
        before deadline: ContinuousClock.Instant?, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        guard let deadline else { return try await client.withConnection(body) }
        let leased = LeaseFlag()
        return try await withThrowingTaskGroup(of: T?.self) { [client] group in
            group.addTask {
                try await client.withConnection { connection in
                    leased.value.store(true, ordering: .sequentiallyConsistent)
                    return try await body(connection)
                }
            }
            group.addTask {
                try await Task.sleep(until: deadline, clock: .continuous)
                if !leased.value.load(ordering: .sequentiallyConsistent) {
                    throw StoreError.unavailable("no database connection within the write's time limit")
                }
                return nil
            }
            while let result = try await group.next() {
                if let value = result {
                    group.cancelAll()
                    return value
                }
            }
            throw StoreError.unavailable(Self.unavailableMessage)
        }
    }

    static func transaction<T: Sendable>(
        _ connection: PostgresConnection, logger: Logger, readOnly: Bool = false, _ body: () async throws -> T
    ) async throws -> T {
        try await connection.query(readOnly ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN", logger: logger)
        do {
            let result = try await body()
            try await connection.query("COMMIT", logger: logger)
            return result
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    private static func version(_ connection: PostgresConnection, logger: Logger) async throws -> Int {
        var exists = false
        for try await value in try await connection.query(
            "SELECT to_regclass('schema_migrations') IS NOT NULL", logger: logger
        ).decode(Bool.self) {
            exists = value
        }
        guard exists else { return 0 }
        var version = 0
        for try await value in try await connection.query(
            "SELECT COALESCE(MAX(version), 0) FROM schema_migrations", logger: logger
        ).decode(Int.self) {
            version = value
        }
        return version
    }

    private static func readTokens(_ connection: PostgresConnection, logger: Logger) async throws -> [TokenRecord] {
        var tokens: [TokenRecord] = []
        let rows = try await connection.query(
            "SELECT id, name, environment, role, digest, created_at, revoked_at FROM tokens ORDER BY created_at, id",
            logger: logger)
        for try await (id, name, environment, role, digest, createdAt, revokedAt) in rows.decode(
            (String, String, String, String, String, Double, Double?).self)
        {
            tokens.append(TokenRecord(
                id: id, name: name, environment: environment, role: TokenRole(rawValue: role) ?? .client, digest: digest,
                createdAt: Date(timeIntervalSince1970: createdAt), revokedAt: revokedAt.map(Date.init(timeIntervalSince1970:))))
        }
        return tokens
    }

    /// The settings of `flags` in `environments`, looked up by the primary key (environment,
    /// flag): naming only the flags scanned every environment's settings, so that a one-flag
    /// write read the whole table.
    static func settingsQuery(environments: [String], flags: [String]) -> PostgresQuery {
        "SELECT environment, flag, document FROM flag_settings WHERE environment = ANY(\(environments)) AND flag = ANY(\(flags))"
    }

    /// The whole state, or (with a `footprint`) every environment's key, revision and position
    /// and only the rows the footprint names.
    private static func readState(
        _ connection: PostgresConnection, logger: Logger, footprint: StateFootprint? = nil
    ) async throws -> ServerState {
        var state = ServerState()
        for try await (key, revision, position) in try await connection.query(
            "SELECT key, revision, position FROM environments", logger: logger
        ).decode((String, Int, Int).self) {
            state.environments[key] = EnvironmentState(key: key, revision: revision, position: position)
        }
        let flagKeys = footprint.map { Array($0.flags) } ?? []
        let flagsQuery: PostgresQuery =
            footprint == nil || footprint?.allFlags == true
            ? "SELECT key, document FROM flags" : "SELECT key, document FROM flags WHERE key = ANY(\(flagKeys))"
        let settingsQuery: PostgresQuery =
            footprint == nil
            ? "SELECT environment, flag, document FROM flag_settings"
            : Self.settingsQuery(environments: Array(state.environments.keys), flags: flagKeys)
        var segmentsQueries: [PostgresQuery] = []
        if let footprint {
            for (environment, keys) in footprint.segments.sorted(by: { $0.key < $1.key }) {
                let keys = Array(keys)
                segmentsQueries.append(
                    "SELECT environment, key, rule FROM segments WHERE environment = \(environment) AND key = ANY(\(keys))")
            }
        } else {
            segmentsQueries = ["SELECT environment, key, rule FROM segments"]
        }
        let decoder = JSONDecoder()
        for try await (key, document) in try await connection.query(flagsQuery, logger: logger).decode((String, String).self) {
            do {
                let flag = try decoder.decode(FlagRecord.self, from: Data(document.utf8))
                state.flags[flag.key] = flag
            } catch {
                throw StoreError.database("flag \"\(key)\" is stored unreadably: \(error)")
            }
        }
        for try await (environment, flag, document) in try await connection.query(settingsQuery, logger: logger).decode(
            (String, String, String).self)
        {
            do {
                state.environments[environment]?.settings[flag] = try decoder.decode(FlagSettings.self, from: Data(document.utf8))
            } catch {
                throw StoreError.database("settings of flag \"\(flag)\" in \"\(environment)\" are stored unreadably: \(error)")
            }
        }
        for segmentsQuery in segmentsQueries {
            for try await (environment, key, rule) in try await connection.query(segmentsQuery, logger: logger).decode(
                (String, String, String).self)
            {
                do {
                    state.environments[environment]?.segments[key] = try JSONValue(parsing: rule)
                } catch {
                    throw StoreError.database("segment \"\(key)\" in \"\(environment)\" is stored unreadably: \(error)")
                }
            }
        }
        return state
    }
}

/// Whether a write's connection was leased, shared by the lease and its deadline.
private final class LeaseFlag: Sendable {
    let value = Atomic<Bool>(false)
}
