import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// The writes an approval rule can refuse answer 409 `approval_required` under a rule, and the
/// OpenAPI document lists 409 for every one of those operations; the kill switch passes the rule.
struct WriteConflictDocumentationTests {
    /// A write: method, path, the document's path template and the body.
    struct Write {
        var method: HTTPMethod
        var path: String
        var template: String
        var body: String?
    }

    static let production = "/admin/v1/environments/production"
    static let environmentTemplate = "/admin/v1/environments/{environment}"

    static let writes: [Write] = [
        Write(
            method: .POST, path: "/admin/v1/flags", template: "/admin/v1/flags",
            body: #"{"flags": [{"key": "checkout", "type": "boolean", "variants": {"on": true, "off": false, "later": false}, "defaultVariant": "off"}]}"#),
        Write(
            method: .PUT, path: "/admin/v1/flags/checkout", template: "/admin/v1/flags/{key}",
            body: #"{"type": "boolean", "variants": {"on": true, "off": false, "later": false}, "defaultVariant": "off"}"#),
        Write(method: .DELETE, path: "/admin/v1/flags/checkout", template: "/admin/v1/flags/{key}", body: nil),
        Write(
            method: .PUT, path: production + "/flags/checkout/settings", template: environmentTemplate + "/flags/{key}/settings",
            body: #"{"enabled": true, "defaultVariant": "off"}"#),
        Write(
            method: .PATCH, path: production + "/flags/checkout/settings", template: environmentTemplate + "/flags/{key}/settings",
            body: #"{"enabled": false}"#),
        Write(
            method: .PUT, path: production + "/segments/beta", template: environmentTemplate + "/segments/{key}",
            body: #"{"rule": {"==": [1, 2]}}"#),
        Write(method: .DELETE, path: production + "/segments/beta", template: environmentTemplate + "/segments/{key}", body: nil),
        Write(
            method: .POST, path: production + "/import", template: environmentTemplate + "/import",
            body: #"{"flags": {"checkout": {"state": "DISABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off"}}}"#),
    ]

    @Test
    func everyWriteAnApprovalRuleRefusesAnswersAndDocuments409() async throws {
        try await TestServer.with { server in
            let admin = server.adminToken
            try await server.booleanFlag("checkout")
            let segment = try await server.request(.PUT, Self.production + "/segments/beta", token: admin, body: #"{"rule": {"==": [1, 1]}}"#)
            #expect(segment.status == 200, "\(segment.body)")
            let rule = try await server.request(.PUT, Self.production + "/approval-rule", token: admin, body: #"{"requiredApprovals": 1}"#)
            #expect(rule.status == 200, "\(rule.body)")
            let document = try #require(try await server.request(.GET, "/openapi.json").json)

            for write in Self.writes {
                let reply = try await server.request(write.method, write.path, token: admin, body: write.body)
                let name = "\(write.method.rawValue) \(write.path)"
                #expect(reply.status == 409, "\(name): \(reply.status) \(reply.body)")
                #expect(reply.json?["error"]?["code"] == "approval_required", "\(name): \(reply.body)")
                let responses = document["paths"]?[write.template]?[write.method.rawValue.lowercased()]?["responses"]
                #expect(responses != nil, "\(name): the document has no operation \(write.template)")
                #expect(responses?["409"] != nil, "\(name): the document does not list 409 for \(write.template)")
            }

            // The kill switch is the write that passes the rule (it only turns flags off).
            let killed = try await server.request(.POST, Self.production + "/flags/checkout/kill", token: admin, body: #"{"reason": "incident"}"#)
            #expect(killed.status == 200, "\(killed.body)")
            let flag = try await server.request(.GET, Self.production + "/flags/checkout", token: admin)
            #expect(flag.json?["settings"]?["enabled"] == false, "\(flag.body)")
        }
    }
}
