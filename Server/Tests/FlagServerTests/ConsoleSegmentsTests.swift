import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// The console's segment pages and the rule builder's server side: segments listed with who uses
/// them, created and edited through ``FlagAdmin``, deletion refused while a rule uses one; the
/// live preview the builder refreshes; and the data the flag page gives the builder.
struct ConsoleSegmentsTests {
    static let beta: JSONValue = ["ends_with": [["var": "email"], "@beta.example"]]

    @Test
    func segmentsAreCreatedEditedListedWithTheirUsersAndDeletedOnlyWhenUnused() async throws {
        try await TestServer.withConsole { server in
            try await server.consoleUser("erin", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("erin")
            let csrf = try await client.csrf()

            let empty = try await client.get("/console/segments?environment=staging")
            #expect(empty.status == 200)
            #expect(empty.body.contains("No segments in staging yet."))
            #expect(empty.body.contains(#"data-rule-builder="segment""#))

            let created = try await client.post(
                "/console/segments/production", [("key", "beta"), ("rule", Self.beta.serialized()), ("reason", "beta testers")], csrf: csrf)
            #expect(created.status == 303)
            #expect(created.location == "/console/segments/production/beta?done=created")
            var state = await server.server.admin.state
            #expect(state.environments["production"]?.segments["beta"] == Self.beta)
            #expect(state.environments["staging"]?.segments["beta"] == nil)
            let again = try await client.post(
                "/console/segments/production", [("key", "beta"), ("rule", #"{"==": [1, 1]}"#)], csrf: csrf)
            #expect(again.status == 422)
            #expect(again.body.contains("a segment &quot;beta&quot; exists already in production"))

            try await server.booleanFlag("checkout", defaultVariant: "off", targeting: #"{"if": [{"$ref": "beta"}, "on", null]}"#)
            let list = try await client.get("/console/segments?environment=production")
            #expect(list.body.contains(#"<a href="/console/segments/production/beta">beta</a>"#))
            #expect(list.body.contains(#"<a href="/console/flags/checkout?environment=production">checkout</a>"#))
            let page = try await client.get("/console/segments/production/beta")
            #expect(page.status == 200)
            #expect(page.body.contains(#"flag <a href="/console/flags/checkout?environment=production">checkout</a>"#))
            #expect(page.body.contains("Deleting is refused while a flag or a segment uses it."))

            // Edited: the flag using it serves the new condition.
            let edited: JSONValue = ["ends_with": [["var": "email"], "@example.com"]]
            let saved = try await client.post(
                "/console/segments/production/beta", [("rule", edited.serialized()), ("reason", "everyone at example.com")], csrf: csrf)
            #expect(saved.status == 303)
            #expect(saved.location == "/console/segments/production/beta?done=saved")
            state = await server.server.admin.state
            #expect(state.environments["production"]?.segments["beta"] == edited)
            let token = try await server.token(.client, environment: "production")
            let served = try await server.request(
                .POST, "/ofrep/v1/evaluate/flags/checkout", token: token, body: #"{"context": {"email": "a@example.com"}}"#)
            #expect(served.json?["value"] == true)

            // In use: the server refuses, the page names the flag, nothing changes.
            let refused = try await client.post("/console/segments/production/beta/delete", [("reason", "cleanup")], csrf: csrf)
            #expect(refused.status == 422)
            #expect(refused.body.contains("Not deleted: &quot;beta&quot; is used by flag checkout. Change those rules first."))
            state = await server.server.admin.state
            #expect(state.environments["production"]?.segments["beta"] == edited)

            // Unused once the flag's rule no longer names it: deleted.
            let settings = try await server.request(
                .PUT, "/admin/v1/environments/production/flags/checkout/settings", token: server.adminToken,
                body: #"{"enabled": true, "defaultVariant": "off"}"#)
            #expect(settings.status == 200)
            #expect(try await client.get("/console/segments/production/beta").body.contains("No flag or segment in production uses it"))
            let deleted = try await client.post("/console/segments/production/beta/delete", [("reason", "cleanup")], csrf: csrf)
            #expect(deleted.status == 303)
            #expect(deleted.location == "/console/segments?environment=production&done=deleted")
            state = await server.server.admin.state
            #expect(state.environments["production"]?.segments["beta"] == nil)
            #expect(try await client.get("/console/segments/production/beta").status == 404)

            // Each change is audited under the editor's name, with the reason.
            let audit = try await server.request(.GET, "/admin/v1/environments/production/audit", token: server.adminToken)
            let segmentEntries = (audit.json?.arrayValue ?? []).filter { $0["subject"] == "segment" }
            #expect(segmentEntries.count == 3)
            #expect(segmentEntries.allSatisfy { $0["actor"] == "erin" })
        }
    }

    @Test
    func aSegmentUsedByAnotherSegmentIsNotDeletedEither() async throws {
        try await TestServer.withConsole { server in
            try await server.consoleUser("erin", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("erin")
            let csrf = try await client.csrf()
            #expect(try await client.post("/console/segments/production", [("key", "beta"), ("rule", Self.beta.serialized())], csrf: csrf).status == 303)
            let staff: JSONValue = ["and": [["$ref": "beta"], ["==": [["var": "staff"], true]]]]
            #expect(try await client.post("/console/segments/production", [("key", "beta-staff"), ("rule", staff.serialized())], csrf: csrf).status == 303)
            let page = try await client.get("/console/segments/production/beta")
            #expect(page.body.contains(#"segment <a href="/console/segments/production/beta-staff">beta-staff</a>"#))
            let refused = try await client.post("/console/segments/production/beta/delete", [], csrf: csrf)
            #expect(refused.status == 422)
            #expect(refused.body.contains("is used by segment beta-staff"))
            #expect(await server.server.admin.state.environments["production"]?.segments["beta"] == Self.beta)
        }
    }

    @Test
    func badSegmentsAreRefusedWithTheirProblemAndKeepWhatWasTyped() async throws {
        try await TestServer.withConsole { server in
            try await server.consoleUser("erin", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("erin")
            let csrf = try await client.csrf()
            let notJSON = try await client.post("/console/segments/production", [("key", "beta"), ("rule", #"{"==": [1, "#)], csrf: csrf)
            #expect(notJSON.status == 422)
            #expect(notJSON.body.contains("rule: not JSON"))
            #expect(notJSON.body.contains(#"{&quot;==&quot;: [1, </textarea>"#))
            let unknownOperator = try await client.post(
                "/console/segments/production", [("key", "beta"), ("rule", #"{"nope": [1]}"#)], csrf: csrf)
            #expect(unknownOperator.status == 422)
            #expect(unknownOperator.body.contains("nope"))
            let missing = try await client.post(
                "/console/segments/production", [("key", "beta"), ("rule", #"{"$ref": "nowhere"}"#)], csrf: csrf)
            #expect(missing.status == 422)
            let empty = try await client.post("/console/segments/production", [("key", "beta"), ("rule", " ")], csrf: csrf)
            #expect(empty.status == 422)
            #expect(empty.body.contains("rule: a segment needs a condition"))
            let badKey = try await client.post("/console/segments/production", [("key", "no spaces"), ("rule", #"{"==": [1, 1]}"#)], csrf: csrf)
            #expect(badKey.status == 422)
            #expect(await server.server.admin.state.environments["production"]?.segments.isEmpty == true)
            #expect(try await client.post("/console/segments/nowhere", [("key", "beta"), ("rule", #"{"==": [1, 1]}"#)], csrf: csrf).status == 404)
            #expect(try await client.get("/console/segments/production/nothing").status == 404)
        }
    }

    @Test
    func segmentFormsNeedTheCSRFTokenAndAnEditor() async throws {
        try await TestServer.withConsole { server in
            try await server.consoleUser("erin", role: .editor)
            try await server.consoleUser("vera", role: .viewer)
            let editor = ConsoleClient(server)
            try await editor.signIn("erin")
            let csrf = try await editor.csrf()
            #expect(try await editor.post("/console/segments/production", [("key", "beta"), ("rule", Self.beta.serialized())], csrf: "wrong").status == 403)
            #expect(try await editor.post("/console/segments/production", [("key", "beta"), ("rule", Self.beta.serialized())]).status == 403)
            #expect(try await editor.post("/console/segments/production", [("key", "beta"), ("rule", Self.beta.serialized())], csrf: csrf).status == 303)
            #expect(try await editor.post("/console/segments/production/beta", [("rule", #"{"==": [1, 1]}"#)], csrf: "wrong").status == 403)
            #expect(try await editor.post("/console/segments/production/beta/delete", [], csrf: "wrong").status == 403)

            let viewer = ConsoleClient(server)
            try await viewer.signIn("vera")
            let viewerCSRF = try await viewer.csrf()
            #expect(try await viewer.post("/console/segments/production", [("key", "other"), ("rule", #"{"==": [1, 1]}"#)], csrf: viewerCSRF).status == 403)
            #expect(try await viewer.post("/console/segments/production/beta", [("rule", #"{"==": [1, 1]}"#)], csrf: viewerCSRF).status == 403)
            #expect(try await viewer.post("/console/segments/production/beta/delete", [], csrf: viewerCSRF).status == 403)
            let page = try await viewer.get("/console/segments/production/beta")
            #expect(page.status == 200)
            #expect(!page.body.contains(#"id="save-segment""#))
            #expect(!page.body.contains(#"id="delete-segment""#))
            let state = await server.server.admin.state
            #expect(state.environments["production"]?.segments == ["beta": Self.beta])
            // Signed out: the pages send to the sign-in page.
            #expect(try await ConsoleClient(server).get("/console/segments").location == "/console/login")
        }
    }

    @Test
    func markupInASegmentIsEscaped() async throws {
        try await TestServer.withConsole { server in
            let rule: JSONValue = ["==": [["var": "name"], "</textarea><script>alert(1)</script>"]]
            let put = try await server.request(
                .PUT, "/admin/v1/environments/production/segments/odd", token: server.adminToken,
                body: JSONValue.object(["rule": rule]).serialized())
            #expect(put.status == 200)
            try await server.consoleUser("erin", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("erin")
            for path in ["/console/segments", "/console/segments/production/odd", "/console/flags"] {
                let page = try await client.get(path)
                #expect(page.status == 200, "\(path)")
                #expect(!page.body.contains("<script>alert"), "\(path)")
            }
            #expect(try await client.get("/console/segments/production/odd").body.contains("&lt;/textarea&gt;&lt;script&gt;alert(1)&lt;/script&gt;"))
        }
    }

    @Test
    func theLivePreviewCountsWhatTheFormWouldServe() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("checkout", enabled: false, defaultVariant: "off")
            try await server.consoleUser("vera", role: .viewer)
            let client = ConsoleClient(server)
            try await client.signIn("vera")
            let csrf = try await client.csrf()
            let path = "/console/api/environments/production/flags/checkout/preview"
            let everyone = try await client.post(path, [("defaultVariant", "off"), ("targeting", #"{"if": [{"==": [{"var": "plan"}, "pro"]}, "on"]}"#)], csrf: csrf)
            #expect(everyone.status == 200)
            let answer = try JSONValue(parsing: everyone.body)
            #expect(answer["total"] == 1000)
            #expect(answer["enabled"] == false)
            #expect(answer["counts"] == ["off": 1000])
            let split = try JSONValue(parsing: try await client.post(
                path, [("enabled", "on"), ("defaultVariant", "off"), ("targeting", #"{"fractional": [["on", 1], ["off", 1]]}"#)], csrf: csrf).body)
            let on = split["counts"]?["on"]?.intValue ?? 0
            #expect(split["enabled"] == true)
            #expect((400...600).contains(on))
            #expect(on + (split["counts"]?["off"]?.intValue ?? 0) == 1000)
            let wrong = try JSONValue(parsing: try await client.post(
                path, [("defaultVariant", "off"), ("targeting", #"{"if": [true, "blue"]}"#)], csrf: csrf).body)
            #expect(wrong["total"] == 0)
            #expect(wrong["problems"]?.arrayValue?.first?["problem"]?.stringValue?.contains("\"blue\"") == true)
            let notJSON = try JSONValue(parsing: try await client.post(path, [("defaultVariant", "off"), ("targeting", "{")], csrf: csrf).body)
            #expect(notJSON["problems"]?.arrayValue?.first?["field"] == "targeting")
            #expect(try await client.post(path, [("defaultVariant", "off")], csrf: "wrong").status == 403)
            // Nothing was saved.
            #expect(await server.server.admin.state.environments["production"]?.settings["checkout"]?.targeting == nil)
        }
    }

    @Test
    func theFlagPageGivesTheBuilderItsVariantsAndSegmentsAndACheckShowsWhoGetsWhat() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("checkout", defaultVariant: "off")
            let segment = try await server.request(
                .PUT, "/admin/v1/environments/production/segments/beta", token: server.adminToken,
                body: JSONValue.object(["rule": Self.beta]).serialized())
            #expect(segment.status == 200)
            try await server.consoleUser("erin", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("erin")
            let csrf = try await client.csrf()
            let page = try await client.get("/console/flags/checkout?environment=production")
            #expect(page.body.contains(#"data-rule-builder="targeting" data-variants="[&quot;off&quot;,&quot;on&quot;]" data-segments="[&quot;beta&quot;]""#))
            #expect(page.body.contains(#"data-preview-url="/console/api/environments/production/flags/checkout/preview""#))
            #expect(page.body.contains(#"<script src="/console/assets/rule-builder.js" defer></script>"#))
            let script = try await client.get("/console/assets/rule-builder.js")
            #expect(script.status == 200)
            #expect(script.body.contains("FlagRuleModel"))
            #expect(try await client.get("/console/assets/rule-builder.css").status == 200)
            #expect(page.body.contains(#"href="/console/segments""#))

            // Without scripts, "Check" is where a valid rule's preview shows.
            let checked = try await client.post(
                "/console/flags/checkout/environments/production/settings",
                [("enabled", "on"), ("defaultVariant", "off"), ("targeting", #"{"fractional": [["on", 1], ["off", 1]]}"#), ("action", "check")],
                csrf: csrf)
            #expect(checked.status == 200)
            #expect(checked.body.contains("The rule is valid. It is not saved yet."))
            #expect(checked.body.contains("Preview over 1000 sample users (not saved)"))

            let newFlag = try await client.get("/console/new-flag")
            #expect(newFlag.body.contains("data-variant-rows"))
        }
    }
}
