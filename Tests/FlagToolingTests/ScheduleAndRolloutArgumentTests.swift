import FeatureFlags
import FlagServerClient
import FlagTooling
import Foundation
import Testing

/// What `flags schedule` and `flags rollout` read from their options, and what they send and
/// print, without a server.
struct ScheduleAndRolloutArgumentTests {
    func invalid(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as ToolingError {
            #expect(error.kind == .invalidInput)
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test func durationsAreNumbersWithUnits() throws {
        #expect(try DurationText.seconds("90s", option: "--x") == 90)
        #expect(try DurationText.seconds("1h30m", option: "--x") == 5400)
        #expect(try DurationText.seconds("2d", option: "--x") == 172_800)
        #expect(DurationText.text(seconds: 5400) == "1h30m")
        #expect(DurationText.text(seconds: 86400 + 45) == "1d45s")
        #expect(
            invalid { _ = try DurationText.seconds("90", option: "--evaluation-interval") }
                == #"--evaluation-interval: "90" is not a duration; write it as a number with a unit s, m, h or d, such as 90s, 30m, 2h or 1d12h."#)
        #expect(invalid { _ = try DurationText.seconds("0h", option: "--x") } == #"--x: "0h" is zero; a duration is at least 1s."#)
        #expect(invalid { _ = try DurationText.seconds("h", option: "--x") }?.hasPrefix(#"--x: "h" is not a duration"#) == true)
        #expect(invalid { _ = try DurationText.seconds("", option: "--x") }?.hasPrefix(#"--x: "" is not a duration"#) == true)
    }

    @Test func timesAreISO8601OrFromNow() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(try DurationText.time("+2h", now: now, option: "--at") == now.addingTimeInterval(7200))
        #expect(try DurationText.time("2027-01-15T08:00:00Z", now: now, option: "--at") == Date("2027-01-15T08:00:00Z", strategy: .iso8601))
        #expect(
            try DurationText.time("2027-01-15T09:00:00+01:00", now: now, option: "--at")
                == DurationText.time("2027-01-15T08:00:00Z", now: now, option: "--at"))
        #expect(DurationText.text(try DurationText.time("2027-01-15T09:00:00+01:00", now: now, option: "--at")) == "2027-01-15T08:00:00Z")
        #expect(
            invalid { _ = try DurationText.time("tomorrow", now: now, option: "--at") }
                == #"--at: "tomorrow" is not a time; give ISO 8601 with a time zone, such as 2026-12-01T09:00:00Z, or a time from now, such as +2h or +1d."#)
        #expect(invalid { _ = try DurationText.time("2027-01-15T08:00:00", now: now, option: "--at") }?.hasPrefix("--at:") == true)
        #expect(invalid { _ = try DurationText.time("+2", now: now, option: "--at") }?.hasPrefix(#"--at: "2" is not a duration"#) == true)
    }

    @Test func stepsArePercentsWithDurationsEndingAt100() throws {
        let steps = try RolloutSpecification.steps("1:1h,5:1h,25:2h,50:2h,100")
        #expect(steps.map(\.percent) == [1, 5, 25, 50, 100])
        #expect(steps.map(\.durationSeconds) == [3600, 3600, 7200, 7200, RolloutSpecification.finalStepSeconds])
        #expect(try RolloutSpecification.steps("0.5:30m, 12.25:1d, 100:1h").map(\.percent) == [0.5, 12.25, 100])
        #expect(steps[0].json == ["percent": 1, "durationSeconds": 3600])
        #expect(try RolloutSpecification.steps("0.5:30m,100")[0].json == ["percent": 0.5, "durationSeconds": 1800])

        #expect(invalid { _ = try RolloutSpecification.steps("1:1h,5:1h") } == "--steps: the last step must be 100, which finishes the plan, such as …,50:2h,100.")
        #expect(invalid { _ = try RolloutSpecification.steps("5:1h,5:2h,100") } == #"--steps: step 2 "5:2h": each step's percent must be above the previous one's (5)."#)
        #expect(invalid { _ = try RolloutSpecification.steps("5,100") } == #"--steps: step 1 "5": give how long the step is held, such as 5:1h."#)
        #expect(invalid { _ = try RolloutSpecification.steps("0.125:1h,100") } == #"--steps: step 1 "0.125:1h": at most two decimals (0.01 % is the finest share)."#)
        #expect(invalid { _ = try RolloutSpecification.steps("0:1h,100") } == #"--steps: step 1 "0:1h": the percent must be above 0 and at most 100."#)
        #expect(invalid { _ = try RolloutSpecification.steps("150:1h") } == #"--steps: step 1 "150:1h": the percent must be above 0 and at most 100."#)
        #expect(invalid { _ = try RolloutSpecification.steps("five:1h,100") }?.hasPrefix(#"--steps: step 1 "five:1h": write each step as percent:duration"#) == true)
        #expect(invalid { _ = try RolloutSpecification.steps("5:91d,100") } == #"--steps: step 1 "5:91d": a step is held at most 90 days."#)
        #expect(invalid { _ = try RolloutSpecification.steps("5:1x,100") }?.hasPrefix(#"--steps: step 1 "5:1x": "1x" is not a duration"#) == true)
        let many = (1...21).map { "\($0):1h" }.joined(separator: ",")
        #expect(invalid { _ = try RolloutSpecification.steps(many) } == "--steps: 21 steps; a plan has at most 20.")
    }

