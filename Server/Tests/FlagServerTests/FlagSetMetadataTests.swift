import FlagEvaluation
import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// An imported flag set's `metadata` is merged into each flag's (the flag's own keys win), as flagd
/// does; OFREP and the flagd file serve the same metadata; a dry run names every flag that would
/// be refused and why.
struct FlagSetMetadataTests {
    static let document = #"""
        {"metadata": {"flagSetId": "checkout", "team": "payments"},
         "flags": {
           "new-cart": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on", "metadata": {"team": "growth"}},
           "banner": {"state": "ENABLED", "variants": {"a": "A", "b": "B"}, "defaultVariant": "a",
                      "targeting": {"if": [{"in": ["@x", {"var": "email"}]}, "b", null]}}}}
        """#

    @Test
    func theFlagSetsMetadataIsServedWithEveryFlagOverOFREPAndInTheFlagdFile() async throws {
        try await TestServer.with { server in
            let imported = try await server.request(
                .POST, "/admin/v1/environments/production/import", token: server.adminToken, body: Self.document)
            #expect(imported.status == 200)
            let client = try await server.token(.server, environment: "production")
            let bulk = try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: client, body: #"{"context": {"email": "a@x"}}"#)
            var served: [String: JSONValue] = [:]
            for flag in bulk.json?["flags"]?.arrayValue ?? [] {
                if let key = flag["key"]?.stringValue { served[key] = flag["metadata"] }
            }
            #expect(served == [
                "new-cart": ["flagSetId": "checkout", "team": "growth"],
                "banner": ["flagSetId": "checkout", "team": "payments"],
            ])
            let single = try await server.request(.POST, "/ofrep/v1/evaluate/flags/banner", token: client, body: "{}")
            #expect(single.json?["metadata"] == served["banner"])

            // One truth: a flagd client loading the file sees the metadata OFREP serves.
            let file = try await server.request(.GET, "/flagd/v1/flags.json", token: client)
            let definitions = try FlagDefinitions.loadStrictly([FlagSource(name: "served", json: file.body)])
            #expect(definitions["new-cart"]?.metadata == served["new-cart"]?.objectValue)
            #expect(definitions["banner"]?.metadata == served["banner"]?.objectValue)
            #expect(file.json?["metadata"] == nil)

            // The export keeps it per flag, so exporting and importing again changes nothing.
            let exported = try await server.request(.GET, "/admin/v1/environments/production/export", token: server.adminToken)
            let again = try await server.request(
                .POST, "/admin/v1/environments/production/import?dryRun=true", token: server.adminToken, body: exported.body)
            #expect(again.json?["changes"] == [])
            #expect(again.json?["problems"] == [])
        }
    }

    /// A manifest's top-level metadata names the manifest and stays out of its flags, whose
    /// metadata the manifest format restricts: its export imports again as a manifest (merged,
    /// `flagSetId` made every flag's metadata unreadable as a manifest; found by the fuzzer).
    @Test
    func aManifestsOwnMetadataIsNotMergedAndItsExportImportsAgain() async throws {
        let manifest = #"""
            {"metadata": {"flagSetId": "example-app", "version": "3"},
             "flags": {"checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                                    "metadata": {"type": "boolean", "owner": "payments", "x-team": "growth"}}}}
            """#
        try await TestServer.with { server in
            let imported = try await server.request(
                .POST, "/admin/v1/environments/production/import?format=manifest", token: server.adminToken, body: manifest)
            #expect(imported.status == 200, "\(imported.body)")
            let export = try await server.request(.GET, "/admin/v1/environments/production/export", token: server.adminToken)
            #expect(export.status == 200)
            #expect(!export.body.contains("flagSetId"), "\(export.body)")
            let again = try await server.request(
                .POST, "/admin/v1/environments/production/import?format=manifest&dryRun=true", token: server.adminToken,
                body: export.body)
            #expect(again.status == 200, "\(again.body)")
        }
    }

    @Test
    func aDryRunNamesEveryFlagThatWouldBeRefusedAndWhy() async throws {
        try await TestServer.with { server in
            let document = #"""
                {"flags": {
                   "fine": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"},
                   "operator": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on",
                                "targeting": {"if": [{"regex_match": [{"var": "email"}, ".*"]}, "on", "off"]}},
                   "reference": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on",
                                 "targeting": {"if": [{"$ref": "missing"}, "on", "off"]}},
                   "shapeless": {"state": "ENABLED", "defaultVariant": "on"}}}
                """#
            let dryRun = try await server.request(
                .POST, "/admin/v1/environments/staging/import?dryRun=true", token: server.adminToken, body: document)
            #expect(dryRun.status == 200)
            let problems = dryRun.json?["problems"]?.arrayValue ?? []
            #expect(Set(problems.compactMap { $0["key"]?.stringValue }) == ["operator", "reference", "shapeless"])
            let text = problems.map { $0.serialized() }.joined(separator: "\n")
            #expect(text.contains("regex_match"), "\(text)")
            #expect(text.contains("missing"), "\(text)")
            #expect(text.contains("variants"), "\(text)")
            let applied = try await server.request(
                .POST, "/admin/v1/environments/staging/import", token: server.adminToken, body: document)
            #expect(applied.status == 422)
            #expect(try await server.request(.GET, "/admin/v1/flags", token: server.adminToken).json == [])
        }
    }
}
