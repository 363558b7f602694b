import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import Logging
import NIOHTTP1
import Synchronization
import Testing

/// OFREP ADR 0008 across replicas: a bulk refetch that names the event's `flagConfigEtag` /
/// `flagConfigLastModified` is answered from a state at least that new, even by a replica whose
/// notification has not arrived (here: one that never hears any, and checks only when asked).
@Suite(.enabled(if: PostgresTestDatabase.enabled, "needs FLAG_SERVER_TEST_DATABASE_URL (source .ci/postgres.sh; postgres_setup)"))
struct ReplicaCatchUpTests {
    static let bulk = #"{"context": {"targetingKey": "user-1"}}"#

    /// Two servers over one schema: `a` hears notifications; `b` hears none and never checks by itself.
    static func withLaggingReplica(_ body: (TestServer, TestServer, DeafStore) async throws -> Void) async throws {
        let configuration = try PostgresTestDatabase.configuration(schema: PostgresTestDatabase.freshSchema())
        let first = PostgresFlagStore(configuration: configuration, logger: Logger(label: "replica-a"), tokenWriteTimeout: ServerLimits.forTests.writeTimeout)
        try await TestServer.with(store: first, rateLimiter: nil, revisionCheck: .manual) { a in
            let deaf = DeafStore(PostgresFlagStore(configuration: configuration, logger: Logger(label: "replica-b"), tokenWriteTimeout: ServerLimits.forTests.writeTimeout))
            try await TestServer.with(store: deaf, rateLimiter: nil, revisionCheck: .manual) { b in
                try await body(a, TestServer(server: b.server, port: b.port, adminToken: a.adminToken), deaf)
            }
        }
    }

    @Test
    func aRefetchNamingTheEventMakesALaggingReplicaCatchUp() async throws {
        try await Self.withLaggingReplica { a, b, _ in
            try await a.booleanFlag("checkout")  // production at revision 3, on
            let token = try await a.token(.client, environment: "production")
            await b.server.synchronizer?.checkNow()
            var stream = EventStreamReader(try await a.openStream(token: token))
            #expect(try await stream.next(containing: "at revision 3") != nil)

            try await a.booleanFlag("checkout", enabled: false)  // revision 4, off
            let event = try #require(try await stream.nextEvent())
            let data = try JSONValue(parsing: try #require(event.data))
            #expect(event.id == "4")
            #expect(data["etag"] == "4")
            let lastModified = try #require(data["lastModified"]?.intValue)
            #expect(abs(Double(lastModified) - Date().timeIntervalSince1970) < 600)

            // Without the event's metadata the lagging replica answers what it serves.
            let stale = try await b.request(.POST, "/ofrep/v1/evaluate/flags", token: token, body: Self.bulk)
            #expect(stale.header("ETag")?.hasPrefix(#""production-3-"#) == true)
            // A malformed value is ignored: still what it serves, no error.
            let malformed = try await b.request(
                .POST, "/ofrep/v1/evaluate/flags?flagConfigEtag=not-ours&flagConfigLastModified=yesterday", token: token,
                body: Self.bulk)
            #expect(malformed.status == 200)
            #expect(malformed.header("ETag")?.hasPrefix(#""production-3-"#) == true)

            let fresh = try await b.request(
                .POST, "/ofrep/v1/evaluate/flags?flagConfigEtag=4&flagConfigLastModified=\(lastModified)", token: token,
                body: Self.bulk)
            #expect(fresh.status == 200, "\(fresh.body)")
            #expect(fresh.header("ETag")?.hasPrefix(#""production-4-"#) == true)
            #expect(fresh.json?["flags"]?.arrayValue?.first?["reason"] == "DISABLED")
            #expect(await b.server.admin.state.environments["production"]?.revision == 4)
        }
    }

    /// `flagConfigLastModified` alone works too; a value newer than anything stored gets the
    /// newest state after one check, not an error or a wait.
    @Test
    func aLaterLastModifiedChecksOnceAndServesTheNewest() async throws {
        try await Self.withLaggingReplica { a, b, deaf in
            let token = try await a.token(.client, environment: "production")
            await b.server.synchronizer?.checkNow()
            try await a.booleanFlag("checkout")  // revision 3
            let checks = deaf.versionReads
            let future = Int(Date().timeIntervalSince1970) + 3600
            let reply = try await b.request(
                .POST, "/ofrep/v1/evaluate/flags?flagConfigLastModified=\(future)", token: token, body: Self.bulk)
            #expect(reply.status == 200, "\(reply.body)")
            #expect(reply.header("ETag")?.hasPrefix(#""production-3-"#) == true)
            #expect(deaf.versionReads == checks + 1)
        }
    }

    /// A replica that cannot reach the database does not answer older values than the event:
    /// 503 with `Retry-After`, and it keeps serving requests without the metadata.
    @Test
    func aReplicaThatCannotCheckAnswers503() async throws {
        try await Self.withLaggingReplica { a, b, deaf in
            let token = try await a.token(.client, environment: "production")
            await b.server.synchronizer?.checkNow()
            try await a.booleanFlag("checkout")  // revision 3
            deaf.unreachable.store(true, ordering: .relaxed)
            let reply = try await b.request(.POST, "/ofrep/v1/evaluate/flags?flagConfigEtag=3", token: token, body: Self.bulk)
            #expect(reply.status == 503)
            #expect(reply.header("Retry-After") == "1")
            #expect(reply.json?["errorCode"] == "GENERAL")
            let plain = try await b.request(.POST, "/ofrep/v1/evaluate/flags", token: token, body: Self.bulk)
            #expect(plain.status == 200)
        }
    }
}

/// A replica's store that never delivers a notification (as if its LISTEN connection were
/// delayed indefinitely), counts the revision checks, and can pretend the database is gone.
final class DeafStore: ReplicatedFlagStore {
    let base: PostgresFlagStore
    let unreachable = Atomic<Bool>(false)
    private let reads = Atomic<Int>(0)

