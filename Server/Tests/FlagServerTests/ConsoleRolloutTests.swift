import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOHTTP1
import Testing

/// The console's rollout pages: the list, one plan with its Start / Pause / Resume / Roll back
/// forms (the same ``Rollouts`` calls as the admin API), the new-plan form, roles, CSRF and escaping.
struct ConsoleRolloutTests {
    static let base = "/console/environments/production/rollouts"
    static let api = "/admin/v1/environments/production/rollouts"

    static let form: [(String, String)] = [
        ("flag", "search"), ("oldVariant", "off"), ("newVariant", "on"), ("template", ""), ("steps", "10 1h, 50 30m\n100"),
        ("guardrail1-metric", "crash_rate"), ("guardrail1-tolerance", "0.01"), ("guardrail1-direction", "increase"),
        ("guardrail2-metric", "event_rate"), ("guardrail2-event", "purchase"), ("guardrail2-direction", "decrease"),
        ("onRegression", "pause"), ("restart", ""), ("alpha", ""), ("interval", "5m"),
    ]

    static func plan(_ server: TestServer, _ id: String) async throws -> JSONValue {
        let reply = try await server.request(.GET, api + "/" + id, token: server.adminToken)
        guard reply.status == 200, let json = reply.json else { throw TestFailure("reading plan \(id): \(reply.status) \(reply.body)") }
        return json
    }

