import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// What the OpenAPI document says about requests no handler sees: undeclared methods answer 405
/// with `Allow`, query parameters outside their schemas answer 400 naming them; and every answer,
/// errors included, exposes `ETag` and `Retry-After` to cross-origin scripts.
struct DocumentedOperationsTests {
    @Test
    func anUndeclaredMethodOfADocumentedPathAnswers405WithAllow() async throws {
        try await TestServer.with { server in
            let patch = try await server.request(.PATCH, "/admin/v1/environments", token: server.adminToken, body: "{}")
            #expect(patch.status == 405)
            #expect(patch.header("Allow") == "GET, POST")
            let get = try await server.request(.GET, "/admin/v1/environments/production/flags/checkout/settings", token: server.adminToken)
            #expect(get.status == 405)
            #expect(get.header("Allow") == "PATCH, PUT")
            #expect(get.json?["error"]?["code"] == "method_not_allowed")
            // A path the document does not have is still 404.
            #expect(try await server.request(.GET, "/admin/v1/nothing", token: server.adminToken).status == 404)
        }
    }

    @Test
    func queryParametersOutsideTheirSchemasAnswer400() async throws {
        try await TestServer.with { server in
            let admin = server.adminToken
            for query in ["limit=1001", "limit=-1", "limit=ten", "limit=1&limit=2"] {
                let reply = try await server.request(.GET, "/admin/v1/environments/production/revisions?\(query)", token: admin)
                #expect(reply.status == 400, "\(query)")
                #expect(reply.json?["error"]?["problems"]?.arrayValue?.first?["field"] == "limit", "\(query)")
            }
            #expect(try await server.request(.GET, "/admin/v1/environments/production/audit?limit=1000", token: admin).status == 200)
            let reason = String(repeating: "x", count: 1001)
            let imported = try await server.request(
                .POST, "/admin/v1/environments/staging/import?reason=\(reason)", token: admin, body: #"{"flags": {}}"#)
            #expect(imported.status == 400)
            #expect(imported.json?["error"]?["problems"]?.arrayValue?.first?["field"] == "reason")
            #expect(try await server.request(.POST, "/admin/v1/environments/staging/import?dryRun=yes", token: admin, body: #"{"flags": {}}"#)
                .status == 400)
            let client = try await server.token(.client, environment: "production")
            let long = String(repeating: "1", count: 65)
            let bulk = try await server.request(.POST, "/ofrep/v1/evaluate/flags?flagConfigLastModified=\(long)", token: client, body: "{}")
            #expect(bulk.status == 400)
            #expect(bulk.json?["errorCode"] == "GENERAL")
            #expect(bulk.json?["errorDetails"]?.stringValue?.contains("flagConfigLastModified") == true)
        }
    }

    @Test
    func errorsExposeRetryAfterAndETagToCrossOriginScripts() async throws {
        let clock = ManualSeconds()
        try await TestServer.with(rateLimiter: RateLimiter(perSecond: 1, burst: 1, now: { clock.value })) { server in
            let token = try await server.token(.client, environment: "production")
            let origin = [("Origin", "https://app.example")]
            let first = try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: token, body: "{}", headers: origin)
            let limited = try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: token, body: "{}", headers: origin)
            let unauthorized = try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: "nope", body: "{}", headers: origin)
            let missing = try await server.request(.GET, "/nowhere", headers: origin)
            let method = try await server.request(.DELETE, "/ofrep/v1/evaluate/flags", headers: origin)
            #expect([first.status, limited.status, unauthorized.status, missing.status, method.status] == [200, 429, 401, 404, 405] as [Int])
            for reply in [first, limited, unauthorized, missing, method] {
                #expect(reply.header("Access-Control-Expose-Headers") == "ETag, Retry-After", "\(reply.status)")
                #expect(reply.header("Access-Control-Allow-Origin") == "*", "\(reply.status)")
            }
            #expect(limited.header("Retry-After") == "1")
        }
    }
}