    init(_ base: PostgresFlagStore) { self.base = base }

    var versionReads: Int { reads.load(ordering: .relaxed) }

    func currentVersion() async throws(StoreError) -> StoreVersion {
        reads.add(1, ordering: .relaxed)
        if unreachable.load(ordering: .relaxed) { throw .database("unreachable (test)") }
        return try await base.currentVersion()
    }

    func listen(
        onListening: @Sendable () async -> Void, onAnnouncement: @Sendable (RevisionAnnouncement?) async -> Void
    ) async throws(StoreError) {
        // Listening, but nothing ever arrives: wait until cancelled.
        let (never, _) = AsyncStream.makeStream(of: Void.self)
        for await _ in never {}
    }

    func announce(_ announcement: RevisionAnnouncement) async throws(StoreError) { try await base.announce(announcement) }
    func migrate() async throws(StoreError) { try await base.migrate() }
    func schemaVersion() async throws(StoreError) -> Int { try await base.schemaVersion() }
    func load() async throws(StoreError) -> ServerState { try await base.load() }
    func commit(_ changes: ChangeSet, at time: Date) async throws(StoreError) -> [String: Int] {
        try await base.commit(changes, at: time)
    }
    func revisions(environment: String, limit: Int) async throws(StoreError) -> [RevisionRecord] {
        try await base.revisions(environment: environment, limit: limit)
    }
    func audit(environment: String, key: String?, limit: Int) async throws(StoreError) -> [AuditEntry] {
        try await base.audit(environment: environment, key: key, limit: limit)
    }
    func tokens() async throws(StoreError) -> [TokenRecord] { try await base.tokens() }
    func isBootstrapFinished() async throws(StoreError) -> Bool { try await base.isBootstrapFinished() }
    func finishBootstrap(at time: Date) async throws(StoreError) { try await base.finishBootstrap(at: time) }
    func insertToken(_ token: TokenRecord) async throws(StoreError) { try await base.insertToken(token) }
    func close() async { await base.close() }
    func revokeToken(id: String, at time: Date) async throws(StoreError) { try await base.revokeToken(id: id, at: time) }
}
