import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import HTTPTypes
import Foundation
import Logging
import Testing

/// A write commits within its time limit or fails 503 and changes nothing, and a write past its
/// deadline is never committed afterwards.
struct WriteDeadlineTests {
    static let flag = FlagRecord(key: "checkout", type: .boolean, variants: ["on": true, "off": false])
    static let off = FlagSettings(enabled: false, defaultVariant: "off")

    @Test
    func theStoreRollsBackAWriteWhoseDeadlinePassedBeforeItCommits() async throws {
        let store = try await SQLiteFlagStore(path: nil)
        try await store.migrate()
        let base = try await store.load()
        let changes = ChangeSet(
            actor: "late", changes: [.putFlag(Self.flag, initialSettings: Self.off)], basedOn: base.revisions,
            deadline: .now - .seconds(1))
        await #expect(throws: StoreError.unavailable("the write did not commit within its time limit")) {
            try await store.commit(changes, at: Date())
        }
        #expect(try await store.load() == base)
        await store.close()
    }

    @Test
    func aWriteOutOfTimeFailsAsUnavailableAndChangesNothing() async throws {
        let store = try await SQLiteFlagStore(path: nil)
        try await store.migrate()
        let admin = FlagAdmin(store: store, publisher: StatePublisher(ttlSeconds: 60), events: EventHub(), writeTimeout: .zero)
        try await admin.reload()
        let before = try await store.load()
        await #expect {
            try await admin.write(actor: "late", reason: nil) { _ -> [StateChange] in [.createEnvironment("production")] }
        } throws: { error in
            guard case AdminError.unavailable = error else { return false }
            return true
        }
        #expect(try await store.load() == before)
        await store.close()
    }

    @Test
    func anUnavailableWriteAnswers503WithRetryAfterAndNoDriverDetail() throws {
        let error = APIError(AdminError(store: .unavailable(PostgresFlagStore.unavailableMessage)))
        #expect(error.status == .serviceUnavailable)
        #expect(error.headers[.retryAfter] == String(APIError.unavailableRetryAfterSeconds))
        #expect(!error.message.contains("127.0.0.1"))
    }

    /// Nothing listens on the port: the write gives up at its deadline instead of waiting for a
    /// connection, and says so without the host and port.
    @Test
    func aPostgresWriteGivesUpAtItsDeadlineWhenTheDatabaseIsUnreachable() async throws {
        let configuration = try PostgresConfiguration(url: "postgres://nobody@127.0.0.1:9/flags?sslmode=disable")
        let store = PostgresFlagStore(configuration: configuration, logger: Logger(label: "unreachable"))
        let changes = ChangeSet(
            actor: "outage", changes: [.createEnvironment("production")], basedOn: [:], deadline: .now + .milliseconds(500))
        do {
            try await store.commit(changes, at: Date())
            Issue.record("the write succeeded against an unreachable database")
        } catch {
            guard case .unavailable(let message) = error else {
                Issue.record("expected unavailable, got \(error)")
                return
            }
            #expect(!message.contains("127.0.0.1"))
            #expect(!message.contains(":9"))
        }
        await store.close()
    }
}
