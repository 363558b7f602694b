import FlagEvaluation
import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// The code default `flags push` records on a flag (`FlagRecord.defaultVariant`) survives every
/// write that does not mean to change it, is validated, and travels through export and import.
struct CodeDefaultTests {
    /// Registers `search` (`on`/`off`, code default `on`) as `flags push` does.
    static func register(_ server: TestServer) async throws {
        let body = #"""
            {"flags": [{"key": "search", "type": "boolean", "variants": {"on": true, "off": false}, "defaultVariant": "on"}]}
            """#
        let reply = try await server.request(.POST, "/admin/v1/flags", token: server.adminToken, body: body)
        #expect(reply.status == 200, "\(reply.body)")
    }

    static func codeDefault(_ server: TestServer, _ key: String = "search") async throws -> JSONValue? {
        let reply = try await server.request(.GET, "/admin/v1/flags/\(key)", token: server.adminToken)
        #expect(reply.status == 200, "\(reply.body)")
        return reply.json?["defaultVariant"]
    }

    @Test
    func aPutWithoutTheFieldKeepsTheCodeDefault() async throws {
        try await TestServer.with { server in
            try await Self.register(server)
            let edit = try await server.request(
                .PUT, "/admin/v1/flags/search", token: server.adminToken,
                body: #"{"type": "boolean", "variants": {"on": true, "off": false}, "metadata": {"owner": "discovery"}}"#)
            #expect(edit.status == 200, "\(edit.body)")
            let flag = try await server.request(.GET, "/admin/v1/flags/search", token: server.adminToken)
            #expect(flag.json?["metadata"]?["owner"] == "discovery")
            #expect(flag.json?["defaultVariant"] == "on")
        }
    }

    /// `GET` then `PUT` of what it answered changes nothing; the field names the code default.
    @Test
    func aPutSetsOrClearsTheCodeDefaultWhenItNamesIt() async throws {
        try await TestServer.with { server in
            try await Self.register(server)
            let set = try await server.request(
                .PUT, "/admin/v1/flags/search", token: server.adminToken,
                body: #"{"type": "boolean", "variants": {"on": true, "off": false}, "defaultVariant": "off"}"#)
            #expect(set.status == 200, "\(set.body)")
            #expect(try await Self.codeDefault(server) == "off")
            let cleared = try await server.request(
                .PUT, "/admin/v1/flags/search", token: server.adminToken,
                body: #"{"type": "boolean", "variants": {"on": true, "off": false}, "defaultVariant": null}"#)
            #expect(cleared.status == 200, "\(cleared.body)")
            #expect(try await Self.codeDefault(server) == nil)
        }
    }

    @Test
    func aCodeDefaultThatIsNotAVariantIsRefusedAndNamed() async throws {
        try await TestServer.with { server in
            try await Self.register(server)
            // Kept implicitly, but its variant is gone: the caller must name a new one (or null).
            let dropped = try await server.request(
                .PUT, "/admin/v1/flags/search", token: server.adminToken,
                body: #"{"type": "boolean", "variants": {"yes": true, "no": false}}"#)
            #expect(dropped.status == 422, "\(dropped.body)")
            let problem = dropped.json?["error"]?["problems"]?.arrayValue?.first { ($0["environment"] ?? .null) == .null }
            #expect(problem?["key"] == "search")
            #expect(problem?["field"] == "defaultVariant")
            #expect(problem?["problem"]?.stringValue?.contains("\"on\"") == true)
            let named = try await server.request(
                .PUT, "/admin/v1/flags/search", token: server.adminToken,
                body: #"{"type": "boolean", "variants": {"on": true, "off": false}, "defaultVariant": "maybe"}"#)
            #expect(named.status == 422, "\(named.body)")
            #expect(try await Self.codeDefault(server) == "on")
        }
    }

    @Test
    func theValidatorChecksTheCodeDefault() {
        let flag = FlagRecord(key: "search", type: .boolean, variants: ["on": true, "off": false], defaultVariant: "maybe")
        let state = ServerState(
            flags: ["search": flag],
            environments: ["prod": EnvironmentState(key: "prod", settings: ["search": FlagSettings(enabled: true, defaultVariant: "on")])])
        #expect(StateValidator.problems(in: state) == [
            ValidationError(key: "search", field: "defaultVariant", problem: "the code default \"maybe\" is not one of the variants (off, on)")
        ])
    }

    /// Settings writes from the console and the API, a revert and a flagd import without the field
    /// leave it as it is.
    @Test
    func settingsRevertAndImportKeepIt() async throws {
        try await TestServer.with { server in
            try await Self.register(server)
            let settings = try await server.request(
                .PUT, "/admin/v1/environments/production/flags/search/settings", token: server.adminToken,
                body: #"{"enabled": true, "defaultVariant": "off"}"#)
            #expect(settings.status == 200, "\(settings.body)")
            let revert = try await server.request(
                .POST, "/admin/v1/environments/production/flags/search/revert", token: server.adminToken,
                body: #"{"revision": 2}"#)
            #expect(revert.status == 200, "\(revert.body)")
            #expect(try await Self.codeDefault(server) == "on")
            let document = #"""
                {"flags": {"search": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                  "metadata": {"owner": "discovery"}}}}
                """#
            let imported = try await server.request(
                .POST, "/admin/v1/environments/staging/import", token: server.adminToken, body: document)
            #expect(imported.status == 200, "\(imported.body)")
            let flag = try await server.request(.GET, "/admin/v1/flags/search", token: server.adminToken)
            #expect(flag.json?["metadata"]?["owner"] == "discovery")
            #expect(flag.json?["defaultVariant"] == "on")
        }
    }

    /// The export carries it as `x-codeDefault`; an import of that export (flagd or manifest) into
    /// another server records it; an unknown variant there is refused with the field named.
    @Test
    func exportAndImportCarryIt() async throws {
        let exported = try await TestServer.with { server in
            try await Self.register(server)
            let export = try await server.request(.GET, "/admin/v1/environments/production/export", token: server.adminToken)
            #expect(export.json?["flags"]?["search"]?["metadata"]?["x-codeDefault"] == "on")
            // Not served as the flag's own metadata.
            let client = try await server.token(.client, environment: "production")
            let evaluation = try await server.request(.POST, "/ofrep/v1/evaluate/flags/search", token: client, body: "{}")
            #expect(evaluation.json?["metadata"]?["x-codeDefault"] == nil, "\(evaluation.body)")
            return export.body
        }
        for format in ["flagd", "manifest"] {
            try await TestServer.with { server in
                let imported = try await server.request(
                    .POST, "/admin/v1/environments/staging/import?format=\(format)", token: server.adminToken, body: exported)
                #expect(imported.status == 200, "\(format): \(imported.body)")
                #expect(try await Self.codeDefault(server) == "on", "\(format)")
                let unknown = exported.replacingOccurrences(
                    of: #"("x-codeDefault"\s*:\s*)"on""#, with: #"$1"maybe""#, options: .regularExpression)
                #expect(unknown != exported)
                let refused = try await server.request(
                    .POST, "/admin/v1/environments/staging/import?format=\(format)", token: server.adminToken, body: unknown)
                #expect(refused.status == 422, "\(format): \(refused.body)")
                #expect(refused.json?["error"]?["problems"]?.arrayValue?.contains { $0["field"] == "defaultVariant" } == true)
            }
        }
    }
}
