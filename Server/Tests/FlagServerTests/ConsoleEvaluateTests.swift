import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// The Evaluate playground and `POST /admin/v1/environments/{env}/evaluate`: every flag's
/// result for a context, explained step by step.
struct ConsoleEvaluateTests {
    static let rule = #"{"if": [{"starts_with": [{"var": "email"}, "beta"]}, "on", {"in": [{"var": "plan"}, ["pro", "team"]]}, "on", "off"]}"#

    @Test
    func theAdminAPIExplainsEveryFlagForAContext() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("checkout", targeting: Self.rule)
            try await server.booleanFlag("killed", enabled: false)
            let reply = try await server.request(
                .POST, "/admin/v1/environments/production/evaluate", token: server.adminToken,
                body: #"{"context": {"targetingKey": "u1", "email": "ada@x", "plan": "pro"}}"#)
            #expect(reply.status == 200)
            let flags = try #require(reply.json?["flags"]?.arrayValue)
            #expect(flags.map { $0["key"] } == ["checkout", "killed"])
            #expect(flags[0]["variant"] == "on")
            #expect(flags[0]["reason"] == "TARGETING_MATCH")
            #expect(flags[0]["steps"] == [
                ["rule": #"if {"starts_with":[{"var":"email"},"beta"]}"#, "result": "false", "decided": false],
                ["rule": #"if {"in":[{"var":"plan"},["pro","team"]]}"#, "result": #"true → "on""#, "decided": true],
            ])
            #expect(flags[1]["reason"] == "DISABLED")
            #expect(flags[1]["value"] == nil)
            #expect(flags[1]["steps"]?.arrayValue?.first?["rule"] == "the flag is off in production")

            let otherwise = try await server.request(
                .POST, "/admin/v1/environments/production/evaluate", token: server.adminToken, body: #"{"context": {"plan": "free"}}"#)
            #expect(otherwise.json?["flags"]?.arrayValue?.first?["steps"]?.arrayValue?.last == ["rule": "otherwise", "result": #""off""#, "decided": true])

            let bad = try await server.request(
                .POST, "/admin/v1/environments/production/evaluate", token: server.adminToken, body: #"{"context": {"targetingKey": 7}}"#)
            #expect(bad.status == 400)
            #expect(bad.body.contains("context.targetingKey: must be a string, got"))
            let missing = try await server.request(
                .POST, "/admin/v1/environments/nowhere/evaluate", token: server.adminToken, body: "{}")
            #expect(missing.status == 404)
        }
    }

    @Test
    func sensitiveValuesAreRedacted() async throws {
        try await TestServer.withConsole { server in
            let body = #"{"type": "string", "variants": {"key": "sk_live_123"}, "metadata": {"sensitive": true}}"#
            #expect(try await server.request(.PUT, "/admin/v1/flags/api-key", token: server.adminToken, body: body).status == 200)
            _ = try await server.request(
                .PUT, "/admin/v1/environments/production/flags/api-key/settings", token: server.adminToken,
                body: #"{"enabled": true, "defaultVariant": "key"}"#)
            let reply = try await server.request(
                .POST, "/admin/v1/environments/production/evaluate", token: server.adminToken, body: "{}")
            #expect(reply.json?["flags"]?.arrayValue?.first?["value"] == "<REDACTED>")
            #expect(!reply.body.contains("sk_live_123"))

            try await server.consoleUser("vera", role: .viewer)
            let client = ConsoleClient(server)
            try await client.signIn("vera")
            let page = try await client.get("/console/evaluate?environment=production&targetingKey=u1")
            #expect(page.status == 200)
            #expect(page.body.contains("&lt;REDACTED&gt;"))
            #expect(!page.body.contains("sk_live_123"))
        }
    }

    @Test
    func thePlaygroundShowsValueVariantReasonAndSteps() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("checkout", targeting: Self.rule)
            try await server.consoleUser("vera", role: .viewer)
            let client = ConsoleClient(server)
            try await client.signIn("vera")
            let empty = try await client.get("/console/evaluate")
            #expect(empty.status == 200)
            #expect(!empty.body.contains(#"<tr id="result-checkout">"#))

            let page = try await client.get(
                "/console/evaluate?environment=production&targetingKey=u1&attributes=%7B%22email%22%3A+%22beta%40x%22%7D")
            #expect(page.status == 200)
            #expect(page.body.contains(#"<tr id="result-checkout">"#))
            #expect(page.body.contains("<td><code>true</code></td><td>on</td><td>TARGETING_MATCH"))
            #expect(page.body.contains(#"<li class="decided"><code>if {&quot;starts_with&quot;:[{&quot;var&quot;:&quot;email&quot;},&quot;beta&quot;]}</code> → <code>true → &quot;on&quot;</code> <strong>(decides)</strong></li>"#))

            let bad = try await client.get("/console/evaluate?environment=production&attributes=%5B1%5D")
            #expect(bad.status == 400)
            #expect(bad.body.contains("attributes: must be a JSON object"))
        }
    }
}
