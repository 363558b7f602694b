import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// A list operation (a `GET` answering an array) checks its path parameters against the OpenAPI
/// document before its handler runs: a key no environment or flag can have is 422 naming the
/// parameter, where some lists answered `200 []`; the document lists 422 for each.
struct ListPathKeyTests {
    /// A list path with a parameter the document's `Key` (or id) schema refuses, its template and
    /// the parameter named in the answer.
    static let invalid: [(path: String, template: String, field: String)] = [
        ("/admin/v1/environments/bad!env/flags", "/admin/v1/environments/{environment}/flags", "environment"),
        ("/admin/v1/environments/bad!env/revisions", "/admin/v1/environments/{environment}/revisions", "environment"),
        ("/admin/v1/environments/bad!env/audit", "/admin/v1/environments/{environment}/audit", "environment"),
        ("/admin/v1/environments/bad!env/change-requests", "/admin/v1/environments/{environment}/change-requests", "environment"),
        ("/admin/v1/environments/bad!env/experiments", "/admin/v1/environments/{environment}/experiments", "environment"),
        ("/admin/v1/environments/bad!env/schedules", "/admin/v1/environments/{environment}/schedules", "environment"),
        ("/admin/v1/environments/bad!env/rollouts", "/admin/v1/environments/{environment}/rollouts", "environment"),
        ("/admin/v1/environments/production/flags/bad!key/schedules", "/admin/v1/environments/{environment}/flags/{key}/schedules", "key"),
        ("/admin/v1/environments/\(String(repeating: "e", count: 129))/rollouts", "/admin/v1/environments/{environment}/rollouts", "environment"),
        ("/admin/v1/webhooks/\(String(repeating: "1", count: 65))/deliveries", "/admin/v1/webhooks/{id}/deliveries", "id"),
    ]

    @Test
    func anInvalidKeyInAListsPathIs422NamingIt() async throws {
        try await TestServer.with { server in
            let admin = server.adminToken
            let document = try #require(try await server.request(.GET, "/openapi.json").json)
            for (path, template, field) in Self.invalid {
                let reply = try await server.request(.GET, path, token: admin)
                #expect(reply.status == 422, "\(path): \(reply.status) \(reply.body)")
                #expect(reply.json?["error"]?["code"] == "invalid", "\(path): \(reply.body)")
                #expect(reply.json?["error"]?["problems"]?.arrayValue?.first?["field"] == .string(field), "\(path): \(reply.body)")
                #expect(document["paths"]?[template]?["get"]?["responses"]?["422"] != nil, "\(template) does not list 422")
            }
            // A percent-encoded space is judged decoded, and named as it was meant.
            let spaced = try await server.request(.GET, "/admin/v1/environments/bad%20env/rollouts", token: admin)
            #expect(spaced.status == 422, "\(spaced.body)")
            #expect(spaced.json?["error"]?["message"]?.stringValue?.contains(#""bad env""#) == true, "\(spaced.body)")
            // Valid keys list as before.
            #expect(try await server.request(.GET, "/admin/v1/environments/production/rollouts", token: admin).json == [])
            #expect(try await server.request(.GET, "/admin/v1/environments/production/change-requests", token: admin).status == 200)
        }
    }

    @Test
    func onlyListOperationsCheckTheirPathParameters() throws {
        let operations = try #require(DocumentedOperations.document)
        #expect(operations.pathProblems("/admin/v1/environments/bad!env/rollouts", method: "GET").map(\.field) == ["environment"])
        // The same template's other methods, and single reads, leave the path to their handlers.
        #expect(operations.pathProblems("/admin/v1/environments/bad!env/rollouts", method: "POST").isEmpty)
        #expect(operations.pathProblems("/admin/v1/environments/bad!env/flags/checkout", method: "GET").isEmpty)
        #expect(operations.pathProblems("/admin/v1/environments/production/rollouts", method: "GET").isEmpty)
    }
}
