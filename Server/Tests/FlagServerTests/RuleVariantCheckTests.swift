import FlagEvaluation
import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// A rule that returns a variant the flag does not have is refused on every write path: the
/// settings API, `…/validate`, the console's live check and save, and imports (with their dry run).
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

    @Test
    func anImportAndItsDryRunRefuseIt() async throws {
        try await TestServer.with { server in
            let document = #"""
                {"flags": {"checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                  "targeting": \#(Self.typo)}}}
                """#
            let dryRun = try await server.request(
                .POST, "/admin/v1/environments/staging/import?dryRun=true", token: server.adminToken, body: document)
            #expect(dryRun.status == 200)
            #expect(dryRun.json?["problems"]?.arrayValue?.map { $0["problem"]?.stringValue } == [Self.problem])
            let applied = try await server.request(
                .POST, "/admin/v1/environments/staging/import", token: server.adminToken, body: document)
            #expect(applied.status == 422)
            #expect(try await server.request(.GET, "/admin/v1/flags", token: server.adminToken).json == [])
        }
    }
}
