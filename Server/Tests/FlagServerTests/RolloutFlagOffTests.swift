import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOHTTP1
import Testing

/// A rollout of a flag that is off (Server/Docs/Rollouts.md): starting one is refused with 409
/// by the admin API and the console, and a running plan whose flag is switched off is paused by
/// the executor, with the reason on the plan page, instead of stepping on.
struct RolloutFlagOffTests {
    static let base = ConsoleRolloutTests.base
    static let api = ConsoleRolloutTests.api

    @Test
    func startingAPlanOnAnOffFlagIsRefusedByTheAPIAndTheConsole() async throws {
        try await TestServer.withConsole(rolloutTickInterval: nil) { server in
            try await server.booleanFlag("search", enabled: false, defaultVariant: "off")
            let viaAPI = try await ConsoleRolloutTests.createByAPI(server, flag: "search")
            let viaConsole = try await ConsoleRolloutTests.createByAPI(server, flag: "search")
            let before = await server.server.admin.state.environments["production"]?.settings["search"]

            let refused = try await server.request(.POST, Self.api + "/\(viaAPI)/start", token: server.adminToken, body: "{}")
            #expect(refused.status == 409)
            #expect(refused.json?["error"]?["message"]?.stringValue?.contains(#"flag "search" is off in "production""#) == true)
            #expect(refused.json?["error"]?["message"]?.stringValue?.contains("switch the flag on first") == true)
            #expect(try await ConsoleRolloutTests.plan(server, viaAPI)["status"]?.stringValue == "draft")

            try await server.consoleUser("eddie", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("eddie")
            let csrf = try await client.csrf()
            let draft = try await client.get(Self.base + "/" + viaConsole)
            #expect(draft.body.contains(#"id="rollout-flag-off""#) && draft.body.contains("cannot start until the flag is switched on"))
            let page = try await client.post(Self.base + "/\(viaConsole)/start", [], csrf: csrf)
            #expect(page.status == 409)
            #expect(page.body.contains(#"id="problems""#) && page.body.contains("flag &quot;search&quot; is off in &quot;production&quot;"))
            #expect(try await ConsoleRolloutTests.plan(server, viaConsole)["status"]?.stringValue == "draft")
            #expect(await server.server.admin.state.environments["production"]?.settings["search"] == before)

            // Switched on, the same plan starts.
            try await server.booleanFlag("search", enabled: true, defaultVariant: "off")
            let started = try await server.request(.POST, Self.api + "/\(viaAPI)/start", token: server.adminToken, body: "{}")
            #expect(started.status == 200 && started.json?["status"]?.stringValue == "running")
        }
    }

    @Test
    func aPlanWhoseFlagIsSwitchedOffIsPausedWithTheReasonInsteadOfSteppingOn() async throws {
        let clock = ManualSeconds()
        let now: @Sendable () -> Date = { Date(timeIntervalSince1970: RolloutSimulationTests.base + clock.value) }
        try await TestServer.withConsole(now: now, rolloutTickInterval: nil) { server in
            try await server.booleanFlag("checkout", enabled: true, defaultVariant: "off")
            let rollouts = try #require(server.server.rollouts)
            let executor = RolloutExecutor(rollouts: rollouts, replica: "test")
            let plan = RolloutGuardrailTests.plan()
            _ = try await rollouts.create(plan)
            try await rollouts.start(id: plan.id, environment: "production", actor: "ada")

            // The kill switch turns the flag off; the step's time passes.
            let kill = try await server.request(
                .POST, "/admin/v1/environments/production/flags/checkout/kill", token: server.adminToken, body: #"{"reason": "incident"}"#)
            #expect(kill.status == 200)
            clock.advance(by: 3_000)
            let outcomes = await executor.tick()
            #expect(outcomes[plan.id] == .paused)
            let held = try await rollouts.plan(id: plan.id, environment: "production")
            #expect(held.status == .paused && held.currentStep == 0)
            #expect(held.history.last?.action == .paused && held.history.last?.actor == Rollouts.serverActor)
            #expect(held.history.last?.comment?.contains(#"flag "checkout" was switched off in "production""#) == true)
            let settings = try await ApprovalTests.settings(server, "checkout")
            #expect(settings?.enabled == false && settings?.targeting == plan.targeting(percent: 10))
            // Later ticks leave it paused at its step.
            clock.advance(by: 10_000)
            #expect(await executor.tick()[plan.id] == nil)
            #expect(try await rollouts.plan(id: plan.id, environment: "production").currentStep == 0)

            try await server.consoleUser("eddie", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("eddie")
            let csrf = try await client.csrf()
            let page = try await client.get(Self.base + "/" + plan.id)
            #expect(page.body.contains(#"<dd id="rollout-paused-because">held: flag &quot;checkout&quot; was switched off"#))
            #expect(page.body.contains(#"id="rollout-flag-off""#) && page.body.contains("switch it on before resuming"))

            // Resuming while the flag is off is refused (API and console); switched on, it resumes and steps on.
            let resume = try await server.request(.POST, Self.api + "/\(plan.id)/resume", token: server.adminToken, body: "{}")
            #expect(resume.status == 409 && resume.json?["error"]?["message"]?.stringValue?.contains("is off") == true)
            let consoleResume = try await client.post(Self.base + "/\(plan.id)/resume", [], csrf: csrf)
            #expect(consoleResume.status == 409 && consoleResume.body.contains("resuming rollout plan &quot;plan-1&quot; is refused"))
            #expect(try await rollouts.plan(id: plan.id, environment: "production").status == .paused)
            let on = try await server.request(
                .PATCH, "/admin/v1/environments/production/flags/checkout/settings", token: server.adminToken,
                body: #"{"enabled": true, "reason": "incident over"}"#)
            #expect(on.status == 200)
            #expect(try await client.post(Self.base + "/\(plan.id)/resume", [], csrf: csrf).status == 303)
            clock.advance(by: 3_000)
            #expect(await executor.tick()[plan.id] == .stepped)
            #expect(try await ApprovalTests.settings(server, "checkout")?.targeting == plan.targeting(percent: 25))
        }
    }

    @Test
    func aStepWrittenAfterTheFlagWasSwitchedOffIsRefusedAndThePlanHeld() async throws {
        let clock = ManualSeconds()
        let now: @Sendable () -> Date = { Date(timeIntervalSince1970: RolloutSimulationTests.base + clock.value) }
        try await TestServer.with(now: now, rolloutTickInterval: nil) { server in
            try await server.booleanFlag("checkout", enabled: true, defaultVariant: "off")
            let rollouts = try #require(server.server.rollouts)
            let plan = RolloutGuardrailTests.plan()
            _ = try await rollouts.create(plan)
            try await rollouts.start(id: plan.id, environment: "production", actor: "ada")
            _ = try await server.request(
                .PATCH, "/admin/v1/environments/production/flags/checkout/settings", token: server.adminToken,
                body: #"{"enabled": false}"#)
            // The step's own write checks the flag as it writes.
            await #expect(throws: AdminError.self) {
                try await rollouts.serve(
                    plan, step: 1, actor: Rollouts.serverActor, approval: .changeRequest("rollout:\(plan.id)"), whileOn: "stepping",
                    reason: "test")
            }
            #expect(try await ApprovalTests.settings(server, "checkout")?.targeting == plan.targeting(percent: 10))
        }
    }
}
