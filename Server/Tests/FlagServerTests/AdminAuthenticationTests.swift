import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// Every admin route authenticates before it looks anything up.
struct AdminAuthenticationTests {
    /// Every path and method of `/admin/v1` in the OpenAPI document, its parameters filled with
    /// `value`, answers 401 without credentials.
    @Test
    func everyAdminRouteRefusesARequestWithoutCredentialsBeforeLookingAnythingUp() async throws {
        try await TestServer.with { server in
            let document = try await server.request(.GET, "/openapi.json")
            guard case .object(let paths)? = document.json?["paths"] else { throw TestFailure("no paths in the OpenAPI document") }
            let existingToken = server.server.publisher.current.tokens.keys.first ?? ""
            var checked = 0
            for (path, item) in paths where path.hasPrefix("/admin/v1") {
                guard case .object(let operations) = item else { continue }
                for method in operations.keys where ["get", "post", "put", "delete"].contains(method) {
                    // An id that exists and one that does not must answer alike.
                    for value in [existingToken, "no-such-thing"] {
                        let concrete = path.replacingOccurrences(of: #"\{[^}]+\}"#, with: value, options: .regularExpression)
                        let reply = try await server.request(
                            .init(rawValue: method.uppercased()), concrete, body: method == "get" || method == "delete" ? nil : "{}")
                        #expect(reply.status == 401, "\(method.uppercased()) \(concrete): \(reply.status) \(reply.body)")
                        checked += 1
                    }
                }
            }
            #expect(checked > 30)
        }
    }

    @Test
    func revokingATokenAuthenticatesBeforeSayingWhetherItExists() async throws {
        try await TestServer.with { server in
            let id = server.server.publisher.current.tokens.keys.first ?? ""
            let existing = try await server.request(.DELETE, "/admin/v1/tokens/\(id)")
            let missing = try await server.request(.DELETE, "/admin/v1/tokens/no-such-token")
            #expect(existing.status == 401)
            #expect(missing.status == 401)
            #expect(existing.body == missing.body)
            let authorized = try await server.request(.DELETE, "/admin/v1/tokens/no-such-token", token: server.adminToken)
            #expect(authorized.status == 404)
        }
    }

    @Test
    func anotherAuthorizationSchemeIsNamedAsTheWrongOne() async throws {
        try await TestServer.with { server in
            let reply = try await server.request(.GET, "/admin/v1/flags", headers: [("Authorization", "Token \(server.adminToken)")])
            #expect(reply.status == 401)
            let message = reply.json?["error"]?["message"]?.stringValue ?? ""
            #expect(message.contains("scheme \"Token\" is not supported"))
            #expect(message.contains("Bearer"))
            #expect(!message.contains("missing token"))
        }
    }
}
