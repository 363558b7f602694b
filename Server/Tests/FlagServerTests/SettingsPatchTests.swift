import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOHTTP1
import Testing

/// `PATCH …/settings` (JSON Merge Patch): the kill switch changes on/off alone; PUT replaces the
/// settings whole.
struct SettingsPatchTests {
    static let rule = #"{"if": [{"starts_with": [{"var": "email"}, "beta"]}, "on", "off"]}"#

    @Test
    func theKillSwitchKeepsTheRuleAndTheDefaultVariant() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout", defaultVariant: "off", targeting: Self.rule)
            let path = "/admin/v1/environments/production/flags/checkout/settings"
            let off = try await server.request(
                .PATCH, path, token: server.adminToken, body: #"{"enabled": false, "reason": "incident 42"}"#,
                headers: [("Content-Type", "application/merge-patch+json")])
            #expect(off.status == 200)
            let settings = await server.server.admin.state.environments["production"]?.settings["checkout"]
            #expect(settings == FlagSettings(enabled: false, defaultVariant: "off", targeting: try JSONValue(parsing: Self.rule)))
            let audit = try await server.request(.GET, "/admin/v1/environments/production/audit?key=checkout&limit=1", token: server.adminToken)
            #expect(audit.json?.arrayValue?.first?["reason"] == "incident 42")

            // Back on: the rule serves again.
            #expect(try await server.request(.PATCH, path, token: server.adminToken, body: #"{"enabled": true}"#).status == 200)
            let client = try await server.token(.client, environment: "production")
            let beta = try await server.request(
                .POST, "/ofrep/v1/evaluate/flags/checkout", token: client, body: #"{"context": {"targetingKey": "u", "email": "beta@x"}}"#)
            #expect(beta.json?["variant"] == "on")

            // null removes: the rule goes, the default variant stays.
            #expect(try await server.request(.PATCH, path, token: server.adminToken, body: #"{"targeting": null}"#).status == 200)
            #expect(await server.server.admin.state.environments["production"]?.settings["checkout"]
                == FlagSettings(enabled: true, defaultVariant: "off"))
        }
    }

    @Test
    func aPatchIsValidatedAndRefusalsChangeNothing() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout", defaultVariant: "off", targeting: Self.rule)
            let path = "/admin/v1/environments/production/flags/checkout/settings"
            let before = await server.server.admin.state
            let removed = try await server.request(.PATCH, path, token: server.adminToken, body: #"{"enabled": null}"#)
            #expect(removed.status == 400)
            #expect(removed.json?["error"]?["problems"]?.arrayValue?.first?["field"] == "enabled")
            let unknown = try await server.request(.PATCH, path, token: server.adminToken, body: #"{"defaultVariant": "maybe"}"#)
            #expect(unknown.status == 422)
            let field = try await server.request(.PATCH, path, token: server.adminToken, body: #"{"state": "DISABLED"}"#)
            #expect(field.status == 400)
            let form = try await server.request(
                .PATCH, path, token: server.adminToken, body: "enabled=false", headers: [("Content-Type", "text/plain")])
            #expect(form.status == 415)
            #expect(form.header("Accept-Patch") == "application/merge-patch+json")
            let missing = try await server.request(
                .PATCH, "/admin/v1/environments/production/flags/ghost/settings", token: server.adminToken, body: #"{"enabled": false}"#)
            #expect(missing.status == 404)
            #expect(await server.server.admin.state == before)
        }
    }

    @Test
    func mergePatchFollowsRFC7396() throws {
        // RFC 7396, appendix A (a selection).
        let cases: [(String, String, String)] = [
            (#"{"a":"b"}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
            (#"{"a":"b"}"#, #"{"b":"c"}"#, #"{"a":"b","b":"c"}"#),
            (#"{"a":"b"}"#, #"{"a":null}"#, #"{}"#),
            (#"{"a":"b","b":"c"}"#, #"{"a":null}"#, #"{"b":"c"}"#),
            (#"{"a":["b"]}"#, #"{"a":"c"}"#, #"{"a":"c"}"#),
            (#"{"a":{"b":"c"}}"#, #"{"a":{"b":"d","c":null}}"#, #"{"a":{"b":"d"}}"#),
            (#"{"a":[{"b":"c"}]}"#, #"{"a":[1]}"#, #"{"a":[1]}"#),
            (#"["a","b"]"#, #"["c","d"]"#, #"["c","d"]"#),
            (#"{"a":"b"}"#, #"["c"]"#, #"["c"]"#),
            (#"{"e":null}"#, #"{"a":1}"#, #"{"e":null,"a":1}"#),
            (#"[1,2]"#, #"{"a":"b","c":null}"#, #"{"a":"b"}"#),
            (#"{}"#, #"{"a":{"bb":{"ccc":null}}}"#, #"{"a":{"bb":{}}}"#),
        ]
        for (target, patch, result) in cases {
            #expect(try JSONValue(parsing: target).merging(patch: JSONValue(parsing: patch)) == JSONValue(parsing: result), "\(target) + \(patch)")
        }
    }
}
