import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// Comparing and copying between environments, and the tokens page.
struct ConsoleEnvironmentsAndTokensTests {
    @Test
    func environmentsCompareSideBySideAndCopyAFlagsConfiguration() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("checkout", environment: "staging", targeting: #"{"fractional": [["on", 50], ["off", 50]]}"#)
            try await server.booleanFlag("search", environment: "staging")
            _ = try await server.request(
                .PUT, "/admin/v1/environments/production/flags/search/settings", token: server.adminToken,
                body: #"{"enabled": true, "defaultVariant": "on"}"#)
            try await server.consoleUser("erin", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("erin")
            let page = try await client.get("/console/environments?left=staging&right=production")
            #expect(page.status == 200)
            #expect(page.body.contains(#"<tr id="compare-checkout" class="differs">"#))
            #expect(page.body.contains(#"<tr id="compare-search">"#))
            #expect(page.body.contains("rollout off 50% · on 50%"))

            let copied = try await client.post(
                "/console/environments/copy", [("key", "checkout"), ("from", "staging"), ("to", "production"), ("reason", "promote")],
                csrf: try await client.csrf())
            #expect(copied.status == 303)
            let state = await server.server.admin.state
            #expect(state.environments["production"]?.settings["checkout"] == state.environments["staging"]?.settings["checkout"])
            let audit = try await server.server.admin.store.audit(environment: "production", key: "checkout", limit: 1)
            #expect(audit.first?.actor == "erin")
            #expect(audit.first?.reason == "promote")
            let after = try await client.get("/console/environments?left=staging&right=production")
            #expect(after.body.contains(#"<tr id="compare-checkout">"#))

            let same = try await client.post(
                "/console/environments/copy", [("key", "checkout"), ("from", "staging"), ("to", "staging")], csrf: try await client.csrf())
            #expect(same.status == 400)
            #expect(same.body.contains("from: &quot;staging&quot; is the environment being written"))
        }
    }

    @Test
    func tokensCopyThroughTheAdminAPIWithinTheirEnvironments() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("checkout", environment: "staging")
            let production = try await server.token(.admin, environment: "production")
            let refused = try await server.request(
                .POST, "/admin/v1/environments/production/flags/checkout/copy", token: production, body: #"{"from": "staging"}"#)
            #expect(refused.status == 403)
            let copied = try await server.request(
                .POST, "/admin/v1/environments/production/flags/checkout/copy", token: server.adminToken, body: #"{"from": "staging"}"#)
            #expect(copied.status == 200)
            #expect(copied.json?["revisions"]?["production"] != nil)
            #expect(await server.server.admin.state.environments["production"]?.settings["checkout"]?.enabled == true)
        }
    }

    @Test
    func consoleAdminsCreateAndRevokeTokensOthersOnlySeeThem() async throws {
        try await TestServer.withConsole { server in
            try await server.consoleUser("ada", role: .admin)
            try await server.consoleUser("erin", role: .editor)
            let admin = ConsoleClient(server)
            try await admin.signIn("ada")
            let created = try await admin.post(
                "/console/tokens", [("name", "ios-app"), ("environment", "production"), ("role", "client")], csrf: try await admin.csrf())
            #expect(created.status == 200)
            let shown = try #require(created.body.range(of: #"value="ffs_[0-9a-f]+_[0-9a-f]+""#, options: .regularExpression))
            let token = String(created.body[shown].dropFirst(#"value=""#.count).dropLast())
            #expect(token.hasPrefix("ffs_"))
            let ofrep = try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: token, body: "{}")
            #expect(ofrep.status == 200)
            // The list never shows it again.
            let list = try await admin.get("/console/tokens")
            #expect(list.body.contains("ios-app"))
            #expect(!list.body.contains(token))

            let editor = ConsoleClient(server)
            try await editor.signIn("erin")
            let id = String(token.split(separator: "_")[1])
            let csrf = try await editor.csrf()
            #expect(try await editor.post("/console/tokens/revoke", [("id", id)], csrf: csrf).status == 403)
            #expect(try await editor.post("/console/tokens", [("name", "x"), ("environment", "production"), ("role", "admin")], csrf: csrf).status == 403)
            #expect(try await editor.get("/console/tokens").body.contains("Only console admins create and revoke tokens."))

            let revoked = try await admin.post("/console/tokens/revoke", [("id", id)], csrf: try await admin.csrf())
            #expect(revoked.status == 303)
            #expect(try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: token, body: "{}").status == 401)
        }
    }
}
