import FlagEvaluation
import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// A rule that returns a variant the flag does not have is refused on every interactive write
/// path: the settings API, `…/validate`, the console's live check and save. An import (and its
/// dry run) accepts it, as flagd loads such a file, and answers a warning naming the flag and the
/// name; later edits of that flag are not refused for it, but may not add another.
struct RuleVariantCheckTests {
    static let typo = #"{"if": [true, "onn", "off"]}"#
    static let problem = #"returns "onn" (at if[1]), which is not one of the variants (off, on)"#

    @Test
    func theSettingsAPIAndValidateRefuseIt() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout")
            let path = "/admin/v1/environments/production/flags/checkout"
            let put = try await server.request(
                .PUT, path + "/settings", token: server.adminToken,
                body: #"{"enabled": true, "defaultVariant": "off", "targeting": \#(Self.typo)}"#)
            #expect(put.status == 422)
            #expect(put.json?["error"]?["problems"]?.arrayValue?.first?["problem"]?.stringValue == Self.problem)
            #expect(await server.server.admin.state.environments["production"]?.settings["checkout"]?.targeting == nil)

            let validate = try await server.request(
                .POST, path + "/validate", token: server.adminToken,
                body: #"{"enabled": true, "defaultVariant": "off", "targeting": \#(Self.typo)}"#)
            #expect(validate.status == 200)
            #expect(validate.json?["problems"]?.arrayValue?.map { $0["field"] } == ["targeting"])

            // A segment changed under a rule that returns it is checked as well.
            #expect(try await server.request(
                .PUT, "/admin/v1/environments/production/segments/split", token: server.adminToken,
                body: #"{"rule": {"fractional": [["on", 50], ["off", 50]]}}"#).status == 200)
            #expect(try await server.request(
                .PUT, path + "/settings", token: server.adminToken,
                body: #"{"enabled": true, "defaultVariant": "off", "targeting": {"$ref": "split"}}"#).status == 200)
            let segment = try await server.request(
                .PUT, "/admin/v1/environments/production/segments/split", token: server.adminToken,
                body: #"{"rule": {"fractional": [["on", 50], ["blue", 50]]}}"#)
            #expect(segment.status == 422)
            #expect(segment.body.contains(#"returns \"blue\""#))
        }
    }

    @Test
    func theConsoleLiveCheckAndSaveRefuseIt() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("checkout")
            try await server.consoleUser("editor", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("editor")
            let csrf = try await client.csrf()
            let live = try await client.send(
                .POST, "/console/api/environments/production/flags/checkout/validate",
                form: [("defaultVariant", "off"), ("targeting", Self.typo)], headers: [("X-CSRF-Token", csrf)])
            #expect(live.status == 200)
            #expect(try JSONValue(parsing: live.body)["problems"]?.arrayValue?.first?["problem"]?.stringValue == Self.problem)
            let saved = try await client.post(
                "/console/flags/checkout/environments/production/settings",
                [("enabled", "on"), ("defaultVariant", "off"), ("targeting", Self.typo), ("action", "save")], csrf: csrf)
            #expect(saved.status == 422)
            #expect(!saved.body.contains("The rule is valid"))
            #expect(await server.server.admin.state.environments["production"]?.settings["checkout"]?.targeting == nil)
        }
    }

