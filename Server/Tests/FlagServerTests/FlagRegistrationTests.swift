import FlagEvaluation
import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// `POST /admin/v1/flags`: many definitions registered atomically, settings untouched.
struct FlagRegistrationTests {
    static let body = #"""
        {"flags": [
          {"key": "search", "type": "boolean", "variants": {"on": true, "off": false}, "defaultVariant": "on",
           "metadata": {"owner": "discovery"}},
          {"key": "page_size", "type": "integer", "variants": {"default": 20}, "defaultVariant": "default",
           "metadata": {"requires": ["search"], "phase": 2}}
        ], "reason": "release 3.1"}
        """#

    @Test
    func registersAllTogetherAndNewFlagsStartOffOnTheirDefault() async throws {
        try await TestServer.with { server in
            let dryRun = try await server.request(.POST, "/admin/v1/flags?dryRun=true", token: server.adminToken, body: Self.body)
            #expect(dryRun.status == 200, "\(dryRun.body)")
            #expect(dryRun.json?["dryRun"] == true)
            #expect(dryRun.json?["changes"]?.arrayValue?.count == 6)
            #expect(dryRun.json?["problems"] == [])
            #expect(try await server.request(.GET, "/admin/v1/flags", token: server.adminToken).json == [])

            let write = try await server.request(.POST, "/admin/v1/flags", token: server.adminToken, body: Self.body)
            #expect(write.status == 200, "\(write.body)")
            #expect(write.json?["revisions"] == ["development": 2, "production": 2, "staging": 2])
            let flag = try await server.request(.GET, "/admin/v1/environments/staging/flags/search", token: server.adminToken)
            #expect(flag.json?["flag"]?["defaultVariant"] == "on")
            #expect(flag.json?["flag"]?["metadata"]?["owner"] == "discovery")
            #expect(flag.json?["settings"] == ["enabled": false, "defaultVariant": "on"])
        }
    }

    @Test
    func reRegisteringKeepsSettingsUnlessReset() async throws {
        try await TestServer.with { server in
            #expect(try await server.request(.POST, "/admin/v1/flags", token: server.adminToken, body: Self.body).status == 200)
            let enable = try await server.request(
                .PUT, "/admin/v1/environments/production/flags/search/settings", token: server.adminToken,
                body: #"{"enabled": true, "defaultVariant": "off", "targeting": {"if": [true, "on", null]}}"#)
            #expect(enable.status == 200)
            let renamed = Self.body.replacingOccurrences(of: "discovery", with: "growth")
            #expect(try await server.request(.POST, "/admin/v1/flags", token: server.adminToken, body: renamed).status == 200)
            var flag = try await server.request(.GET, "/admin/v1/environments/production/flags/search", token: server.adminToken)
            #expect(flag.json?["flag"]?["metadata"]?["owner"] == "growth")
            #expect(flag.json?["settings"]?["enabled"] == true)
            #expect(flag.json?["settings"]?["defaultVariant"] == "off")

            let reset = renamed.replacingOccurrences(of: #""defaultVariant": "on","#, with: #""defaultVariant": "on", "resetSettings": true,"#)
            #expect(try await server.request(.POST, "/admin/v1/flags", token: server.adminToken, body: reset).status == 200)
            flag = try await server.request(.GET, "/admin/v1/environments/production/flags/search", token: server.adminToken)
            #expect(flag.json?["settings"] == ["enabled": false, "defaultVariant": "on"])
        }
    }

    /// Settings are written only where asked, and targeting is kept.
    @Test
    func settingsAreSetOnlyInTheNamedEnvironment() async throws {
        try await TestServer.with { server in
            #expect(try await server.request(.POST, "/admin/v1/flags", token: server.adminToken, body: Self.body).status == 200)
            let targeting = try await server.request(
                .PUT, "/admin/v1/environments/staging/flags/search/settings", token: server.adminToken,
                body: #"{"enabled": false, "defaultVariant": "on", "targeting": {"if": [true, "off", null]}}"#)
            #expect(targeting.status == 200)
            let asked = Self.body.replacingOccurrences(
                of: #""defaultVariant": "on","#,
                with: #""defaultVariant": "on", "settings": {"staging": {"enabled": true, "defaultVariant": "off"}},"#)
            let write = try await server.request(.POST, "/admin/v1/flags", token: server.adminToken, body: asked)
            #expect(write.status == 200, "\(write.body)")
            #expect(write.json?["revisions"] == ["staging": 4])
            let staging = try await server.request(.GET, "/admin/v1/environments/staging/flags/search", token: server.adminToken)
            #expect(staging.json?["settings"] == ["enabled": true, "defaultVariant": "off", "targeting": ["if": [true, "off", .null]]])
            let production = try await server.request(.GET, "/admin/v1/environments/production/flags/search", token: server.adminToken)
            #expect(production.json?["settings"] == ["enabled": false, "defaultVariant": "on"])

            let unknown = asked.replacingOccurrences(of: #""staging": {"#, with: #""qa": {"#)
            let refused = try await server.request(.POST, "/admin/v1/flags", token: server.adminToken, body: unknown)
            #expect(refused.status == 404, "\(refused.body)")
        }
    }

    @Test
    func anInvalidDefinitionRefusesTheWholeWrite() async throws {
        try await TestServer.with { server in
            let ghost = Self.body.replacingOccurrences(of: #"["search"]"#, with: #"["ghost"]"#)
            let dryRun = try await server.request(.POST, "/admin/v1/flags?dryRun=true", token: server.adminToken, body: ghost)
            #expect(dryRun.status == 200)
            #expect(dryRun.json?["problems"]?.arrayValue?.isEmpty == false)
            let write = try await server.request(.POST, "/admin/v1/flags", token: server.adminToken, body: ghost)
            #expect(write.status == 422, "\(write.body)")
            #expect(try await server.request(.GET, "/admin/v1/flags", token: server.adminToken).json == [])

            let badDefault = Self.body.replacingOccurrences(of: #""defaultVariant": "default""#, with: #""defaultVariant": "large""#)
            let refused = try await server.request(.POST, "/admin/v1/flags", token: server.adminToken, body: badDefault)
            #expect(refused.status == 422)
            #expect(
                refused.json?["error"]?["problems"]
                    == [["key": "page_size", "field": "flags[1].defaultVariant", "problem": #""large" is not one of the variants (default)"#]])
        }
    }

    @Test
    func needsAnAdminTokenForAllEnvironments() async throws {
        try await TestServer.with { server in
            let production = try await server.token(.admin, environment: "production")
            let reply = try await server.request(.POST, "/admin/v1/flags", token: production, body: Self.body)
            #expect(reply.status == 403)
        }
    }
}
