import AsyncHTTPClient
import FlagEvaluation
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// Replicas as real `flag-server` processes over one PostgreSQL schema: one is killed with
/// SIGKILL while the others keep serving and propagating.
@Suite(.enabled(
    if: PostgresTestDatabase.enabled && FileManager.default.isExecutableFile(atPath: CrashRecoveryTests.executable.path),
    "needs FLAG_SERVER_TEST_DATABASE_URL and the built flag-server executable"))
struct ReplicaProcessTests {
    @Test
    func aReplicaKilledWithSIGKILLLeavesTheOthersServingAndPropagating() async throws {
        let url = try PostgresTestDatabase.url(schema: PostgresTestDatabase.freshSchema())
        let a = try await FlagServerProcess(databaseURL: url)
        let admin = try #require(a.firstToken)
        let created = try await a.request(
            .POST, "/admin/v1/tokens", token: admin, body: #"{"name": "ios", "environment": "production", "role": "client"}"#)
        #expect(created.0 == 201)
        let client = try #require(try JSONValue(parsing: created.1)["token"]?.stringValue)
        let flag = try await a.request(
            .PUT, "/admin/v1/flags/checkout", token: admin,
            body: #"{"type": "boolean", "variants": {"on": true, "off": false}, "defaultVariant": "off"}"#)
        #expect(flag.0 == 200)

        // B and C start on the existing database: no second first-admin token.
        let b = try await FlagServerProcess(databaseURL: url)
        let c = try await FlagServerProcess(databaseURL: url)
        #expect(b.firstToken == nil && c.firstToken == nil)
        var onC = try await c.eventStream(token: client)
        #expect(try await onC.next(containing: "at revision 2") != nil)

        kill(b.process.processIdentifier, SIGKILL)
        b.process.waitUntilExit()
        #expect(b.process.terminationReason == .uncaughtSignal)

        let on = try await a.request(
            .PUT, "/admin/v1/environments/production/flags/checkout/settings", token: admin,
            body: #"{"enabled": true, "defaultVariant": "on"}"#)
        #expect(on.0 == 200)
        #expect(try await onC.nextEvent()?.id == "3")
        let bulk = try await c.request(.POST, "/ofrep/v1/evaluate/flags", token: client, body: #"{"context": {}}"#)
        #expect(bulk.0 == 200)
        #expect(try JSONValue(parsing: bulk.1)["flags"]?.arrayValue?.first?["value"] == true)
        #expect(try await a.request(.GET, "/health/ready", token: client).0 == 200)
        #expect(try await c.request(.GET, "/health/ready", token: client).0 == 200)

        // B restarted serves the newest state at once.
        let restarted = try await FlagServerProcess(databaseURL: url)
        let fromB = try await restarted.request(.POST, "/ofrep/v1/evaluate/flags", token: client, body: #"{"context": {}}"#)
        #expect(try JSONValue(parsing: fromB.1)["flags"]?.arrayValue?.first?["value"] == true)
        for replica in [a, b, c, restarted] { await replica.stop() }
    }
}
