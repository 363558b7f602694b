import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOHTTP1
import Testing

/// OFREP's 400 answers match the schemas the server's own OpenAPI document gives them: a flag's
/// evaluation error (`GENERAL`) carries the flag's metadata, as OFREP's evaluation failure does,
/// and the document allowed no `metadata` there.
struct OFREPErrorBodyTests {
    /// The problems of `body` against the schema the served document gives `status` of `operation`.
    static func problems(_ body: JSONValue, document: JSONValue, path: String, status: String) throws -> [ValidationError] {
        let schema = try #require(document["paths"]?[path]?["post"]?["responses"]?[status]?["content"]?["application/json"]?["schema"])
        return RequestSchemaValidator(document: document).problems(in: body, against: schema, field: "")
    }

    @Test
    func anEvaluationErrorWithMetadataMatchesTheDocumented400() async throws {
        try await TestServer.with { server in
            let admin = server.adminToken
            let created = try await server.request(
                .PUT, "/admin/v1/flags/checkout", token: admin,
                body: #"{"type": "boolean", "variants": {"on": true, "off": false}, "defaultVariant": "off", "metadata": {"custom": {"team": "payments"}}}"#)
            #expect(created.status == 200, "\(created.body)")
            // The rule returns the context's `plan`: a plan that is no variant is an evaluation error.
            let settings = try await server.request(
                .PUT, "/admin/v1/environments/production/flags/checkout/settings", token: admin,
                body: #"{"enabled": true, "defaultVariant": "off", "targeting": {"var": "plan"}}"#)
            #expect(settings.status == 200, "\(settings.body)")
            let client = try await server.token(.client, environment: "production")
            let document = try #require(try await server.request(.GET, "/openapi.json").json)
            let single = "/ofrep/v1/evaluate/flags/{key}"

            let failed = try await server.request(
                .POST, "/ofrep/v1/evaluate/flags/checkout", token: client, body: #"{"context": {"targetingKey": "u1", "plan": "gold"}}"#)
            #expect(failed.status == 400)
            let body = try #require(failed.json)
            #expect(body["errorCode"] == "GENERAL", "\(failed.body)")
            #expect(body["metadata"] == ["team": "payments"], "\(failed.body)")
            #expect(try Self.problems(body, document: document, path: single, status: "400").isEmpty, "\(failed.body)")

            // The answers around it match theirs too: served, malformed, and a query out of schema.
            let served = try await server.request(
                .POST, "/ofrep/v1/evaluate/flags/checkout", token: client, body: #"{"context": {"targetingKey": "u1", "plan": "on"}}"#)
            #expect(served.status == 200)
            #expect(try Self.problems(try #require(served.json), document: document, path: single, status: "200").isEmpty, "\(served.body)")
            let malformed = try await server.request(.POST, "/ofrep/v1/evaluate/flags/checkout", token: client, body: "{bad")
            #expect(malformed.status == 400)
            #expect(try Self.problems(try #require(malformed.json), document: document, path: single, status: "400").isEmpty, "\(malformed.body)")
            let long = String(repeating: "1", count: 65)
            let query = try await server.request(.POST, "/ofrep/v1/evaluate/flags?flagConfigLastModified=\(long)", token: client, body: "{}")
            #expect(query.json?["errorCode"] == "GENERAL", "\(query.body)")
            #expect(try Self.problems(try #require(query.json), document: document, path: "/ofrep/v1/evaluate/flags", status: "400").isEmpty)
        }
    }
}
