import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import Synchronization
import Testing

/// What only the PostgreSQL store does: migrations and writes of several processes at once, and
/// announcing commits. (What every store does is in `FlagStoreCompatibilityTests`.)
@Suite(.enabled(if: PostgresTestDatabase.enabled, "needs FLAG_SERVER_TEST_DATABASE_URL (source .ci/postgres.sh; postgres_setup)"))
struct PostgresFlagStoreTests {
    @Test
    func replicasMigratingTogetherApplyEachMigrationOnce() async throws {
        let schema = PostgresTestDatabase.freshSchema()
        let stores = try (0..<4).map { _ in try PostgresTestDatabase.makeStore(schema: schema) }
        // Without the advisory lock, concurrent CREATE TABLEs fail with duplicate-object errors.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for store in stores { group.addTask { try await store.migrate() } }
            try await group.waitForAll()
        }
        for store in stores { #expect(try await store.schemaVersion() == PostgresMigrations.all.last?.version) }
        // One row per migration (flags, console accounts, reverts with order and disabled users,
        // bootstrap, approvals, …), not one per replica.
        let applied = try await PostgresTestDatabase.query("SELECT count(*)::text FROM \(schema).schema_migrations")
        #expect(applied == ["\(PostgresMigrations.all.count)"])
        for store in stores { await store.close() }
    }

    @Test
    func twoWritesBasedOnTheSameRevisionCommitOneAndRefuseTheOther() async throws {
        let schema = PostgresTestDatabase.freshSchema()
        let a = try PostgresTestDatabase.makeStore(schema: schema)
        let b = try PostgresTestDatabase.makeStore(schema: schema)
        try await a.migrate()
        try await a.commit(ChangeSet(actor: "t", changes: [.createEnvironment("prod")], basedOn: [:]), at: Date())
        let flag = FlagRecord(key: "checkout", type: .boolean, variants: ["on": true, "off": false])
        try await a.commit(
            ChangeSet(actor: "t", changes: [.putFlag(flag, initialSettings: FlagSettings(enabled: false, defaultVariant: "off"))],
                basedOn: ["prod": 1]),
            at: Date())

        let results = await withTaskGroup(of: Result<[String: Int], StoreError>.self) { group in
            for (store, variant) in [(a, "on"), (b, "off")] {
                group.addTask {
                    let change = ChangeSet(
                        actor: variant,
                        changes: [.putSettings(environment: "prod", flag: "checkout", FlagSettings(enabled: true, defaultVariant: variant))],
                        basedOn: ["prod": 2])
                    do throws(StoreError) { return .success(try await store.commit(change, at: Date())) } catch { return .failure(error) }
                }
            }
            var results: [Result<[String: Int], StoreError>] = []
            for await result in group { results.append(result) }
            return results
        }
        let committed = results.compactMap { try? $0.get() }
        #expect(committed == [["prod": 3]])
        let refused = results.compactMap { result -> StoreError? in
            if case .failure(let error) = result { return error }
            return nil
        }
        #expect(refused == [.staleRevision(environment: "prod", expected: 2, actual: 3)])
        #expect(try await b.revisions(environment: "prod", limit: 10).map(\.revision) == [3, 2, 1])
        await a.close()
        await b.close()
    }

    @Test
    func aCommitIsAnnouncedToEveryListener() async throws {
        let schema = PostgresTestDatabase.freshSchema()
        let writer = try PostgresTestDatabase.makeStore(schema: schema)
        let listener = try PostgresTestDatabase.makeStore(schema: schema)
        try await writer.migrate()
        let (listening, listeningContinuation) = AsyncStream.makeStream(of: Void.self)
        let (announcements, announcementContinuation) = AsyncStream.makeStream(of: RevisionAnnouncement?.self)
        let task = Task {
            try await listener.listen(
                onListening: { listeningContinuation.yield() },
                onAnnouncement: { announcementContinuation.yield($0) })
        }
        var listeningIterator = listening.makeAsyncIterator()
        _ = await listeningIterator.next()
        let before = Date().timeIntervalSince1970
        try await writer.commit(
            ChangeSet(actor: "t", changes: [.createEnvironment("dev"), .createEnvironment("prod")], basedOn: [:]), at: Date())
        var iterator = announcements.makeAsyncIterator()
        let announcement = try #require(await iterator.next() ?? nil)
        #expect(announcement.revisions == ["dev": 1, "prod": 1])
        #expect(announcement.tokens == false)
        #expect(announcement.committedAt >= before)

        let (_, token) = TokenIssuer.issue(name: "ios", environment: "prod", role: .client, at: Date())
        try await writer.insertToken(token)
        let tokenAnnouncement = try #require(await iterator.next() ?? nil)
        #expect(tokenAnnouncement.tokens)
        #expect(try await listener.currentVersion() == StoreVersion(revisions: ["dev": 1, "prod": 1], tokenGeneration: 1))
        task.cancel()
        _ = await task.result
        await writer.close()
        await listener.close()
    }

    @Test
    func aStoredDocumentThatCannotBeReadIsReportedWithItsKey() async throws {
        let schema = PostgresTestDatabase.freshSchema()
        let store = try PostgresTestDatabase.makeStore(schema: schema)
        try await store.migrate()
        try await PostgresTestDatabase.query("INSERT INTO \(schema).flags (key, document) VALUES ('broken', '{not json')")
        await #expect(throws: StoreError.self) { try await store.load() }
        do {
            _ = try await store.load()
        } catch {
            #expect(error.description.contains("flag \"broken\" is stored unreadably"))
        }
        await store.close()
    }
}
