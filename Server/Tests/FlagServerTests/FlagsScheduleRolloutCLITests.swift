import FlagEvaluation
import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// `flags schedule` and `flags rollout` against a running server: the real `flags` binary (found
/// as `FlagsCLITests` finds it) and the real admin API on a loopback port.
struct FlagsScheduleRolloutCLITests {
    /// `flags` with the server's address, the token and a timeout that a busy machine cannot reach.
    static func flags(_ arguments: [String], _ server: TestServer, token: String? = nil) async throws -> FlagsCLITests.Run {
        try await FlagsCLITests.flags(
            arguments + ["--server", server.baseURL, "--token", token ?? server.adminToken, "--timeout", "3600"])
    }

    static func json(_ run: FlagsCLITests.Run) throws -> JSONValue {
        try #require(try? JSONValue(parsing: run.standardOutput), "\(run)")
    }

    @Test
    func scheduleCreateListShowEditAndCancel() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout", enabled: false)
            let at = Date(timeIntervalSinceNow: 86400).formatted(.iso8601)
            let environment = ["--environment", "production"]

            let created = try await Self.flags(
                ["schedule", "create", "checkout", "--at", at, "--enable", "--reason", "launch", "--json"] + environment, server)
            #expect(created.status == 0, "\(created)")
            let change = try Self.json(created)
            let id = try #require(change["id"]?.stringValue)
            #expect(change["change"] == ["patch": ["enabled": true]])
            #expect(change["runAt"]?.stringValue == at)
            #expect(change["status"] == "pending")