    @Test func guardrailsNameMetricEventToleranceAndDirection() throws {
        #expect(try RolloutSpecification.guardrail("crash_rate:0.005") == ["metric": "crash_rate", "tolerance": 0.005, "direction": "increase"])
        #expect(
            try RolloutSpecification.guardrail("event_rate:checkout_done:0.02:decrease")
                == ["metric": "event_rate", "event": "checkout_done", "tolerance": 0.02, "direction": "decrease"])
        #expect(invalid { _ = try RolloutSpecification.guardrail("latency:0.1") }?.hasPrefix(#"--guardrail "latency:0.1": the metric is crash_rate, error_rate or event_rate"#) == true)
        #expect(invalid { _ = try RolloutSpecification.guardrail("event_rate:0.1") }?.hasPrefix(#"--guardrail "event_rate:0.1": event_rate needs the tracked event's name"#) == true)
        #expect(invalid { _ = try RolloutSpecification.guardrail("crash_rate:2") }?.hasPrefix(#"--guardrail "crash_rate:2": the tolerance is a number from 0 to 1"#) == true)
        #expect(invalid { _ = try RolloutSpecification.guardrail("crash_rate:0.1:up") }?.hasPrefix(#"--guardrail "crash_rate:0.1:up": the harmful direction is increase or decrease"#) == true)
    }

    @Test func aScheduledChangeIsAPatchOrWholeSettings() throws {
        #expect(try ScheduledChangeRequest.change(enabled: true, defaultVariant: nil, settingsJSON: nil) == ["patch": ["enabled": true]])
        #expect(
            try ScheduledChangeRequest.change(enabled: false, defaultVariant: "off", settingsJSON: nil)
                == ["patch": ["enabled": false, "defaultVariant": "off"]])
        #expect(try ScheduledChangeRequest.change(enabled: nil, defaultVariant: nil, settingsJSON: nil) == nil)
        #expect(
            try ScheduledChangeRequest.change(enabled: nil, defaultVariant: nil, settingsJSON: ("s.json", #"{"enabled": true, "defaultVariant": "on"}"#))
                == ["settings": ["enabled": true, "defaultVariant": "on"]])
        #expect(
            invalid { _ = try ScheduledChangeRequest.change(enabled: true, defaultVariant: nil, settingsJSON: ("s.json", "{}")) }
                == "--settings-json replaces the whole settings: give it without --enable, --disable or --default-variant.")
        #expect(invalid { _ = try ScheduledChangeRequest.change(enabled: nil, defaultVariant: nil, settingsJSON: ("s.json", "[1]")) }?.hasPrefix("--settings-json s.json: not a JSON object") == true)
        #expect(invalid { try ScheduledChangeRequest.checkReason("  ") } == "--reason: give a reason; it is recorded in the audit log.")
        #expect(invalid { try ScheduledChangeRequest.checkReason(String(repeating: "x", count: 1001)) } == "--reason: the reason is 1001 bytes; at most 1000 are kept.")

        let body = ScheduledChangeRequest(
            change: ["patch": ["enabled": true]], runAt: try Date("2027-01-15T08:00:00Z", strategy: .iso8601), reason: "launch", version: 3
        ).body
        #expect(body.jsonString == #"{"change":{"patch":{"enabled":true}},"reason":"launch","runAt":"2027-01-15T08:00:00Z","version":3}"#)
    }

    @Test func requestsGoToTheAdminAPIAndRefusalsQuoteTheServer() throws {
        let transport = FakeFlagServerTransport([
            .response(FlagServerResponse(status: 200, body: Data("[]".utf8))),
            .response(FlagServerResponse(
                status: 409, body: Data(#"{"error": {"code": "conflict", "message": "the plan is draft, not running"}}"#.utf8))),
            .response(FlagServerResponse(status: 403, body: Data())),
        ])
        let client = try FlagServerClient(server: "http://127.0.0.1:8080", token: "ffs_abc_secret-token", transport: transport)
        _ = try client.send(
            "GET", FlagServerClient.adminPath(["environments", "prod uction", "schedules"]), query: [("to", "2027-01-15T08:00:00+01:00")],
            purpose: .read(environment: "prod uction"))
        #expect(transport.requests[0].url.absoluteString == "http://127.0.0.1:8080/admin/v1/environments/prod%20uction/schedules?to=2027-01-15T08%3A00%3A00%2B01%3A00")
        do {
            _ = try client.send(
                "POST", "/admin/v1/environments/production/rollouts/ro-1/pause", body: ["comment": "why"],
                purpose: .change("pausing rollout plans", environment: "production"))
            Issue.record("expected a refusal")
        } catch {
            #expect(error.exitStatus == 3)
            #expect(error.message == #"The server refused POST /admin/v1/environments/production/rollouts/ro-1/pause (409 conflict: "the plan is draft, not running")."#)
        }
        #expect(transport.requests[1].body == Data(#"{"comment":"why"}"#.utf8))
        #expect(transport.requests[1].headers["Content-Type"] == "application/json")
        do {
            _ = try client.send("DELETE", "/admin/v1/rollout-templates/careful", purpose: .change("writing rollout templates", environment: nil))
            Issue.record("expected a refusal")
        } catch {
            #expect(error.message == #"The token may not do this (403): writing rollout templates needs an admin token for all environments ("*")."#)
        }
    }

    static let plan = #"""
        {"id": "ro-1", "flag": "checkout", "environment": "production", "oldVariant": "off", "newVariant": "on",
         "steps": [{"percent": 10, "durationSeconds": 3600}, {"percent": 50, "durationSeconds": 7200}, {"percent": 100, "durationSeconds": 1}],
         "guardrails": [{"metric": "crash_rate", "tolerance": 0, "direction": "increase"}], "alpha": 0.05,
         "evaluationIntervalSeconds": 300, "onRegression": "pause", "restart": "same_units", "salt": "s", "status": "paused",
         "currentStep": 1, "stepStartedAt": "2027-01-15T09:00:00Z", "createdAt": "2027-01-15T08:00:00Z",
         "updatedAt": "2027-01-15T10:00:00Z", "version": 5,
         "history": [
          {"action": "started", "actor": "token a", "time": "2027-01-15T08:00:00Z", "step": 0, "percent": 10, "revision": 4},
          {"action": "regression", "actor": "rollouts", "time": "2027-01-15T10:00:00Z", "step": 1, "percent": 50,
           "finding": {"metric": "crash_rate", "oldVariant": "off", "newVariant": "on", "oldTrials": 21678, "newTrials": 2322,
                       "oldEvents": 461, "newEvents": 82, "oldRate": 0.021266, "newRate": 0.035314, "difference": 0.014048,
                       "lower": 0.002, "upper": 0.0261, "alpha": 0.05, "tolerance": 0, "direction": "increase", "regression": true}},
          {"action": "paused", "actor": "rollouts", "time": "2027-01-15T10:00:00Z", "comment": "guardrail crash_rate"}]}
        """#

    @Test func aPlanShowsItsStepsTheCurrentOneAndTheLatestFinding() throws {
        let plan = try JSONDecoder().decode(ServerRolloutPlan.self, from: Data(Self.plan.utf8))
        #expect(
            plan.details == """
                ro-1: checkout in production, "off" → "on", paused
                Steps:
                  1. 10 %, held 1h
                > 2. 50 %, held 2h (since 2027-01-15T09:00:00Z)
                  3. 100 %, finishes
                On regression: pause; restart: same_units; α 0.05; evaluated every 5m
                Guardrails:
                  crash_rate: tolerance 0, harmful increase
                Latest guardrail evaluation (2027-01-15T10:00:00Z):
                  crash_rate: "on" 82/2322 = 0.035314, "off" 461/21678 = 0.021266; difference +0.014048, interval [+0.002, +0.0261] (α 0.05), tolerance 0, harmful increase: regression
                Last action: paused by rollouts at 2027-01-15T10:00:00Z: guardrail crash_rate

                """)
        #expect(
            ServerRolloutPlan.table([plan]) == """
                ID    FLAG      ROLLOUT   STATUS  STEP
                ro-1  checkout  off → on  paused  2 of 3 (50 %)
                1 rollout plan

                """)
    }

    @Test func scheduledChangesListAsATable() throws {
        let changes = [
            ServerScheduledChange(
                id: "sc-1", environment: "production", flag: "checkout", change: ["patch": ["enabled": true]],
                runAt: "2027-01-15T08:00:00Z", reason: "launch", status: "pending"),
            ServerScheduledChange(
                id: "sc-22", environment: "production", flag: "search", change: ["patch": ["enabled": false]],
                runAt: "2027-01-16T08:00:00Z", reason: "off", status: "held", outcome: "the flag changed at revision 9"),
        ]
        #expect(
            ServerScheduledChange.table(changes) == """
                ID     FLAG      RUN AT                STATUS   OUTCOME
                sc-1   checkout  2027-01-15T08:00:00Z  pending  -
                sc-22  search    2027-01-16T08:00:00Z  held     the flag changed at revision 9
                2 scheduled changes

                """)
        #expect(ServerScheduledChange.table([]) == "No scheduled changes.\n")
    }

    /// Bad arguments are refused with exit status 2 before any request: the server address
    /// reaches nothing, which would be exit status 3.
    @Test func badArgumentsAreRefusedBeforeAnyRequest() throws {
        let server = ["--server", "http://127.0.0.1:1", "--token", "t"]
        let cases: [([String], String)] = [
            (["schedule", "create", "checkout", "--environment", "production", "--at", "soon", "--enable", "--reason", "x"], "--at: \"soon\""),
            (["schedule", "create", "checkout", "--environment", "production", "--at", "+1h", "--enable", "--disable", "--reason", "x"], "--enable or --disable"),
            (["schedule", "list", "--environment", "prod/uction"], "--environment \"prod/uction\""),
            (["schedule", "list", "--environment", "production", "--limit", "0"], "--limit must be from 1 to 1000"),
            (["rollout", "create", "checkout", "--environment", "production", "--from", "off", "--to", "on"], "--template NAME or --steps"),
            (["rollout", "create", "checkout", "--environment", "production", "--from", "off", "--to", "on", "--steps", "5:1h"], "--steps: the last step must be 100"),
            (["rollout", "create", "checkout", "--environment", "production", "--from", "on", "--to", "on", "--steps", "100"], "--from and --to"),
            (["rollout", "create", "checkout", "--environment", "production", "--from", "off", "--to", "on", "--steps", "100", "--guardrail", "x:1"], "--guardrail \"x:1\""),
            (["rollout", "create", "checkout", "--environment", "production", "--from", "off", "--to", "on", "--steps", "100", "--alpha", "0.5"], "--alpha"),
            (["rollout", "pause", "ro-1", "--environment", "production", "--comment", String(repeating: "x", count: 1001)], "--comment"),
            (["rollout", "template", "put", "careful"], "--steps"),
        ]
        for (arguments, expected) in cases {
            let result = try FlagsTool.run(arguments + server)
            #expect(result.status == 2, "\(arguments): \(result)")
            #expect(result.standardError.contains(expected), "\(arguments): \(result)")
            #expect(result.standardOutput.isEmpty)
        }
    }
}
