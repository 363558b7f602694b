import FlagEvaluation
import FlagServerModel
public import Foundation
import Logging
import SQLiteNIO

/// The embedded store: one SQLite file, no setup.
///
/// The database runs in WAL mode with `synchronous=FULL`, so a committed revision survives a
/// crash of the process or the machine and the file always opens. Writes take SQLite's write lock
/// first (`BEGIN IMMEDIATE`), so several processes sharing the file serialize their writes and
/// the revision check of ``commit(_:at:)`` holds.
///
/// ```swift
/// let store = try await SQLiteFlagStore(path: "data/flags.sqlite")
/// try await store.migrate()
/// ```
public actor SQLiteFlagStore: FlagStore {
    let connection: SQLiteConnection
    /// One operation at a time on the connection: the actor is reentrant at every `await`.
    private let serial = AsyncLock()

    /// Opens (creating if needed) the database at `path`; `nil` opens a private in-memory database.
    public init(path: String?, logger: Logger = Logger(label: "flag-server.sqlite")) async throws(StoreError) {
        do {
            connection = try await SQLiteConnection.open(storage: path.map { .file(path: $0) } ?? .memory, logger: logger)
            if path != nil {
                _ = try await connection.query("PRAGMA journal_mode=WAL")
            }
            _ = try await connection.query("PRAGMA synchronous=FULL")
            _ = try await connection.query("PRAGMA busy_timeout=5000")
            _ = try await connection.query("PRAGMA foreign_keys=ON")
        } catch {
            throw .database("cannot open \(path ?? ":memory:"): \(error)")
        }
    }

    /// Closes the database.
    public func close() async {
        try? await connection.close()
    }

    /// Applies the migrations newer than the file's `schema_migrations`, each in a transaction of its own.
    public func migrate() async throws(StoreError) {
        try await run {
            _ = try await connection.query(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY NOT NULL, applied_at REAL NOT NULL)")
            let current = try await currentVersion()
            for migration in SQLiteMigrations.all where migration.version > current {
                try await transaction {
                    for statement in migration.statements {
                        _ = try await connection.query(statement)
                    }
                    _ = try await connection.query(
                        "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                        [.integer(migration.version), .float(Date().timeIntervalSince1970)])
                }
            }
        }
    }

    /// The newest migration applied to the file (0 for a new file).
    public func schemaVersion() async throws(StoreError) -> Int {
        try await run { try await currentVersion() }
    }

    /// Reads every environment's flags, segments and revision from the file.
    public func load() async throws(StoreError) -> ServerState {
        try await run { try await readState() }
    }

    /// Checks the revisions and writes `changes` in one `BEGIN IMMEDIATE` transaction, waiting for
    /// another process's write lock until the change set's deadline at most.
    @discardableResult
    public func commit(_ changes: ChangeSet, at time: Date) async throws(StoreError) -> [String: Int] {
        try await run {
            if let deadline = changes.deadline {
                // Another process holding the write lock is waited for until the deadline at most.
                let milliseconds = max(1, Int(((deadline - .now) / .milliseconds(1)).rounded(.up)))
                _ = try await connection.query("PRAGMA busy_timeout=\(milliseconds)")
            }
            do {
                let revisions = try await commitTransaction(changes, at: time)
                // Committed: a cancellation now must not turn the answer into a failure.
                if changes.deadline != nil { try? await connection.queryEvenIfCancelled("PRAGMA busy_timeout=5000") }
                return revisions
            } catch {
                if changes.deadline != nil { try? await connection.queryEvenIfCancelled("PRAGMA busy_timeout=5000") }
                throw error
            }
        }
    }

    /// The transaction of ``commit(_:at:)``.
    private func commitTransaction(_ changes: ChangeSet, at time: Date) async throws -> [String: Int] {
        try await transaction {
            // Only the rows the changes can touch: a write costs what it changes.
            let state = try await readState(StateFootprint(changes.changes))
            for (environment, expected) in changes.basedOn.sorted(by: { $0.key < $1.key }) {
                let actual = state.environments[environment]?.revision ?? 0
                guard actual == expected else {
                    throw StoreError.staleRevision(environment: environment, expected: expected, actual: actual)
                }
            }
            let transition = try state.transition(applying: changes.changes)
            let revisions = try await write(from: state, transition, changes: changes, time: time)
            // The last step before COMMIT: a write whose caller stopped waiting rolls back.
            try changes.checkDeadline()
            return revisions
        }
    }

    /// The newest `limit` revisions of `environment`, newest first, from the `revisions` table.
    public func revisions(environment: String, limit: Int) async throws(StoreError) -> [RevisionRecord] {
        try await run {
            try await connection.query(
                "SELECT * FROM revisions WHERE environment = ? ORDER BY revision DESC LIMIT ?",
                [.text(environment), .integer(max(0, limit))]
            ).map { row in
                RevisionRecord(
                    environment: environment,
                    revision: row.column("revision")?.integer ?? 0,
                    time: Date(timeIntervalSince1970: row.column("time")?.double ?? 0),
                    actor: row.column("actor")?.string ?? "",
                    reason: row.column("reason")?.string
                )
            }
        }
    }

    /// Whether the `bootstrap` table has its row.
    public func isBootstrapFinished() async throws(StoreError) -> Bool {
        try await run { try await !connection.query("SELECT id FROM bootstrap WHERE id = 1").isEmpty }
    }

    /// Writes the `bootstrap` row once; a second call leaves the first time.
    public func finishBootstrap(at time: Date) async throws(StoreError) {
        try await run {
            _ = try await connection.query(
                "INSERT INTO bootstrap (id, finished_at) VALUES (1, ?) ON CONFLICT (id) DO NOTHING",
                [.float(time.timeIntervalSince1970)])
        }
    }

    /// Every token, revoked ones too, oldest first, from the `tokens` table.
    public func tokens() async throws(StoreError) -> [TokenRecord] {
        try await run {
            try await connection.query("SELECT * FROM tokens ORDER BY created_at, id").map { row in
                TokenRecord(
                    id: row.column("id")?.string ?? "",
                    name: row.column("name")?.string ?? "",
                    environment: row.column("environment")?.string ?? "",
                    role: TokenRole(rawValue: row.column("role")?.string ?? "") ?? .client,
                    digest: row.column("digest")?.string ?? "",
                    createdAt: Date(timeIntervalSince1970: row.column("created_at")?.double ?? 0),
                    revokedAt: row.column("revoked_at")?.double.map(Date.init(timeIntervalSince1970:))
                )
            }
        }
    }

    /// Adds `token` to the `tokens` table.
    public func insertToken(_ token: TokenRecord) async throws(StoreError) {
        try await run {
            _ = try await connection.query(
                "INSERT INTO tokens (id, name, environment, role, digest, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    .text(token.id), .text(token.name), .text(token.environment), .text(token.role.rawValue),
                    .text(token.digest), .float(token.createdAt.timeIntervalSince1970),
                ])
        }
    }

    /// Marks the token revoked at `time`; an already revoked token keeps its first time.
    public func revokeToken(id: String, at time: Date) async throws(StoreError) {
        try await run {
            let rows = try await connection.query("SELECT id FROM tokens WHERE id = ?", [.text(id)])
            guard !rows.isEmpty else { throw StoreError.notFound("token \"\(id)\"") }
            _ = try await connection.query(
                "UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                [.float(time.timeIntervalSince1970), .text(id)])
        }
    }

    // MARK: - Internals

    private func currentVersion() async throws -> Int {
        let tables = try await connection.query(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
        guard !tables.isEmpty else { return 0 }
        let rows = try await connection.query("SELECT MAX(version) AS version FROM schema_migrations")
        return rows.first?.column("version")?.integer ?? 0
    }

    /// Runs `body`, mapping every failure that is not already a ``StoreError`` to one.
    func run<T: Sendable>(_ body: () async throws -> T) async throws(StoreError) -> T {
        await serial.lock()
        defer { serial.unlock() }
        do {
            return try await body()
        } catch {
            throw .sqlite(error, database: "the database")
        }
    }

    /// Runs `body` in a write transaction, rolling back if it throws.
    func transaction<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await connection.writeTransaction(body)
    }

    /// The whole state, or (with a `footprint`) every environment's key, revision and position
    /// and only the rows the footprint names.
    private func readState(_ footprint: StateFootprint? = nil) async throws -> ServerState {
        var state = ServerState()
        for row in try await connection.query("SELECT key, revision, position FROM environments") {
            let key = row.column("key")?.string ?? ""
            state.environments[key] = EnvironmentState(
                key: key, revision: row.column("revision")?.integer ?? 0, position: row.column("position")?.integer ?? 0)
        }
        let decoder = JSONDecoder()
        func addFlags(_ rows: [SQLiteRow]) throws {
            for row in rows {
                let flag = try decoder.decode(FlagRecord.self, from: Data((row.column("document")?.string ?? "").utf8))
                state.flags[flag.key] = flag
            }
        }
        func addSettings(_ rows: [SQLiteRow]) throws {
            for row in rows {
                let settings = try decoder.decode(FlagSettings.self, from: Data((row.column("document")?.string ?? "").utf8))
                state.environments[row.column("environment")?.string ?? ""]?.settings[row.column("flag")?.string ?? ""] = settings
            }
        }
        func addSegments(_ rows: [SQLiteRow]) throws {
            for row in rows {
                let rule = try JSONValue(parsing: row.column("rule")?.string ?? "")
                state.environments[row.column("environment")?.string ?? ""]?.segments[row.column("key")?.string ?? ""] = rule
            }
        }
        guard let footprint else {
            try addFlags(try await connection.query("SELECT key, document FROM flags"))
            try addSettings(try await connection.query("SELECT environment, flag, document FROM flag_settings"))
            try addSegments(try await connection.query("SELECT environment, key, rule FROM segments"))
            return state
        }
        if footprint.allFlags { try addFlags(try await connection.query("SELECT key, document FROM flags")) }
        // Keys in chunks, well below SQLite's limit of bound parameters.
        let keys = footprint.flags.sorted()
        let environments = state.environments.keys.sorted()
        for start in stride(from: 0, to: keys.count, by: 500) {
            let chunk = Array(keys[start..<min(start + 500, keys.count)])
            if !footprint.allFlags {
                try addFlags(try await connection.query(
                    "SELECT key, document FROM flags WHERE key IN (\(SQLiteConnection.placeholders(chunk.count)))", chunk.map(SQLiteData.text)))
            }
            let settings = Self.settingsQuery(environments: environments, flags: chunk)
            try addSettings(try await connection.query(settings.sql, settings.binds))
        }
        for (environment, segments) in footprint.segments.sorted(by: { $0.key < $1.key }) {
            for key in segments.sorted() {
                try addSegments(try await connection.query(
                    "SELECT environment, key, rule FROM segments WHERE environment = ? AND key = ?", [.text(environment), .text(key)]))
            }
        }
        return state
    }

    /// The settings of `flags` in `environments`. Both columns of the primary key are named, so
    /// SQLite looks each row up by the key: naming only the flags scanned every environment's
    /// settings, which made a one-flag write at 10,000 flags read the whole table.
    static func settingsQuery(environments: [String], flags: [String]) -> (sql: String, binds: [SQLiteData]) {
        let environmentMarks = SQLiteConnection.placeholders(environments.count), flagMarks = SQLiteConnection.placeholders(flags.count)
        return (
            "SELECT environment, flag, document FROM flag_settings WHERE environment IN (\(environmentMarks)) AND flag IN (\(flagMarks))",
            (environments + flags).map(SQLiteData.text)
        )
    }

    /// Writes the difference between `state` and `next`, bumps revisions and appends the audit.
    /// Writes the rows the transition touched that differ, bumps revisions and appends the audit.
    private func write(
        from state: ServerState, _ transition: StateTransition, changes: ChangeSet, time: Date
    ) async throws -> [String: Int] {
        let next = transition.state, delta = transition.delta, drafts = transition.audit
        func text(_ value: JSONValue) -> SQLiteData { .text(value.serialized()) }
        // The rows' documents are serialized per statement, as written (an import writes thousands).
        var flagRows: [FlagRecord] = []
        var settingsRows: [(environment: String, flag: String, settings: FlagSettings)] = []
        for key in delta.flags.sorted() {
            if let flag = next.flags[key] {
                guard state.flags[key] != flag else { continue }
                flagRows.append(flag)
            } else if state.flags[key] != nil {
                _ = try await connection.query("DELETE FROM flags WHERE key = ?", [.text(key)])
            }
        }
        var revisions: [String: Int] = [:]
        let changed = Set(drafts.map(\.environment))
        for environment in next.environments.values.sorted(by: { $0.key < $1.key }) {
            let touchedSettings = delta.settings[environment.key] ?? []
            let touchedSegments = delta.segments[environment.key] ?? []
            guard delta.environments.contains(environment.key) || !touchedSettings.isEmpty || !touchedSegments.isEmpty
                || changed.contains(environment.key)
            else { continue }
            let old = state.environments[environment.key]
            if old == nil {
                _ = try await connection.query(
                    "INSERT INTO environments (key, revision, position) VALUES (?, 0, ?)",
                    [.text(environment.key), .integer(environment.position)])
            } else if old?.position != environment.position {
                _ = try await connection.query(
                    "UPDATE environments SET position = ? WHERE key = ?", [.integer(environment.position), .text(environment.key)])
            }
            for flag in touchedSettings.sorted() {
                let settings = environment.settings[flag]
                guard old?.settings[flag] != settings else { continue }
                if let settings {
                    settingsRows.append((environment.key, flag, settings))
                } else {
                    _ = try await connection.query(
                        "DELETE FROM flag_settings WHERE environment = ? AND flag = ?", [.text(environment.key), .text(flag)])
                }
            }
            for key in touchedSegments.sorted() {
                let rule = environment.segments[key]
                guard old?.segments[key] != rule else { continue }
                if let rule {
                    _ = try await connection.query(
                        """
                        INSERT INTO segments (environment, key, rule) VALUES (?, ?, ?)
                        ON CONFLICT(environment, key) DO UPDATE SET rule = excluded.rule
                        """,
                        [.text(environment.key), .text(key), .text(rule.serialized())])
                } else {
                    _ = try await connection.query(
                        "DELETE FROM segments WHERE environment = ? AND key = ?", [.text(environment.key), .text(key)])
                }
            }
            guard changed.contains(environment.key) else { continue }
            let revision = environment.revision + 1
            revisions[environment.key] = revision
            _ = try await connection.query(
                "UPDATE environments SET revision = ? WHERE key = ?", [.integer(revision), .text(environment.key)])
            _ = try await connection.query(
                "INSERT INTO revisions (environment, revision, time, actor, reason) VALUES (?, ?, ?, ?, ?)",
                [
                    .text(environment.key), .integer(revision), .float(time.timeIntervalSince1970), .text(changes.actor),
                    changes.reason.map(SQLiteData.text) ?? .null,
                ])
        }
        // New environments are inserted above, before the settings that reference them.
        try await insert(
            "INSERT INTO flags (key, document)", row: "(?, ?)", flagRows,
            then: " ON CONFLICT(key) DO UPDATE SET document = excluded.document"
        ) { flag in [.text(flag.key), text(flag.jsonValue)] }
        try await insert(
            "INSERT INTO flag_settings (environment, flag, document)", row: "(?, ?, ?)", settingsRows,
            then: " ON CONFLICT(environment, flag) DO UPDATE SET document = excluded.document"
        ) { row in [.text(row.environment), .text(row.flag), text(row.settings.jsonValue)] }
        try await insert(
            "INSERT INTO audit (environment, revision, time, actor, reason, subject, key, before, after, reverted_to)",
            row: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", drafts
        ) { draft in
            [
                .text(draft.environment), .integer(revisions[draft.environment] ?? 0),
                .float(time.timeIntervalSince1970), .text(changes.actor), changes.reason.map(SQLiteData.text) ?? .null,
                .text(draft.subject.rawValue), .text(draft.key),
                draft.before.map { .text($0.serialized()) } ?? .null,
                draft.after.map { .text($0.serialized()) } ?? .null,
                changes.revertedTo(draft).map(SQLiteData.integer) ?? .null,
            ]
        }
        return revisions
    }

    /// Inserts `rows` (each filling `row`'s placeholders with `bind(row)`) in statements of up to
    /// 100 rows, in order: an import writes thousands of rows, and each statement is a round trip
    /// to SQLite's thread. Each statement's values are built just before it runs.
    private func insert<Row>(
        _ head: String, row: String, _ rows: [Row], then tail: String = "", _ bind: (Row) -> [SQLiteData]
    ) async throws {
        for start in stride(from: 0, to: rows.count, by: 100) {
            let chunk = rows[start..<min(start + 100, rows.count)]
            let sql = head + " VALUES " + Array(repeating: row, count: chunk.count).joined(separator: ", ") + tail
            _ = try await connection.query(sql, chunk.flatMap(bind))
        }
    }
}