            let list = try await Self.flags(["schedule", "list"] + environment, server)
            #expect(list.status == 0, "\(list)")
            let idWidth = max(2, id.count)
            #expect(
                list.standardOutput == """
                    \("ID".padding(toLength: idWidth, withPad: " ", startingAt: 0))  FLAG      RUN AT\(String(repeating: " ", count: at.count - 6))  STATUS   OUTCOME
                    \(id)  checkout  \(at)  pending  -
                    1 scheduled change

                    """, "\(list)")
            let flagList = try await Self.flags(["schedule", "list", "--flag", "checkout"] + environment, server)
            #expect(flagList.standardOutput == list.standardOutput, "\(flagList)")

            let relative = try await Self.flags(
                ["schedule", "edit", id, "--flag", "checkout", "--at", "+2h", "--default-variant", "off"] + environment, server)
            #expect(relative.status == 0, "\(relative)")
            #expect(relative.standardOutput.hasPrefix("Edited \(id): checkout in production, pending\n"), "\(relative)")
            #expect(relative.standardOutput.contains(#"  change:   patch {"defaultVariant":"off"}"# + "\n"), "\(relative)")
            // The reason was kept; the version grew.
            #expect(relative.standardOutput.contains("  reason:   launch\n"), "\(relative)")
            #expect(relative.standardOutput.contains("  version:  2\n"), "\(relative)")

            let cancelled = try await Self.flags(
                ["schedule", "cancel", id, "--flag", "checkout", "--reason", "postponed"] + environment, server)
            #expect(cancelled.status == 0, "\(cancelled)")
            #expect(cancelled.standardOutput.hasPrefix("Cancelled \(id): checkout in production, cancelled\n"), "\(cancelled)")
            let show = try await Self.flags(["schedule", "show", id, "--flag", "checkout", "--json"] + environment, server)
            #expect(try Self.json(show)["status"] == "cancelled")

            // The server's refusals are quoted, with exit status 3.
            let again = try await Self.flags(["schedule", "cancel", id, "--flag", "checkout"] + environment, server)
            #expect(again.status == 3, "\(again)")
            #expect(again.standardError.hasPrefix("error: The server refused DELETE /admin/v1/environments/production/flags/checkout/schedules/\(id) (409 "), "\(again)")
            let past = try await Self.flags(
                ["schedule", "create", "checkout", "--at", "2001-01-01T00:00:00Z", "--enable", "--reason", "x"] + environment, server)
            #expect(past.status == 3, "\(past)")
            #expect(past.standardError.contains(#"(400 "#) && past.standardError.contains(#": "runAt: "#), "\(past)")
            // Bad arguments never reach the server: exit status 2, naming the option.
            let noChange = try await Self.flags(["schedule", "create", "checkout", "--at", "+1h", "--reason", "x"] + environment, server)
            #expect(noChange.status == 2, "\(noChange)")
            #expect(noChange.standardError.contains("Give the change: --enable, --disable"), "\(noChange)")
            let stillOne = try await server.request(.GET, "/admin/v1/environments/production/schedules", token: server.adminToken)
            #expect(stillOne.json?.arrayValue?.count == 1)
        }
    }

    @Test
    func rolloutCreateStartPauseResumeRollBackAndDelete() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout", enabled: true, defaultVariant: "off")
            let environment = ["--environment", "production"]

            let created = try await Self.flags(
                ["rollout", "create", "checkout", "--from", "off", "--to", "on", "--steps", "10:1h,50:2h,100",
                 "--guardrail", "crash_rate:0.005", "--on-regression", "pause", "--json"] + environment, server)
            #expect(created.status == 0, "\(created)")
            let plan = try Self.json(created)
            let id = try #require(plan["id"]?.stringValue)
            #expect(plan["status"] == "draft")
            #expect(plan["steps"] == [["percent": 10, "durationSeconds": 3600], ["percent": 50, "durationSeconds": 7200], ["percent": 100, "durationSeconds": 1]])
            #expect(plan["guardrails"] == [["metric": "crash_rate", "tolerance": 0.005, "direction": "increase"]])

            let started = try await Self.flags(["rollout", "start", id] + environment, server)
            #expect(started.status == 0, "\(started)")
            #expect(started.standardOutput.hasPrefix(#"Started \#(id): checkout in production, "off" → "on", running"# + "\nSteps:\n> 1. 10 %, held 1h (since "), "\(started)")
            #expect(started.standardOutput.contains("\n  2. 50 %, held 2h\n  3. 100 %, finishes\n"), "\(started)")
            #expect(started.standardOutput.contains("\nGuardrails:\n  crash_rate: tolerance 0.005, harmful increase\n"), "\(started)")
            let settings = try await server.request(.GET, "/admin/v1/environments/production/flags/checkout", token: server.adminToken)
            #expect(settings.json?["settings"]?["targeting"]?["fractional"] != nil, "\(settings.body)")

            let paused = try await Self.flags(["rollout", "pause", id, "--comment", "looking at crashes"] + environment, server)
            #expect(paused.status == 0, "\(paused)")
            #expect(paused.standardOutput.contains(", paused\nSteps:\n> 1. 10 %"), "\(paused)")
            #expect(paused.standardOutput.contains("Last action: paused by "), "\(paused)")
            #expect(paused.standardOutput.hasSuffix(": looking at crashes\n"), "\(paused)")

            let resumed = try await Self.flags(["rollout", "resume", id] + environment, server)
            #expect(resumed.status == 0, "\(resumed)")
            #expect(resumed.standardOutput.contains(", running\nSteps:\n> 1. 10 %"), "\(resumed)")

            let list = try await Self.flags(["rollout", "list"] + environment, server)
            #expect(list.standardOutput.contains("\(id)  checkout  off → on  running  1 of 3 (10 %)\n1 rollout plan\n"), "\(list)")

            let rolledBack = try await Self.flags(["rollout", "rollback", id, "--comment", "crashes"] + environment, server)
            #expect(rolledBack.status == 0, "\(rolledBack)")
            #expect(rolledBack.standardOutput.contains(", rolled_back\nSteps:\n  1. 10 %"), "\(rolledBack)")
            let after = try await server.request(.GET, "/admin/v1/environments/production/flags/checkout", token: server.adminToken)
            #expect(after.json?["settings"]?["defaultVariant"] == "off")
            #expect(after.json?["settings"]?["targeting"] == nil || after.json?["settings"]?["targeting"] == .null, "\(after.body)")
            let shown = try await Self.flags(["rollout", "show", id, "--json"] + environment, server)
            #expect(try Self.json(shown)["history"]?.arrayValue?.compactMap { $0["action"]?.stringValue }
                == ["created", "started", "paused", "resumed", "rolled_back"])

            // The server's refusal is quoted, with exit status 3: a rolled-back plan cannot pause.
            let refused = try await Self.flags(["rollout", "pause", id] + environment, server)
            #expect(refused.status == 3, "\(refused)")
            #expect(refused.standardError.hasPrefix("error: The server refused POST /admin/v1/environments/production/rollouts/\(id)/pause (409 "), "\(refused)")
            // Bad steps never reach the server.
            let badSteps = try await Self.flags(
                ["rollout", "create", "checkout", "--from", "off", "--to", "on", "--steps", "10:1h,5:1h,100"] + environment, server)
            #expect(badSteps.status == 2, "\(badSteps)")
            #expect(badSteps.standardError == "error: --steps: step 2 \"5:1h\": each step's percent must be above the previous one's (10).\n", "\(badSteps)")

            let deleted = try await Self.flags(["rollout", "delete", id] + environment, server)
            #expect(deleted.status == 0, "\(deleted)")
            #expect(deleted.standardOutput == "Deleted rollout plan \(id).\n")
            let none = try await Self.flags(["rollout", "list"] + environment, server)
            #expect(none.standardOutput == "No rollout plans.\n", "\(none)")
        }
    }

    @Test
    func rolloutTemplatesArePutListedUsedAndDeleted() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout", enabled: true, defaultVariant: "off")
            let put = try await Self.flags(
                ["rollout", "template", "put", "careful", "--steps", "1:1h,5:1h,25:2h,50:2h,100", "--guardrail",
                 "event_rate:checkout_done:0.02:decrease", "--evaluation-interval", "10m", "--description", "Slowly"], server)
            #expect(put.status == 0, "\(put)")
            #expect(
                put.standardOutput == """
                    Stored template careful (version 1): Slowly
                    Steps: 1:1h,5:1h,25:2h,50:2h,100
                    On regression: rollback; restart: same_units; α 0.05; evaluated every 10m
                    Guardrail: event_rate (checkout_done): tolerance 0.02, harmful decrease

                    """, "\(put)")
            let list = try await Self.flags(["rollout", "template", "list"], server)
            #expect(
                list.standardOutput == """
                    NAME     STEPS                      GUARDRAILS  ON REGRESSION  DESCRIPTION
                    careful  1:1h,5:1h,25:2h,50:2h,100  1           rollback       Slowly

                    """, "\(list)")

            // Without --from, the plan moves from the flag's default variant ("off").
            let created = try await Self.flags(
                ["rollout", "create", "checkout", "--environment", "production", "--to", "on", "--template", "careful"], server)
            #expect(created.status == 0, "\(created)")
            #expect(created.standardOutput.contains(#""off" → "on", draft (template careful)"# + "\nSteps:\n  1. 1 %, held 1h\n"), "\(created)")
            let same = try await Self.flags(
                ["rollout", "create", "checkout", "--environment", "production", "--to", "off", "--template", "careful"], server)
            #expect(same.status == 2, "\(same)")
            #expect(same.standardError == #"error: "checkout" already serves "off" by default in production; give the variant to move from with --from."# + "\n", "\(same)")
            #expect(created.standardOutput.contains("Guardrails not evaluated yet.\n"), "\(created)")

            let deleted = try await Self.flags(["rollout", "template", "delete", "careful"], server)
            #expect(deleted.standardOutput == "Deleted rollout template careful.\n", "\(deleted)")
            let missing = try await Self.flags(["rollout", "template", "show", "careful"], server)
            #expect(missing.status == 3, "\(missing)")
            #expect(missing.standardError.hasPrefix("error: The server refused GET /admin/v1/rollout-templates/careful (404 "), "\(missing)")
        }
    }
}
