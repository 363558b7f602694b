import FlagEvaluation
@testable import FlagServer
import NIOHTTP1
import Testing

/// `/health/live` and `/health/ready`, as a load balancer sees them.
struct ReplicaHealthTests {
    @Test
    func liveAndReadyAnswerOnceTheStateIsLoaded() async throws {
        try await TestServer.with { server in
            let live = try await server.request(.GET, "/health/live")
            #expect(live.status == 200)
            #expect(live.json == ["status": "ok"])
            let ready = try await server.request(.GET, "/health/ready")
            #expect(ready.status == 200)
            #expect(ready.json == ["status": "ready"])
            #expect(try await server.request(.GET, "/health").json == ["status": "ok"])
        }
    }

    @Test
    func anUnreachableDatabaseMakesTheServerNotReadyButLiveAndServing() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout")
            let token = try await server.token(.client, environment: "production")
            server.server.readiness.databaseFailed("127.0.0.1:5432: connection refused")
            let ready = try await server.request(.GET, "/health/ready")
            #expect(ready.status == 503)
            #expect(ready.json?["status"] == "not ready")
            #expect(ready.json?["problem"] == "the database is unreachable: 127.0.0.1:5432: connection refused")
            #expect(try await server.request(.GET, "/health/live").status == 200)
            let bulk = try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: token, body: #"{"context": {}}"#)
            #expect(bulk.status == 200)

            server.server.readiness.databaseReached()
            #expect(try await server.request(.GET, "/health/ready").status == 200)
        }
    }

    @Test
    func waitingForReadinessReturnsOnTheChange() async {
        let readiness = Readiness(stateLoaded: false)
        #expect(readiness.problem == "the state is not loaded yet")
        async let ready: Void = readiness.wait(untilReady: true)
        readiness.stateDidLoad()
        await ready
        #expect(readiness.isReady)
        await readiness.wait(untilReady: true)
        async let notReady: Void = readiness.wait(untilReady: false)
        readiness.databaseFailed("gone")
        await notReady
        #expect(readiness.problem == "the database is unreachable: gone")
    }
}