    static func createByAPI(_ server: TestServer, flag: String) async throws -> String {
        let reply = try await server.request(
            .POST, api, token: server.adminToken,
            body: #"{"flag": "\#(flag)", "oldVariant": "off", "newVariant": "on", "steps": [{"percent": 10, "durationSeconds": 3600}, {"percent": 100, "durationSeconds": 1}]}"#)
        guard reply.status == 201, let id = reply.json?["id"]?.stringValue else { throw TestFailure("creating a plan: \(reply.status) \(reply.body)") }
        return id
    }

    @Test
    func anAdminCreatesStartsPausesResumesAndRollsBackAPlan() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("search", defaultVariant: "off")
            try await server.consoleUser("ada", role: .admin)
            let client = ConsoleClient(server)
            try await client.signIn("ada")
            let csrf = try await client.csrf()

            let empty = try await client.get(Self.base)
            #expect(empty.status == 200)
            #expect(empty.body.contains("No rollouts in production."))
            #expect(empty.body.contains(#"id="new-rollout-link""#))
            let environments = try await client.get("/console/environments")
            #expect(environments.body.contains(#"href="/console/environments/production/rollouts""#))
            let blank = try await client.get(Self.base + "/new?flag=search")
            #expect(blank.status == 200)
            #expect(blank.body.contains(#"id="new-rollout-form""#) && blank.body.contains(#"value="search""#))

            // Bad steps: the form comes back as typed, the problem naming the field.
            var bad = Self.form
            bad[4] = ("steps", "10 1h, lots")
            let refused = try await client.post(Self.base + "/new", bad, csrf: csrf)
            #expect(refused.status == 400)
            #expect(refused.body.contains("steps: step 2 &quot;lots&quot;"))
            #expect(refused.body.contains(">10 1h, lots</textarea>"))
            #expect(refused.body.contains(#"value="purchase""#))
            // Steps that parse but the plan refuses (the same check as the admin API's).
            bad[4] = ("steps", "10 1h, 50 1h")
            let unfinished = try await client.post(Self.base + "/new", bad, csrf: csrf)
            #expect(unfinished.status == 400)
            #expect(unfinished.body.contains("steps: the last step must be 100"))
            // A variant the flag lacks.
            bad = Self.form
            bad[2] = ("newVariant", "maybe")
            let variant = try await client.post(Self.base + "/new", bad, csrf: csrf)
            #expect(variant.status == 400)
            #expect(variant.body.contains("variant &quot;maybe&quot; is not a variant"))
            #expect(try await server.request(.GET, Self.api, token: server.adminToken).json?.arrayValue?.isEmpty == true)

            let created = try await client.post(Self.base + "/new", Self.form, csrf: csrf)
            #expect(created.status == 303)
            let location = try #require(created.location)
            #expect(location.hasPrefix(Self.base + "/ro-") && location.hasSuffix("?done=created"))
            let id = String(location.dropFirst(Self.base.count + 1).prefix { $0 != "?" })
            let stored = try await Self.plan(server, id)
            #expect(stored["status"]?.stringValue == "draft")
            #expect(stored["steps"]?.arrayValue?.compactMap { $0["percent"]?.doubleValue } == [10, 50, 100])
            #expect(stored["steps"]?.arrayValue?.compactMap { $0["durationSeconds"]?.intValue } == [3600, 1800, 1])
            #expect(stored["guardrails"]?.arrayValue?.compactMap { $0["metric"]?.stringValue } == ["crash_rate", "event_rate"])
            #expect(stored["onRegression"]?.stringValue == "pause" && stored["evaluationIntervalSeconds"]?.intValue == 300)
            #expect(stored["history"]?.arrayValue?.first?["actor"]?.stringValue == "user ada")

            let draft = try await client.get(Self.base + "/" + id)
            #expect(draft.status == 200)
            #expect(draft.body.contains(#"id="start-rollout""#) && !draft.body.contains(#"id="pause-rollout""#))
            #expect(draft.body.contains(#"id="step-3""#) && draft.body.contains("event rate of &quot;purchase&quot;"))

            #expect(try await client.post(Self.base + "/\(id)/start", [], csrf: csrf).location == Self.base + "/\(id)?done=start")
            #expect(try await Self.plan(server, id)["status"]?.stringValue == "running")
            let settings = await server.server.admin.state.environments["production"]?.settings["search"]
            #expect(settings?.targeting != nil)
            let running = try await client.get(Self.base + "/" + id + "?done=start")
            #expect(running.body.contains(#"<tr id="step-1" class="current" aria-current="step">"#))
            #expect(running.body.contains("step 1 of 3 (10 %)"))
            #expect(running.body.contains(#"id="pause-rollout""#) && running.body.contains(#"id="rollback-rollout""#))
            #expect(!running.body.contains(#"id="start-rollout""#))
            let flagPage = try await client.get("/console/flags/search?environment=production")
            #expect(flagPage.body.contains(#"id="active-rollout""#) && flagPage.body.contains(Self.base + "/" + id))
            let list = try await client.get(Self.base)
            #expect(list.body.contains(#"id="rollout-\#(id)""#) && list.body.contains("step 1 of 3 (10 %)"))

            #expect(try await client.post(Self.base + "/\(id)/pause", [("reason", "looking")], csrf: csrf).status == 303)
            #expect(try await Self.plan(server, id)["status"]?.stringValue == "paused")
            #expect(try await client.post(Self.base + "/\(id)/resume", [], csrf: csrf).status == 303)
            #expect(try await Self.plan(server, id)["status"]?.stringValue == "running")

            // A rollback needs a reason: refused in the page's alert, nothing changed.
            let noReason = try await client.post(Self.base + "/\(id)/rollback", [("reason", "  ")], csrf: csrf)
            #expect(noReason.status == 400)
            #expect(noReason.body.contains(#"role="alert""#) && noReason.body.contains("reason: give a reason"))
            #expect(try await Self.plan(server, id)["status"]?.stringValue == "running")

            let reason = "<b>crashes</b> on login"
            #expect(try await client.post(Self.base + "/\(id)/rollback", [("reason", reason)], csrf: csrf).status == 303)
            let rolledBack = try await Self.plan(server, id)
            #expect(rolledBack["status"]?.stringValue == "rolled_back")
            #expect(rolledBack["history"]?.arrayValue?.last?["comment"]?.stringValue == reason)
            #expect(await server.server.admin.state.environments["production"]?.settings["search"]?.targeting == nil)
            let page = try await client.get(Self.base + "/" + id)
            #expect(page.body.contains("&lt;b&gt;crashes&lt;/b&gt; on login") && !page.body.contains(reason))
            #expect(page.body.contains(#"id="start-rollout">Start again"#))
            #expect(page.body.contains("/console/history?flag=search&amp;environment=production#change-production-"))
            let audit = try await server.server.admin.store.audit(environment: "production", key: "search", limit: 10)
            #expect(audit.first?.reason?.contains("<b>crashes</b> on login") == true)
        }
    }

    @Test
    func consoleActionsChangeThePlanAsTheAdminAPIDoes() async throws {
        // Without the server's rollout executor: its tick takes a lease on a running plan (a new
        // version), and a pause or resume saved in between is answered 409 (nothing applied; the
        // caller retries), which would make the API and the console differ by chance. A rollback
        // records itself anyway (`RolloutRollbackRaceTests`).
        try await TestServer.withConsole(rolloutTickInterval: nil) { server in
            try await server.booleanFlag("one", defaultVariant: "off")
            try await server.booleanFlag("two", defaultVariant: "off")
            let viaAPI = try await Self.createByAPI(server, flag: "one")
            let viaConsole = try await Self.createByAPI(server, flag: "two")
            try await server.consoleUser("eddie", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("eddie")
            let csrf = try await client.csrf()
            // Each action, then one the plan's status refuses (409 from both).
            for action in ["start", "pause", "resume", "resume", "rollback", "pause", "start"] {
                let api = try await server.request(.POST, Self.api + "/\(viaAPI)/\(action)", token: server.adminToken, body: #"{"comment": "why"}"#)
                let console = try await client.post(Self.base + "/\(viaConsole)/\(action)", [("reason", "why")], csrf: csrf)
                if api.status == 200 {
                    #expect(console.status == 303, "\(action)")
                } else {
                    #expect(console.status == api.status, "\(action)")
                    #expect(console.body.contains(#"id="problems""#) && console.body.contains("only a"), "\(action)")
                }
                let a = try await Self.plan(server, viaAPI)
                let b = try await Self.plan(server, viaConsole)
                #expect(a["status"] == b["status"], "\(action)")
                #expect(a["currentStep"] == b["currentStep"], "\(action)")
                #expect(a["history"]?.arrayValue?.map { $0["action"] } == b["history"]?.arrayValue?.map { $0["action"] }, "\(action)")
            }
            #expect(try await Self.plan(server, viaConsole)["status"]?.stringValue == "running")
            let missing = try await client.post(Self.base + "/ro-missing/start", [], csrf: csrf)
            #expect(missing.status == 404)
        }
    }

    @Test
    func aViewerSeesNoButtonsAndCannotPost() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("search", defaultVariant: "off")
            let id = try await Self.createByAPI(server, flag: "search")
            try await server.consoleUser("vera", role: .viewer)
            let client = ConsoleClient(server)
            try await client.signIn("vera")
            let list = try await client.get(Self.base)
            #expect(list.status == 200 && list.body.contains(#"id="rollout-\#(id)""#))
            #expect(!list.body.contains(#"id="new-rollout-link""#))
            let page = try await client.get(Self.base + "/" + id)
            #expect(page.status == 200)
            #expect(!page.body.contains(#"id="rollout-actions""#) && !page.body.contains("start-rollout"))
            #expect(try await client.get(Self.base + "/new").status == 403)
            let csrf = try #require(page.csrf)
            #expect(try await client.post(Self.base + "/\(id)/start", [], csrf: csrf).status == 403)
            #expect(try await client.post(Self.base + "/new", Self.form, csrf: csrf).status == 403)
            #expect(try await Self.plan(server, id)["status"]?.stringValue == "draft")
            #expect(try await server.request(.GET, Self.api, token: server.adminToken).json?.arrayValue?.count == 1)
        }
    }

    @Test
    func formsWithoutTheCSRFTokenAndVisitorsWithoutASessionAreRefused() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("search", defaultVariant: "off")
            let id = try await Self.createByAPI(server, flag: "search")
            let anonymous = ConsoleClient(server)
            #expect(try await anonymous.get(Self.base).location == "/console/login")
            #expect(try await anonymous.get(Self.base + "/" + id).location == "/console/login")
            #expect(try await anonymous.get(Self.base + "/new").location == "/console/login")
            #expect(try await anonymous.post(Self.base + "/\(id)/start", []).status == 401)
            try await server.consoleUser("ada", role: .admin)
            let client = ConsoleClient(server)
            try await client.signIn("ada")
            #expect(try await client.post(Self.base + "/\(id)/start", []).status == 403)
            #expect(try await client.post(Self.base + "/\(id)/start", [], csrf: "forged").status == 403)
            #expect(try await client.post(Self.base + "/new", Self.form).status == 403)
            #expect(try await Self.plan(server, id)["status"]?.stringValue == "draft")
            #expect(try await server.request(.GET, Self.api, token: server.adminToken).json?.arrayValue?.count == 1)
        }
    }

    @Test
    func aTemplatePlanAndMarkupInTypedFieldsAreEscaped() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("search", defaultVariant: "off")
            let template = try await server.request(
                .PUT, "/admin/v1/rollout-templates/careful", token: server.adminToken,
                body: #"{"description": "<i>slow</i> & steady", "steps": [{"percent": 5, "durationSeconds": 60}, {"percent": 100, "durationSeconds": 60}], "guardrails": [{"metric": "error_rate", "tolerance": 0.002, "direction": "increase"}]}"#)
            #expect(template.status == 200, "\(template.body)")
            try await server.consoleUser("ada", role: .admin)
            let client = ConsoleClient(server)
            try await client.signIn("ada")
            let csrf = try await client.csrf()
            let form = try await client.get(Self.base + "/new")
            #expect(form.body.contains("careful: &lt;i&gt;slow&lt;/i&gt; &amp; steady") && !form.body.contains("<i>slow</i>"))

            let markup: [(String, String)] = [
                ("flag", "<script>alert(1)</script>"), ("oldVariant", "off"), ("newVariant", "on"), ("template", "careful"), ("steps", ""),
            ]
            let refused = try await client.post(Self.base + "/new", markup, csrf: csrf)
            #expect(refused.status == 400 || refused.status == 404)
            #expect(refused.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && !refused.body.contains("<script>alert(1)</script>"))

            let created = try await client.post(
                Self.base + "/new", [("flag", "search"), ("oldVariant", "off"), ("newVariant", "on"), ("template", "careful"), ("steps", "")],
                csrf: csrf)
            #expect(created.status == 303)
            let plans = try await server.request(.GET, Self.api, token: server.adminToken).json?.arrayValue ?? []
            #expect(plans.count == 1)
            #expect(plans.first?["template"]?.stringValue == "careful")
            #expect(plans.first?["steps"]?.arrayValue?.compactMap { $0["percent"]?.doubleValue } == [5, 100])
            #expect(plans.first?["guardrails"]?.arrayValue?.first?["metric"]?.stringValue == "error_rate")
            let missing = try await client.post(
                Self.base + "/new", [("flag", "search"), ("oldVariant", "off"), ("newVariant", "on"), ("template", "nope")], csrf: csrf)
            #expect(missing.status == 404 && missing.body.contains("rollout template &quot;nope&quot; does not exist"))
        }
    }

    @Test
    func aRegressionsNumbersAreShownAsThePlanRecordsThem() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("search", defaultVariant: "off")
            let store = try #require(server.server.admin.store as? any RolloutStore)
            let guardrail = RolloutGuardrail(metric: .crashRate, tolerance: 0.001, direction: .increase)
            let time = Date(timeIntervalSince1970: 1_800_000_000)
            var plan = RolloutPlan(
                id: "ro-regressed", flag: "search", environment: "production", oldVariant: "off", newVariant: "on",
                steps: [.init(percent: 10, durationSeconds: 60), .init(percent: 100, durationSeconds: 60)], guardrails: [guardrail],
                onRegression: .pause, salt: "salt", createdAt: time, actor: "test")
            let finding = try #require(guardrail.evaluate(old: (1000, 20), new: (1000, 80), oldVariant: "off", newVariant: "on", alpha: 0.05))
            #expect(finding.regression)
            plan.status = .paused
            plan.currentStep = 0
            plan.runStartedAt = time
            plan.lastEvaluatedAt = time.addingTimeInterval(300)
            plan.record(.init(
                action: .paused, actor: Rollouts.serverActor, time: time.addingTimeInterval(300), step: 0, percent: 10,
                comment: "regression: " + finding.summary, finding: finding))
            try await store.insertRolloutPlan(plan)

            try await server.consoleUser("vera", role: .viewer)
            let client = ConsoleClient(server)
            try await client.signIn("vera")
            let page = try await client.get(Self.base + "/ro-regressed")
            #expect(page.status == 200)
            #expect(page.body.contains("regression: crash rate (2027-01-15 08:05 UTC)"))
            #expect(page.body.contains("<th scope=\"row\">off</th><td>1000</td><td>20</td><td>2.00 %</td>"))
            #expect(page.body.contains("<th scope=\"row\">on</th><td>1000</td><td>80</td><td>8.00 %</td>"))
            #expect(page.body.contains("Difference +6.00 points; 95 % always-valid interval [\(ConsoleRoutes.points(finding.lower)), "))
            #expect(page.body.contains("lower bound \(ConsoleRoutes.points(finding.lower)). Verdict: <strong>regression</strong>"))
            let list = try await client.get(Self.base)
            #expect(list.body.contains("regression: crash rate"))
        }
    }

    @Test
    func stepsAndDurationsParse() throws {
        #expect(try ConsoleRoutes.parseSteps("5 1h, 25% 30m; 50 2d\n100").get() == [
            .init(percent: 5, durationSeconds: 3600), .init(percent: 25, durationSeconds: 1800), .init(percent: 50, durationSeconds: 172_800),
            .init(percent: 100, durationSeconds: 1),
        ])
        #expect(throws: ConsoleRoutes.FormProblems.self) { try ConsoleRoutes.parseSteps("5, 100").get() }
        #expect(throws: ConsoleRoutes.FormProblems.self) { try ConsoleRoutes.parseSteps("5 1y, 100").get() }
        #expect(ConsoleRoutes.parseDuration("90") == 90 && ConsoleRoutes.parseDuration("2min") == 120 && ConsoleRoutes.parseDuration("-1") == nil)
        #expect(ConsoleRoutes.durationText(5400) == "1 h 30 min" && ConsoleRoutes.durationText(45) == "45 s")
    }
}