    /// flagd's own test files have such names in branches no context reaches
    /// (`{"if": [{"ends_with": [{"var": "id"}, 3]}, "fail", "none"]}`).
    static let unreachable = #"""
        {"flags": {"checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
          "targeting": {"if": [{"==": [{"var": "plan"}, "pro"]}, "on", {"if": [{"ends_with": [{"var": "id"}, 3]}, "fail", "off"]}]}}}}
        """#
    static let warning: JSONValue = [
        "environment": "staging", "key": "checkout", "field": "targeting",
        "problem": #"returns "fail" (at if[2] › if[1]), which is not one of the variants (off, on); an evaluation that reaches it answers GENERAL"#,
    ]

    @Test
    func anImportAndItsDryRunAcceptItWithAWarning() async throws {
        try await TestServer.with { server in
            let warning = Self.warning
            let dryRun = try await server.request(
                .POST, "/admin/v1/environments/staging/import?dryRun=true", token: server.adminToken, body: Self.unreachable)
            #expect(dryRun.status == 200)
            #expect(dryRun.json?["problems"] == [])
            #expect(dryRun.json?["warnings"] == [warning])
            let applied = try await server.request(
                .POST, "/admin/v1/environments/staging/import", token: server.adminToken, body: Self.unreachable)
            #expect(applied.status == 200, "\(applied.body)")
            #expect(applied.json?["warnings"] == [warning])
            #expect(await server.server.admin.state.environments["staging"]?.settings["checkout"]?.targeting != nil)

            // Served as flagd serves it: the branches that are reached evaluate.
            let client = try await server.token(.client, environment: "staging")
            let pro = try await server.request(
                .POST, "/ofrep/v1/evaluate/flags/checkout", token: client, body: #"{"context": {"targetingKey": "u1", "plan": "pro"}}"#)
            #expect(pro.json?["variant"] == "on" && pro.json?["value"] == true, "\(pro.body)")
            let free = try await server.request(
                .POST, "/ofrep/v1/evaluate/flags/checkout", token: client, body: #"{"context": {"targetingKey": "u1", "id": "a3"}}"#)
            #expect(free.json?["variant"] == "off", "\(free.body)")

            // A name that is reached fails that evaluation, as the warning says (and as in flagd).
            let reached = try await server.request(
                .POST, "/admin/v1/environments/production/import", token: server.adminToken,
                body: #"{"flags": {"banner": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off", "targeting": {"if": [{"==": [{"var": "plan"}, "gold"]}, "gold", "off"]}}}}"#)
            #expect(reached.status == 200)
            #expect(reached.json?["warnings"]?.arrayValue?.map { $0["problem"]?.stringValue } == [
                #"returns "gold" (at if[1]), which is not one of the variants (off, on); an evaluation that reaches it answers GENERAL"#
            ])
            let production = try await server.token(.client, environment: "production")
            let gold = try await server.request(
                .POST, "/ofrep/v1/evaluate/flags/banner", token: production, body: #"{"context": {"targetingKey": "u1", "plan": "gold"}}"#)
            #expect(gold.json?["errorCode"] == "GENERAL", "\(gold.body)")

            // An import without such a name answers no warnings at all, as before.
            let clean = try await server.request(
                .POST, "/admin/v1/environments/production/import", token: server.adminToken,
                body: #"{"flags": {"search": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off"}}}"#)
            #expect(clean.status == 200)
            #expect(clean.json?["warnings"] == nil)
        }
    }

    /// After such an import, the flag's settings can still be changed (turning it on, its default
    /// variant) without touching the rule; a rule that adds another such name is refused, and so
    /// is a segment change that adds one.
    @Test
    func editsAfterTheImportMayKeepTheNameButNotAddOne() async throws {
        try await TestServer.with { server in
            #expect(try await server.request(
                .POST, "/admin/v1/environments/staging/import", token: server.adminToken, body: Self.unreachable).status == 200)
            let path = "/admin/v1/environments/staging/flags/checkout"
            let rule = #"{"if": [{"==": [{"var": "plan"}, "pro"]}, "on", {"if": [{"ends_with": [{"var": "id"}, 3]}, "fail", "off"]}]}"#
            let kept = try await server.request(
                .PUT, path + "/settings", token: server.adminToken,
                body: #"{"enabled": false, "defaultVariant": "on", "targeting": \#(rule)}"#)
            #expect(kept.status == 200, "\(kept.body)")
            let validate = try await server.request(
                .POST, path + "/validate", token: server.adminToken,
                body: #"{"enabled": true, "defaultVariant": "off", "targeting": \#(rule)}"#)
            #expect(validate.json?["problems"] == [], "\(validate.body)")

            let added = #"{"if": [{"==": [{"var": "plan"}, "pro"]}, "onn", {"if": [{"ends_with": [{"var": "id"}, 3]}, "fail", "off"]}]}"#
            let refused = try await server.request(
                .PUT, path + "/settings", token: server.adminToken,
                body: #"{"enabled": true, "defaultVariant": "off", "targeting": \#(added)}"#)
            #expect(refused.status == 422)
            #expect(refused.json?["error"]?["problems"]?.arrayValue?.map { $0["problem"]?.stringValue } == [
                #"returns "onn" (at if[1]), which is not one of the variants (off, on)"#
            ])
            #expect(await server.server.admin.state.environments["staging"]?.settings["checkout"]?.defaultVariant == "on")

            // A definition change that drops a variant the rule returns adds one too.
            let dropped = try await server.request(
                .PUT, "/admin/v1/flags/checkout", token: server.adminToken, body: #"{"type": "boolean", "variants": {"off": false}}"#)
            #expect(dropped.status == 422)
            #expect(dropped.body.contains(#"returns \"on\" (at if[1])"#), "\(dropped.body)")

            // An import warns about the rules of the environment it writes only, and may not make
            // another environment's rule return a name the flag loses.
            let production = try await server.request(
                .POST, "/admin/v1/environments/production/import", token: server.adminToken, body: Self.unreachable)
            #expect(production.status == 200, "\(production.body)")
            #expect(production.json?["warnings"]?.arrayValue?.map { $0["environment"] } == ["production"])
            let narrowed = try await server.request(
                .POST, "/admin/v1/environments/development/import", token: server.adminToken,
                body: #"{"flags": {"checkout": {"state": "ENABLED", "variants": {"off": false}, "defaultVariant": "off"}}}"#)
            #expect(narrowed.status == 422)
            let problems = narrowed.json?["error"]?["problems"]?.arrayValue ?? []
            #expect(problems.contains {
                $0["environment"] == "staging" && $0["problem"]?.stringValue?.hasPrefix(#"returns "on" (at if[1])"#) == true
            }, "\(narrowed.body)")
        }
    }
}
