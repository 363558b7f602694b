import AsyncHTTPClient
import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// Runs the `flag-server` executable, kills it with SIGKILL while writes are in flight, and
/// checks that a restart opens the database and serves every acknowledged revision.
struct CrashRecoveryTests {
    /// The executable `swift build --build-tests` / `swift test` builds beside the test bundle.
    static var executable: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug/flag-server")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: CrashRecoveryTests.executable.path)))
    func aKilledServerLosesNoAcknowledgedRevision() async throws {
        let directory = TemporaryDirectory().path
        let first = try await FlagServerProcess(dataDirectory: directory)
        let token = try #require(first.firstToken)
        let created = try await first.request(
            .PUT, "/admin/v1/flags/limit", token: token, body: #"{"type": "integer", "variants": {"v0": 0}}"#)
        #expect(created.0 == 200)

        // Writes in flight while the process is killed: each acknowledged one must survive.
        let acknowledged = await withTaskGroup(of: Int?.self) { group in
            for index in 1...40 {
                group.addTask {
                    let body = #"{"type": "integer", "variants": {"v0": \#(index)}}"#
                    guard let reply = try? await first.request(.PUT, "/admin/v1/flags/limit", token: token, body: body),
                        reply.0 == 200, let json = try? JSONValue(parsing: reply.1)
                    else { return nil }
                    return json["revisions"]?["production"]?.intValue
                }
            }
            var revisions: [Int] = []
            var killed = false
            for await revision in group {
                if let revision { revisions.append(revision) }
                if revisions.count == 5, !killed {
                    kill(first.process.processIdentifier, SIGKILL)
                    killed = true
                    // Requests still queued in the client would wait for a connection: fail them.
                    Task { try? await first.client.shutdown() }
                }
            }
            if !killed { kill(first.process.processIdentifier, SIGKILL) }
            return revisions
        }
        first.process.waitUntilExit()
        #expect(acknowledged.count >= 5)

        let second = try await FlagServerProcess(dataDirectory: directory)
        #expect(second.firstToken == nil)
        let (status, body) = try await second.request(.GET, "/admin/v1/environments/production/revisions?limit=1000", token: token)
        #expect(status == 200)
        let stored = Set((try JSONValue(parsing: body)).arrayValue?.compactMap { $0["revision"]?.intValue } ?? [])
        #expect(Set(acknowledged).isSubset(of: stored))
        await second.stop()
    }

    /// A process killed in the middle of a rollout step leaves the plan leased to itself
    /// (`RolloutExecutor.leaseDuration`, 120 s). Its restart on the same data directory takes the
    /// same replica name (kept beside the database) and so the lease: it serves the step at its
    /// first tick instead of waiting the lease out. The lease written here lasts a day, so a
    /// restart that did not take it could not step the plan within the test at all.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: CrashRecoveryTests.executable.path)))
    func aRolloutStepAKilledServerWasTakingIsTakenByItsRestart() async throws {
        let directory = TemporaryDirectory().path
        let first = try await FlagServerProcess(dataDirectory: directory)
        let token = try #require(first.firstToken)
        let flag = try await first.request(
            .PUT, "/admin/v1/flags/checkout", token: token, body: #"{"type": "boolean", "variants": {"on": true, "off": false}, "defaultVariant": "off"}"#)
        #expect(flag.0 == 200)
        let settings = try await first.request(
            .PUT, "/admin/v1/environments/production/flags/checkout/settings", token: token, body: #"{"enabled": true, "defaultVariant": "off"}"#)
        #expect(settings.0 == 200)
        let rollouts = "/admin/v1/environments/production/rollouts"
        let created = try await first.request(
            .POST, rollouts, token: token,
            body: #"{"flag": "checkout", "oldVariant": "off", "newVariant": "on", "steps": [{"percent": 10, "durationSeconds": 3600}, {"percent": 100, "durationSeconds": 1}]}"#)
        let id = try #require(try JSONValue(parsing: created.1)["id"]?.stringValue)
        let started = try await first.request(.POST, rollouts + "/\(id)/start", token: token, body: "{}")
        #expect(started.0 == 200)
        let name = try String(contentsOfFile: directory + "/flags.sqlite.replica-0", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)

        await first.kill()

        // What the kill left had it landed in the step: the plan leased to the dead process, the step due.
        let store = try await SQLiteFlagStore(path: directory + "/flags.sqlite")
        var plan = try #require(try await store.rolloutPlan(id: id))
        #expect(plan.status == .running && plan.currentStep == 0)
        plan.lease = .init(holder: name, until: Date().addingTimeInterval(86_400))
        plan.stepStartedAt = Date().addingTimeInterval(-7_200)
        plan.version += 1
        try await store.updateRolloutPlan(plan)
        await store.close()

        let second = try await FlagServerProcess(dataDirectory: directory)
        // The executor ticks once as the server starts. The bound on the polls only keeps a
        // broken build from hanging the suite; a restart that does not take the lease never steps.
        var status: String?
        for _ in 0..<300 {
            let (code, body) = try await second.request(.GET, rollouts + "/\(id)", token: token)
            #expect(code == 200)
            status = try JSONValue(parsing: body)["status"]?.stringValue
            if status != "running" { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(status == "finished")
        await second.stop()
    }
}
