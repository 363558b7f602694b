import FlagEvaluation
import FlagManifest
import FlagServer
import Foundation
import NIOHTTP1
import Testing

struct ImportExportTests {
    static let document = #"""
        {
          "flags": {
            "checkout": {
              "state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
              "targeting": {"if": [{"$ref": "beta"}, "on", null]},
              "metadata": {"key": "checkout", "type": "boolean", "owner": "payments", "phase": 2}
            },
            "cues.page_size": {
              "state": "ENABLED", "variants": {"small": 20, "large": 50}, "defaultVariant": "large",
              "metadata": {"key": "cues.page_size", "type": "integer", "requires": "checkout"}
            }
          },
          "$evaluators": {"beta": {"ends_with": [{"var": "email"}, "@beta.example"]}}
        }
        """#

    @Test
    func aDryRunShowsTheDiffAndWritesNothing() async throws {
        try await TestServer.with { server in
            let dryRun = try await server.request(
                .POST, "/admin/v1/environments/staging/import?dryRun=true", token: server.adminToken, body: Self.document)
            #expect(dryRun.status == 200)
            #expect(dryRun.json?["dryRun"] == true)
            let staging = dryRun.json?["changes"]?.arrayValue?.filter { $0["environment"] == "staging" } ?? []
            #expect(staging.map { $0["key"] } == ["checkout", "cues.page_size", "beta"])
            #expect(dryRun.json?["problems"] == [])
            let environments = try await server.request(.GET, "/admin/v1/environments", token: server.adminToken)
            #expect(environments.json?.arrayValue?.allSatisfy { $0["revision"] == 1 } == true)
        }
    }

    @Test
    func anInvalidImportIsRefusedWhole() async throws {
        try await TestServer.with { server in
            let bad = Self.document.replacingOccurrences(of: #""defaultVariant": "large""#, with: #""defaultVariant": "huge""#)
            let reply = try await server.request(.POST, "/admin/v1/environments/staging/import", token: server.adminToken, body: bad)
            #expect(reply.status == 422)
            #expect(reply.json?["error"]?["problems"]?.arrayValue?.first?["key"] == "cues.page_size")
            let flags = try await server.request(.GET, "/admin/v1/flags", token: server.adminToken)
            #expect(flags.json == [])
        }
    }

    @Test
    func importThenExportRoundTripsInBothFormats() async throws {
        try await TestServer.with { server in
            let applied = try await server.request(
                .POST, "/admin/v1/environments/staging/import", token: server.adminToken, body: Self.document)
            #expect(applied.status == 200)
            #expect(applied.json?["revisions"]?["staging"] == 2)
            let exported = try await server.request(.GET, "/admin/v1/environments/staging/export", token: server.adminToken)
            #expect(exported.status == 200)

            // The export reads as a project manifest and as flagd definitions.
            let manifest = try ManifestReader().read(exported.body, file: "export")
            #expect(manifest.flags.map(\.key).sorted() == ["checkout", "cues.page_size"])
            let definitions = try FlagDefinitions.loadStrictly([FlagSource(name: "export", json: exported.body)])
            #expect(definitions["checkout"]?.hasTargeting == true)

            // Importing the export into another environment gives the same flags there.
            let again = try await server.request(
                .POST, "/admin/v1/environments/production/import?format=manifest", token: server.adminToken, body: exported.body)
            #expect(again.status == 200)
            let production = try await server.request(.GET, "/admin/v1/environments/production/export", token: server.adminToken)
            #expect(production.json?["flags"] == exported.json?["flags"])
            #expect(production.json?["$evaluators"] == exported.json?["$evaluators"])
        }
    }

    @Test
    func aManifestImportReportsManifestErrors() async throws {
        try await TestServer.with { server in
            let typo = Self.document.replacingOccurrences(of: #""owner": "payments""#, with: #""ownr": "payments""#)
            let reply = try await server.request(
                .POST, "/admin/v1/environments/staging/import?format=manifest", token: server.adminToken, body: typo)
            #expect(reply.status == 400)
            #expect(reply.json?["error"]?["message"]?.stringValue?.contains("ownr") == true)
        }
    }
}
