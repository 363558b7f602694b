import FlagEvaluation
import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// Real responses of every documented operation, validated against the served OpenAPI document
/// by `scripts/validate_responses.py` (openapi-spec-validator and openapi-schema-validator).
struct OpenAPIDocumentTests {
    struct Recorder {
        var entries: [JSONValue] = []

        mutating func call(
            _ server: TestServer, _ method: HTTPMethod, _ template: String, _ path: String, token: String?,
            body: String? = nil, headers: [(String, String)] = []
        ) async throws -> TestServer.Reply {
            let reply = try await server.request(method, path, token: token, body: body, headers: headers)
            entries.append([
                "path": .string(template), "method": .string(method.rawValue.lowercased()), "status": .int(reply.status),
                "body": reply.body.isEmpty ? .null : (reply.json ?? .string(reply.body)),
            ])
            return reply
        }
    }

    @Test
    func realResponsesMatchTheServedDocument() async throws {
        let directory = TemporaryDirectory().path
        try await TestServer.with { server in
            var r = Recorder()
            let admin = server.adminToken
            let document = try await server.request(.GET, "/openapi.json")
            #expect(document.status == 200)
            try document.body.write(toFile: directory + "/openapi.json", atomically: true, encoding: .utf8)

            _ = try await r.call(server, .GET, "/health", "/health", token: nil)
            _ = try await r.call(server, .GET, "/health/live", "/health/live", token: nil)
            _ = try await r.call(server, .GET, "/health/ready", "/health/ready", token: nil)
            _ = try await r.call(server, .GET, "/admin/v1/environments", "/admin/v1/environments", token: admin)
            _ = try await r.call(server, .POST, "/admin/v1/environments", "/admin/v1/environments", token: admin, body: #"{"key": "qa"}"#)
            _ = try await r.call(server, .POST, "/admin/v1/environments", "/admin/v1/environments", token: admin, body: #"{"key": "qa"}"#)
            _ = try await r.call(server, .POST, "/admin/v1/environments", "/admin/v1/environments", token: admin, body: #"{"key": 1}"#)
            _ = try await r.call(
                server, .PUT, "/admin/v1/flags/{key}", "/admin/v1/flags/checkout", token: admin,
                body: #"{"type": "boolean", "variants": {"on": true, "off": false}, "metadata": {"owner": "payments"}}"#)
            _ = try await r.call(
                server, .PUT, "/admin/v1/flags/{key}", "/admin/v1/flags/bad", token: admin,
                body: #"{"type": "boolean", "variants": {"on": 1}}"#)
            _ = try await r.call(server, .GET, "/admin/v1/flags", "/admin/v1/flags", token: admin)
            _ = try await r.call(
                server, .POST, "/admin/v1/flags", "/admin/v1/flags?dryRun=true", token: admin,
                body: #"{"flags": [{"key": "search", "type": "boolean", "variants": {"on": true, "off": false}, "defaultVariant": "on"}]}"#)
            _ = try await r.call(
                server, .POST, "/admin/v1/flags", "/admin/v1/flags", token: admin,
                body: #"{"flags": [{"key": "search", "type": "boolean", "variants": {"on": true, "off": false}, "defaultVariant": "on"}]}"#)
            _ = try await r.call(
                server, .POST, "/admin/v1/flags", "/admin/v1/flags", token: admin,
                body: #"{"flags": [{"key": "search", "type": "boolean", "variants": {"on": true}, "defaultVariant": "maybe"}]}"#)
            _ = try await r.call(server, .GET, "/admin/v1/flags/{key}", "/admin/v1/flags/checkout", token: admin)
            _ = try await r.call(server, .GET, "/admin/v1/flags/{key}", "/admin/v1/flags/ghost", token: admin)
            _ = try await r.call(
                server, .PUT, "/admin/v1/environments/{environment}/segments/{key}", "/admin/v1/environments/production/segments/beta",
                token: admin, body: #"{"rule": {"starts_with": [{"var": "email"}, "beta"]}}"#)
            _ = try await r.call(
                server, .GET, "/admin/v1/environments/{environment}/segments", "/admin/v1/environments/production/segments", token: admin)
            _ = try await r.call(
                server, .PUT, "/admin/v1/environments/{environment}/flags/{key}/settings",
                "/admin/v1/environments/production/flags/checkout/settings", token: admin,
                body: #"{"enabled": true, "defaultVariant": "on", "targeting": {"if": [{"$ref": "beta"}, "off", null]}}"#)
            _ = try await r.call(
                server, .GET, "/admin/v1/environments/{environment}/flags", "/admin/v1/environments/production/flags", token: admin)
            _ = try await r.call(
                server, .GET, "/admin/v1/environments/{environment}/flags/{key}",
                "/admin/v1/environments/production/flags/checkout", token: admin)
            _ = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/flags/{key}/revert",
                "/admin/v1/environments/production/flags/checkout/revert", token: admin, body: #"{"revision": 2}"#)
            _ = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/flags/{key}/validate",
                "/admin/v1/environments/production/flags/checkout/validate", token: admin,
                body: #"{"enabled": true, "defaultVariant": "maybe", "targeting": {"nope": [1]}}"#)
            _ = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/flags/{key}/preview",
                "/admin/v1/environments/production/flags/checkout/preview", token: admin,
                body: #"{"percentages": {"on": 10, "off": 90}, "targetingKeys": ["a", "b"]}"#)
            _ = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/flags/{key}/preview",
                "/admin/v1/environments/production/flags/checkout/preview", token: admin, body: #"{"percentages": {"on": 10}}"#)
            _ = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/flags/{key}/copy",
                "/admin/v1/environments/staging/flags/checkout/copy", token: admin, body: #"{"from": "production", "reason": "same as prod"}"#)
            _ = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/flags/{key}/copy",
                "/admin/v1/environments/staging/flags/checkout/copy", token: admin, body: #"{"from": "nowhere"}"#)
            _ = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/evaluate", "/admin/v1/environments/production/evaluate",
                token: admin, body: #"{"context": {"targetingKey": "u1", "email": "beta@x"}}"#)
            _ = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/evaluate", "/admin/v1/environments/production/evaluate",
                token: admin, body: #"{"context": {"targetingKey": 7}}"#)
            _ = try await r.call(
                server, .GET, "/admin/v1/environments/{environment}/revisions", "/admin/v1/environments/production/revisions", token: admin)
            _ = try await r.call(
                server, .GET, "/admin/v1/environments/{environment}/audit", "/admin/v1/environments/production/audit", token: admin)
            _ = try await r.call(
                server, .GET, "/admin/v1/environments/{environment}/export", "/admin/v1/environments/production/export", token: admin)
            _ = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/import", "/admin/v1/environments/staging/import?dryRun=true",
                token: admin, body: #"{"flags": {}}"#)
            _ = try await r.call(server, .GET, "/admin/v1/tokens", "/admin/v1/tokens", token: admin)
            let created = try await r.call(
                server, .POST, "/admin/v1/tokens", "/admin/v1/tokens", token: admin,
                body: #"{"name": "web", "environment": "production", "role": "server"}"#)
            let token = try #require(created.json?["token"]?.stringValue)

            let context = #"{"context": {"targetingKey": "u1", "email": "beta@x"}}"#
            _ = try await r.call(server, .POST, "/ofrep/v1/evaluate/flags/{key}", "/ofrep/v1/evaluate/flags/checkout", token: token, body: context)
            _ = try await r.call(server, .POST, "/ofrep/v1/evaluate/flags/{key}", "/ofrep/v1/evaluate/flags/ghost", token: token, body: context)
            _ = try await r.call(server, .POST, "/ofrep/v1/evaluate/flags/{key}", "/ofrep/v1/evaluate/flags/checkout", token: token, body: "{")
            let bulk = try await r.call(server, .POST, "/ofrep/v1/evaluate/flags", "/ofrep/v1/evaluate/flags", token: token, body: context)
            _ = try await r.call(
                server, .POST, "/ofrep/v1/evaluate/flags", "/ofrep/v1/evaluate/flags", token: token, body: context,
                headers: [("If-None-Match", bulk.header("ETag") ?? "")])
            _ = try await r.call(server, .POST, "/ofrep/v1/evaluate/flags", "/ofrep/v1/evaluate/flags", token: nil, body: context)
            _ = try await r.call(server, .GET, "/rpc/app_config", "/rpc/app_config", token: token)
            _ = try await r.call(server, .GET, "/flagd/v1/flags.json", "/flagd/v1/flags.json", token: token)
            let id = String(token.split(separator: "_")[1])
            _ = try await r.call(server, .DELETE, "/admin/v1/tokens/{id}", "/admin/v1/tokens/\(id)", token: admin)
            _ = try await r.call(server, .GET, "/rpc/app_config", "/rpc/app_config", token: token)
            _ = try await r.call(
                server, .DELETE, "/admin/v1/environments/{environment}/segments/{key}",
                "/admin/v1/environments/production/segments/beta", token: admin)
            _ = try await r.call(server, .DELETE, "/admin/v1/flags/{key}", "/admin/v1/flags/checkout", token: admin)

            try JSONValue.array(r.entries).serialized().write(toFile: directory + "/responses.json", atomically: true, encoding: .utf8)
        }

        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/validate_responses.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, directory + "/openapi.json", directory + "/responses.json"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("0 problems"))
    }
}
