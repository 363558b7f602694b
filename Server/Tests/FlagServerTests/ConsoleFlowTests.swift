import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOHTTP1
import Testing

/// What an editor does in the console, checked against the stored state, the audit, the event
/// stream and OFREP: every change goes through ``FlagAdmin`` like the admin API's.
struct ConsoleFlowTests {
    @Test
    func createRolloutKillAndRevertAsAnEditor() async throws {
        try await TestServer.withConsole { server in
            try await server.consoleUser("erin", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("erin")
            let csrf = try await client.csrf()

            let created = try await client.post(
                "/console/new-flag",
                [("key", "new-checkout"), ("type", "boolean"), ("variants", #"{"on": true, "off": false}"#), ("owner", "payments"),
                 ("description", "The new checkout"), ("removalTarget", "2.4")], csrf: csrf)
            #expect(created.status == 303)
            #expect(created.location == "/console/flags/new-checkout?done=created")
            var state = await server.server.admin.state
            #expect(state.flags["new-checkout"]?.metadata.owner == "payments")
            #expect(state.environments["production"]?.settings["new-checkout"]?.enabled == false)

            // Turn it on, then roll it out to 10 %.
            let on = try await client.post(
                "/console/flags/new-checkout/environments/production/switch", [("enabled", "true"), ("reason", "launch")], csrf: csrf)
            #expect(on.status == 303)
            let notHundred = try await client.post(
                "/console/flags/new-checkout/environments/production/rollout",
                [("percent.on", "10"), ("percent.off", "80"), ("action", "save")], csrf: csrf)
            #expect(notHundred.status == 422)
            #expect(notHundred.body.contains("percentages must add up to 100, got 90"))
            let preview = try await client.post(
                "/console/flags/new-checkout/environments/production/rollout",
                [("percent.on", "10"), ("percent.off", "90"), ("action", "preview")], csrf: csrf)
            #expect(preview.status == 200)
            #expect(preview.body.contains("Preview over 1000 sample users"))
            state = await server.server.admin.state
            #expect(state.environments["production"]?.settings["new-checkout"]?.targeting == nil)
            let saved = try await client.post(
                "/console/flags/new-checkout/environments/production/rollout",
                [("percent.on", "10"), ("percent.off", "90"), ("action", "save"), ("reason", "10 % rollout")], csrf: csrf)
            #expect(saved.status == 303)
            state = await server.server.admin.state
            let rollout: JSONValue = ["fractional": [["off", 90], ["on", 10]]]
            #expect(state.environments["production"]?.settings["new-checkout"]?.targeting == rollout)

            // The kill switch reaches connected apps through the event stream.
            let token = try await server.token(.client, environment: "production")
            var events = EventStreamReader(try await server.openStream(token: token))
            let revision = state.environments["production"]?.revision ?? 0
            #expect(try await events.next(containing: "revision \(revision)") != nil)
            let noReason = try await client.post(
                "/console/flags/new-checkout/environments/production/switch", [("enabled", "false"), ("reason", " ")], csrf: csrf)
            #expect(noReason.status == 400)
            #expect(noReason.body.contains("the reason is required"))
            let killed = try await client.post(
                "/console/flags/new-checkout/environments/production/switch", [("enabled", "false"), ("reason", "incident 42")],
                csrf: csrf)
            #expect(killed.status == 303)
            #expect(try await events.nextEvent()?.id == String(revision + 1))
            let ofrep = try await server.request(
                .POST, "/ofrep/v1/evaluate/flags/new-checkout", token: token, body: #"{"context": {"targetingKey": "user-1"}}"#)
            #expect(ofrep.json?["reason"] == "DISABLED")

            // Audited as the user, with the reason; the history page shows the diff.
            let audit = try await server.server.admin.store.audit(environment: "production", key: "new-checkout", limit: 1)
            #expect(audit.first?.actor == "erin")
            #expect(audit.first?.reason == "incident 42")
            let history = try await client.get("/console/history?flag=new-checkout&environment=production&actor=erin")
            #expect(history.status == 200)
            #expect(history.body.contains("<code>settings.enabled</code></th><td class=\"before\"><code>true</code></td><td class=\"after\"><code>false</code>"))
            #expect(history.body.contains("Reason: incident 42"))

            // Revert to the rollout: a new revision, the flag serves the rollout again.
            let reverted = try await client.post(
                "/console/history/revert",
                [("environment", "production"), ("key", "new-checkout"), ("revision", String(revision))], csrf: csrf)
            #expect(reverted.status == 303)
            state = await server.server.admin.state
            #expect(state.environments["production"]?.settings["new-checkout"] == FlagSettings(enabled: true, defaultVariant: "on", targeting: rollout))
            #expect(state.environments["production"]?.revision == revision + 2)
            #expect(try await events.nextEvent()?.id == String(revision + 2))
            let last = try await server.server.admin.store.audit(environment: "production", key: "new-checkout", limit: 1)
            #expect(last.first?.reason == "revert \"new-checkout\" to revision \(revision)")
            #expect(last.first?.revertedTo == revision)
            let shown = try await client.get("/console/history?flag=new-checkout&environment=production")
            #expect(shown.body.contains("reverted new-checkout to revision \(revision) in production: on: 10 % rollout of on"))
            #expect(shown.body.contains(#"<span class="badge revert">revert</span>"#))

            // "Revert to this" on the newest entry: nothing to revert, nothing written.
            let newest = try await client.post(
                "/console/history/revert",
                [("environment", "production"), ("key", "new-checkout"), ("revision", String(revision + 2))], csrf: csrf)
            #expect(newest.status == 409)
            #expect(newest.body.contains("nothing to revert"))
            #expect(!newest.body.contains("Reverted: written as a new revision."))
            #expect(await server.server.admin.state.environments["production"]?.revision == revision + 2)
        }
    }

    @Test
    func theRuleEditorShowsTheValidatorsProblemsInlineAndKeepsTheDraft() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("checkout")
            try await server.consoleUser("erin", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("erin")
            let csrf = try await client.csrf()
            let path = "/console/flags/checkout/environments/production/settings"
            let bad = #"{"if": [{"nope": [1]}, "on", "off"]}"#
            let checked = try await client.post(path, [("enabled", "on"), ("defaultVariant", "on"), ("targeting", bad), ("action", "save")], csrf: csrf)
            #expect(checked.status == 422)
            #expect(checked.body.contains("Not saved:"))
            #expect(checked.body.contains("&quot;nope&quot;"))
            #expect(await server.server.admin.state.environments["production"]?.settings["checkout"]?.targeting == nil)

            let notJSON = try await client.post(path, [("defaultVariant", "on"), ("targeting", "{oops"), ("action", "check")], csrf: csrf)
            #expect(notJSON.status == 422)
            #expect(notJSON.body.contains("targeting: not JSON"))
            #expect(notJSON.body.contains("{oops</textarea>"))

            let good = #"{"if": [{"starts_with": [{"var": "email"}, "beta"]}, "on", "off"]}"#
            let ok = try await client.post(path, [("enabled", "on"), ("defaultVariant", "off"), ("targeting", good), ("action", "check")], csrf: csrf)
            #expect(ok.status == 200)
            #expect(ok.body.contains("The rule is valid. It is not saved yet."))

            // The live check the page's script makes: the same validator, as JSON.
            let live = try await client.send(
                .POST, "/console/api/environments/production/flags/checkout/validate",
                form: [("defaultVariant", "maybe"), ("targeting", "")], headers: [("X-CSRF-Token", csrf)])
            #expect(live.status == 200)
            let problems = try JSONValue(parsing: live.body)["problems"]
            #expect(problems?.arrayValue?.first?["field"] == "defaultVariant")
        }
    }

    @Test
    func theFlagsTableSearchesAndFilters() async throws {
        try await TestServer.withConsole { server in
            for (key, owner, phase, target) in [("alpha", "payments", 1, "2.0"), ("beta", "growth", 2, "3.1"), ("gamma", "payments", 3, "9")] {
                let body = JSONValue.object([
                    "type": "boolean", "variants": ["on": true, "off": false],
                    "metadata": ["owner": .string(owner), "phase": .int(phase), "removalTarget": .string(target), "description": .string("about \(key)")],
                ]).serialized()
                #expect(try await server.request(.PUT, "/admin/v1/flags/\(key)", token: server.adminToken, body: body).status == 200)
            }
            try await server.consoleUser("vera", role: .viewer)
            let client = ConsoleClient(server)
            try await client.signIn("vera")
            func rows(_ query: String) async throws -> [String] {
                let page = try await client.get("/console/flags?" + query)
                return ["alpha", "beta", "gamma"].filter { page.body.contains(#"<tr id="flag-\#($0)">"#) }
            }
            #expect(try await rows("") == ["alpha", "beta", "gamma"])
            #expect(try await rows("q=ABOUT+BE") == ["beta"])
            #expect(try await rows("owner=payments") == ["alpha", "gamma"])
            #expect(try await rows("phase=2") == ["beta"])
            #expect(try await rows("type=string") == [])
            #expect(try await rows("due=3.1") == ["alpha", "beta"])
        }
    }

    @Test
    func tokensValidateAndPreviewThroughTheAdminAPI() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("checkout")
            let validation = try await server.request(
                .POST, "/admin/v1/environments/production/flags/checkout/validate", token: server.adminToken,
                body: #"{"enabled": true, "defaultVariant": "on", "targeting": {"nope": [1]}}"#)
            #expect(validation.status == 200)
            #expect(validation.json?["problems"]?.arrayValue?.first?["field"] == "targeting")
            let preview = try await server.request(
                .POST, "/admin/v1/environments/production/flags/checkout/preview", token: server.adminToken,
                body: #"{"percentages": {"on": 25, "off": 75}, "targetingKeys": ["a", "b", "c", "d", "e", "f", "g", "h"]}"#)
            #expect(preview.status == 200)
            let counts = try #require(preview.json?["counts"])
            #expect((counts["on"]?.intValue ?? 0) + (counts["off"]?.intValue ?? 0) == 8)
            #expect(preview.json?["assignments"]?.arrayValue?.first?["targetingKey"] == "a")
            let refused = try await server.request(
                .POST, "/admin/v1/environments/production/flags/checkout/preview", token: server.adminToken,
                body: #"{"percentages": {"on": 25, "maybe": 75}}"#)
            #expect(refused.status == 422)
            #expect(refused.body.contains("rollout.maybe"))
            // Nothing was written.
            #expect(await server.server.admin.state.environments["production"]?.revision == 3)
        }
    }
}
