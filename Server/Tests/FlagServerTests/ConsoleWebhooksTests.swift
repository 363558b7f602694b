import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// The console's webhooks page: admins only, CSRF-protected, output escaped, the secret shown once.
struct ConsoleWebhooksTests {
    @Test
    func adminsAddListAndDeleteWebhooksWithTheSecretShownOnce() async throws {
        try await TestServer.withConsole { server in
            try await server.consoleUser("ada", role: .admin)
            try await server.consoleUser("erin", role: .editor)
            let editor = ConsoleClient(server)
            try await editor.signIn("erin")
            #expect(try await editor.get("/console/webhooks").status == 403)

            let client = ConsoleClient(server)
            try await client.signIn("ada")
            let empty = try await client.get("/console/webhooks")
            #expect(empty.status == 200)
            #expect(empty.body.contains("No webhooks yet."))
            let csrf = try #require(empty.csrf)

            // Without the CSRF token nothing is created.
            let forged = try await client.post("/console/webhooks", [("url", "https://hooks.example.com/x")])
            #expect(forged.status == 403)

            let created = try await client.post(
                "/console/webhooks",
                [("url", "https://hooks.example.com/flags?a=1&b=2"), ("kinds", "flag.changed, ping"), ("description", "<script>alert(1)</script>")],
                csrf: csrf)
            #expect(created.status == 200, "\(created.body)")
            let secret = try #require(Self.secret(in: created.body))
            #expect(secret.hasPrefix("whsec_"))
            #expect(!created.body.contains("<script>alert(1)</script>"))
            #expect(created.body.contains("&lt;script&gt;"))

            let listed = try await client.get("/console/webhooks")
            #expect(listed.body.contains("hooks.example.com/flags?a=1&amp;b=2"))
            #expect(listed.body.contains("flag.changed, ping"))
            #expect(!listed.body.contains("whsec_"))

            let refused = try await client.post("/console/webhooks", [("url", "http://127.0.0.1/x")], csrf: csrf)
            #expect(refused.status == 400)
            #expect(refused.body.contains("url:"))

            let endpoints = try await server.request(.GET, "/admin/v1/webhooks", token: server.adminToken)
            let id = try #require(endpoints.json?.arrayValue?.first?["id"]?.stringValue)
            let deleted = try await client.post("/console/webhooks/delete", [("id", id)], csrf: csrf)
            #expect(deleted.status == 303 || deleted.status == 302, "\(deleted.status)")
            #expect(try await server.request(.GET, "/admin/v1/webhooks", token: server.adminToken).json?.arrayValue?.isEmpty == true)
        }
    }

    static func secret(in html: String) -> String? {
        guard let range = html.range(of: #"id="new-secret" readonly size="80" value=""#) else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }
}
