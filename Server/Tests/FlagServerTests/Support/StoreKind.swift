@testable import FlagServer
import Foundation
import Testing

/// Which backend a store test runs against: SQLite in memory, SQLite in a file, or PostgreSQL
/// (`FLAG_SERVER_TEST_DATABASE_URL`; a schema of its own per store). Every compatibility suite
/// takes its arguments from here: `StoreKind.allCases`, or `sqliteAndPostgres`.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
    case sqliteMemory, sqliteFile, postgres

    var testDescription: String { rawValue }

    /// SQLite in memory and PostgreSQL: for suites about what a store does, not about how SQLite
    /// keeps it in a file.
    static let sqliteAndPostgres: [StoreKind] = [.sqliteMemory, .postgres]

    /// A fresh place for a store of this kind: a file named `fileName` in a new temporary
    /// directory, or a new PostgreSQL schema. Without a test database the test is skipped, or fails
    /// in CI (`PostgresTestDatabase.enabled`).
    func freshLocation(fileName: String) throws -> StoreLocation {
        switch self {
        case .sqliteMemory: return .memory
        case .sqliteFile: return .file(TemporaryDirectory().path + "/" + fileName)
        case .postgres:
            try PostgresTestDatabase.skipUnlessEnabled()
            return .postgres(try PostgresTestDatabase.configuration(schema: PostgresTestDatabase.freshSchema()))
        }
    }

    /// A fresh flag store of this kind, not migrated yet.
    func makeFlagStore() async throws -> any TestFlagStore {
        try await freshLocation(fileName: "flags.sqlite").openFlagStore()
    }

    /// Runs `body` with a fresh flag store of this kind, migrated unless `migrated` is `false`, and
    /// closes the store afterwards, also when `body` throws.
    func withFlagStore(migrated: Bool = true, _ body: (any TestFlagStore) async throws -> Void) async throws {
        let store = try await makeFlagStore()
        do {
            if migrated { try await store.migrate() }
            try await body(store)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }
}

/// Where a test's store keeps its data, so that a second store (a second replica) can open the same.
enum StoreLocation {
    case memory
    case file(String)
    case postgres(PostgresConfiguration)

    /// A flag store over this location, not migrated yet (`memory`: a new database every time).
    func openFlagStore() async throws -> any TestFlagStore {
        switch self {
        case .memory: return try await SQLiteFlagStore(path: nil)
        case .file(let path): return try await SQLiteFlagStore(path: path)
        case .postgres(let configuration): return PostgresTestDatabase.makeStore(configuration: configuration)
        }
    }
}

/// A flag store with every store protocol both backends implement, so that one helper serves the
/// suites of each.
typealias TestFlagStore = FlagStore & ApprovalStore & ConsoleAccountStore & ExperimentStore & RolloutStore & ScheduleStore & WebhookStore
