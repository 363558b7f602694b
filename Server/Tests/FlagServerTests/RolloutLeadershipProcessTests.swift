import AsyncHTTPClient
import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

/// Replicas as real `flag-server` processes over one PostgreSQL schema, ticking every second: the
/// replica leading the rollout executor is killed with SIGKILL in the middle of a step, and the
/// plan moves on at the next tick of the replica that leads after it (another live replica, or
/// the killed one restarted without any flag), instead of after the dead replica's lease.
@Suite(.enabled(
    if: PostgresTestDatabase.enabled && FileManager.default.isExecutableFile(atPath: CrashRecoveryTests.executable.path),
    "needs FLAG_SERVER_TEST_DATABASE_URL and the built flag-server executable"))
struct RolloutLeadershipProcessTests {
    static let leads = "leads the rollout executor"
    /// Replicas tick every second.
    static let ticking = ["--rollout-tick-seconds", "1"]

    /// `restart`: the plan is taken over by the killed replica restarted (without any flag) rather
    /// than by another replica running all along.
    @Test(arguments: [false, true])
    func aRolloutTheKilledLeaderWasSteppingMovesOnAtTheNextLeadersTick(restart: Bool) async throws {
        let schema = PostgresTestDatabase.freshSchema()
        let url = try PostgresTestDatabase.url(schema: schema)
        let a = try await FlagServerProcess(databaseURL: url, Self.ticking)
        let token = try #require(a.firstToken)
        // A starts alone and ticks as it starts: it leads.
        #expect(try await a.waitForOutput(Self.leads))
        let flag = try await a.request(
            .PUT, "/admin/v1/flags/checkout", token: token,
            body: #"{"type": "boolean", "variants": {"on": true, "off": false}, "defaultVariant": "off"}"#)
        #expect(flag.0 == 200)
        let settings = try await a.request(
            .PUT, "/admin/v1/environments/production/flags/checkout/settings", token: token, body: #"{"enabled": true, "defaultVariant": "off"}"#)
        #expect(settings.0 == 200)
        let rollouts = "/admin/v1/environments/production/rollouts"
        let created = try await a.request(
            .POST, rollouts, token: token,
            body: #"{"flag": "checkout", "oldVariant": "off", "newVariant": "on", "steps": [{"percent": 10, "durationSeconds": 3600}, {"percent": 100, "durationSeconds": 1}]}"#)
        let id = try #require(try JSONValue(parsing: created.1)["id"]?.stringValue)
        #expect(try await a.request(.POST, rollouts + "/\(id)/start", token: token, body: "{}").0 == 200)
        let other = restart ? nil : try await FlagServerProcess(databaseURL: url, Self.ticking)

        await a.kill()
        #expect(a.process.terminationReason == .uncaughtSignal)

        // What the kill leaves had it landed in the step: the plan leased for a day to the dead
        // replica, its step due. (A lease of a day: a replica that waited for it could not step
        // the plan within the test at all.)
        let store = try PostgresTestDatabase.makeStore(schema: schema)
        var plan = try #require(try await store.rolloutPlan(id: id))
        #expect(plan.status == .running && plan.currentStep == 0)
        plan.lease = .init(holder: "the-killed-replica", until: Date().addingTimeInterval(86_400))
        plan.stepStartedAt = Date().addingTimeInterval(-7_200)
        plan.version += 1
        try await store.updateRolloutPlan(plan)
        await store.close()

        let next: FlagServerProcess
        if let other { next = other } else { next = try await FlagServerProcess(databaseURL: url, Self.ticking) }
        // The bound on the polls only keeps a broken build from hanging the suite: the next
        // leader steps the plan at its next tick (1 s), and a replica that waited for the lease
        // would not within the day.
        var status: String?
        var body = ""
        for _ in 0..<300 {
            let reply = try await next.request(.GET, rollouts + "/\(id)", token: token)
            #expect(reply.0 == 200)
            body = reply.1
            status = try JSONValue(parsing: body)["status"]?.stringValue
            if status != "running" { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(status == "finished")
        // The next replica led, took the dead replica's lease over, and the history ends with the
        // plan's finish after its start.
        #expect(next.output.contains(Self.leads))
        #expect(next.output.contains("taking over the lease of the-killed-replica"))
        let actions = try JSONValue(parsing: body)["history"]?.arrayValue?.compactMap { $0["action"]?.stringValue } ?? []
        #expect(actions.first == "created" && actions.last == "finished")
        #expect(actions.filter { $0 == "started" }.count == 1 && actions.filter { $0 == "finished" }.count == 1)
        await next.stop()
    }
}
