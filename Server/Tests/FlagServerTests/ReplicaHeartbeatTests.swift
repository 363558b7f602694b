@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A listening connection that freezes without failing (its PostgreSQL backend stopped with
/// SIGSTOP: the TCP connection stays open, nothing arrives) is noticed by the replica's heartbeat
/// and replaced, without the periodic revision check (manual here).
@Suite(.enabled(if: PostgresTestDatabase.enabled, "needs FLAG_SERVER_TEST_DATABASE_URL (source .ci/postgres.sh; postgres_setup)"))
struct ReplicaHeartbeatTests {
    // The time limit only stops a hang: without a heartbeat the frozen replica never recovers
    // here (nothing else checks), so the old code waits forever. It is no timing claim: the test
    // takes about 20 s alone, and over a minute beside the whole suite on a busy machine.
    @Test(.timeLimit(.minutes(5)))
    func aFrozenListeningConnectionIsReplacedAndTheReplicaCatchesUp() async throws {
        // Replicas that would wait an hour after a failed connection, and never check by
        // themselves: only the heartbeat can bring B back.
        try await ReplicaTestCluster.with(
            replicas: 2, reconnectDelay: .seconds(3600),
            heartbeat: .init(interval: .milliseconds(200), timeout: .seconds(2))
        ) { cluster in
            let (a, b) = (cluster.replicas[0], cluster.replicas[1])
            let token = try await a.token(.client, environment: "production")
            await b.server.synchronizer?.checkNow()
            var stream = EventStreamReader(try await b.openStream(token: token))
            #expect(try await stream.next(containing: "at revision 1") != nil)

            // Freeze every listening backend of this schema: the connections stay open. Both
            // replicas listen; on a busy machine one may be replacing its connection at this
            // moment (a late heartbeat), so wait (boundedly) until both are there.
            var listening: [pid_t] = []
            for _ in 0..<100 {
                listening = try await PostgresTestDatabase.query(
                    """
                    SELECT pid::text FROM pg_stat_activity
                    WHERE query LIKE 'LISTEN%flag_server_revisions_\(cluster.schema)%'
                    """
                ).compactMap { pid_t($0) }
                if listening.count == 2 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            let backends = listening
            #expect(backends.count == 2)
            for pid in backends { #expect(kill(pid, SIGSTOP) == 0) }
            let resume: @Sendable () -> Void = { for pid in backends { kill(pid, SIGCONT) } }
            defer { resume() }

            // B notices (its heartbeat does not come back) and is not ready meanwhile. By then it
            // has closed the frozen connection: the backends may run again (and end). If the
            // time limit cancels the test first, they run again too, so that a failure leaves
            // no stopped backend in the database.
            await withTaskCancellationHandler {
                await b.server.readiness.wait(untilReady: false)
            } onCancel: {
                resume()
            }
            resume()
            try await a.booleanFlag("checkout")
            // Listening again on a new connection, B catches up and announces the change.
            var last: EventStreamReader.Event?
            while last?.id != "3" { last = try await stream.nextEvent() }
            await b.server.readiness.wait(untilReady: true)
            #expect(await b.server.admin.state.environments["production"]?.revision == 3)
            let metrics = try await b.request(.GET, "/metrics")
            let silences = metrics.body.split(separator: "\n")
                .first { $0.hasPrefix("flag_server_notification_silences_total ") }
                .flatMap { $0.split(separator: " ").last }.flatMap { Int($0) }
            #expect((silences ?? 0) >= 1)
            let ready = try await b.request(.GET, "/health/ready")
            #expect(ready.status == 200)
        }
    }

    @Test
    func aHeartbeatIsAnAnnouncementOfNothingNewToAReplicaThatDoesNotKnowIt() throws {
        let payload = RevisionAnnouncement(revisions: [:], committedAt: 0, heartbeat: "replica-1").payload
        // The fields every replica reads: no revision, no token change.
        struct OlderAnnouncement: Decodable {
            var revisions: [String: Int]
            var tokens: Bool
            var committedAt: Double
        }
        let older = try JSONDecoder().decode(OlderAnnouncement.self, from: Data(payload.utf8))
        #expect(older.revisions.isEmpty && older.tokens == false)
        #expect(RevisionAnnouncement(payload: payload)?.heartbeat == "replica-1")
        // A commit's announcement carries no heartbeat.
        let commit = RevisionAnnouncement(revisions: ["production": 3], committedAt: 1).payload
        #expect(!commit.contains("heartbeat"))
        #expect(RevisionAnnouncement(payload: commit)?.heartbeat == nil)
    }
}
