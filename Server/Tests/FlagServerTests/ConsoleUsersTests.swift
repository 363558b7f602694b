import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// Console users managed by admins: the admin API (`/admin/v1/users`), the console's users page
/// and the audit of both.
struct ConsoleUsersTests {
    @Test
    func adminTokensManageUsersThroughTheAPI() async throws {
        try await TestServer.withConsole { server in
            let admin = server.adminToken
            let created = try await server.request(.POST, "/admin/v1/users", token: admin, body: #"{"name": "alice", "role": "editor"}"#)
            #expect(created.status == 201, "\(created.body)")
            let password = try #require(created.json?["password"]?.stringValue)
            #expect(created.json?["user"]?["role"] == "editor")
            #expect(created.json?["user"]?["disabled"] == false)
            #expect(!created.body.contains("$2"), "no bcrypt hash in the answer")
            let again = try await server.request(.POST, "/admin/v1/users", token: admin, body: #"{"name": "alice", "role": "viewer"}"#)
            #expect(again.status == 409)

            let alice = ConsoleClient(server)
            #expect(try await alice.signIn("alice", password: password).status == 303)
            #expect(try await alice.get("/console/flags").status == 200)

            // Role change, then disable: signed out at once, cannot sign in again.
            let role = try await server.request(
                .PUT, "/admin/v1/users/alice", token: admin, body: #"{"role": "viewer", "disabled": false}"#)
            #expect(role.json?["role"] == "viewer")
            let disabled = try await server.request(
                .PUT, "/admin/v1/users/alice", token: admin, body: #"{"role": "viewer", "disabled": true}"#)
            #expect(disabled.json?["disabled"] == true)
            #expect(try await alice.get("/console/flags").location == "/console/login")
            #expect(try await ConsoleClient(server).signIn("alice", password: password).status == 401)

            // Enabled with a reset password: the old one no longer works.
            _ = try await server.request(.PUT, "/admin/v1/users/alice", token: admin, body: #"{"role": "editor", "disabled": false}"#)
            let reset = try await server.request(.POST, "/admin/v1/users/alice/password", token: admin)
            let fresh = try #require(reset.json?["password"]?.stringValue)
            #expect(try await ConsoleClient(server).signIn("alice", password: password).status == 401)
            #expect(try await ConsoleClient(server).signIn("alice", password: fresh).status == 303)

            let list = try await server.request(.GET, "/admin/v1/users", token: admin)
            #expect(list.json?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["admin", "alice"])
            #expect(try await server.request(.PUT, "/admin/v1/users/ghost", token: admin, body: #"{"role": "viewer", "disabled": false}"#).status == 404)

            // The only admin cannot be demoted or disabled.
            let last = try await server.request(.PUT, "/admin/v1/users/admin", token: admin, body: #"{"role": "editor", "disabled": false}"#)
            #expect(last.status == 409)
            #expect(last.body.contains("last active admin"))

            // Only `*` admin tokens.
            let scoped = try await server.token(.admin, environment: "production")
            #expect(try await server.request(.GET, "/admin/v1/users", token: scoped).status == 403)

            // Every change audited with the token as actor, without passwords or hashes.
            let audit = try await server.server.admin.store.audit(environment: "*", key: "alice", limit: 10)
            #expect(audit.map(\.reason) == ["password reset", "role editor, enable", "disable", "role viewer", "create"])
            #expect(audit.allSatisfy { $0.subject == .user && $0.actor.hasPrefix("token first-admin") })
            let recorded = audit.map { ($0.before?.serialized() ?? "") + ($0.after?.serialized() ?? "") }.joined()
            #expect(!recorded.contains("$2"))
            #expect(!recorded.contains("hash"))
        }
    }

    @Test
    func consoleAdminsManageUsersOnTheUsersPage() async throws {
        try await TestServer.withConsole { server in
            try await server.consoleUser("ada", role: .admin)
            try await server.consoleUser("erin", role: .editor)
            let ada = ConsoleClient(server)
            try await ada.signIn("ada")
            let page = try await ada.get("/console/users")
            #expect(page.status == 200)
            #expect(page.body.contains(#"href="/console/users""#))
            let csrf = try #require(page.csrf)

            let created = try await ada.post("/console/users", [("name", "bob"), ("role", "viewer")], csrf: csrf)
            #expect(created.status == 200)
            let password = try #require(Self.value(ofInput: "new-password", in: created.body))
            #expect(try await ConsoleClient(server).signIn("bob", password: password).status == 303)

            #expect(try await ada.post("/console/users/role", [("name", "bob"), ("role", "editor")], csrf: csrf).status == 303)
            #expect(try await server.server.consoleAccounts?.users().first { $0.name == "bob" }?.role == .editor)
            #expect(try await ada.post("/console/users/disabled", [("name", "bob"), ("disabled", "true")], csrf: csrf).status == 303)
            #expect(try await ConsoleClient(server).signIn("bob", password: password).status == 401)
            let reset = try await ada.post("/console/users/password", [("name", "bob")], csrf: csrf)
            #expect(reset.body.contains("Reset the password of the console user “bob”"))
            let history = try await ada.get("/console/users")
            #expect(history.body.contains("<strong>bob</strong>: password reset by <strong class=\"actor\">ada</strong>"))

            // Without the CSRF token, or as an editor: refused, nothing changes.
            #expect(try await ada.post("/console/users", [("name", "mallory"), ("role", "admin")]).status == 403)
            let erin = ConsoleClient(server)
            try await erin.signIn("erin")
            #expect(try await erin.get("/console/users").status == 403)
            #expect(!(try await erin.get("/console/flags").body.contains(#"href="/console/users""#)))
            #expect(try await erin.post("/console/users", [("name", "mallory"), ("role", "admin")], csrf: try await erin.csrf()).status == 403)
            #expect(try await server.server.consoleAccounts?.users().contains { $0.name == "mallory" } == false)
        }
    }

    /// The new-token form starts on a combination delivery accepts, and the API refuses a
    /// delivery token for every environment.
    @Test
    func theNewTokenFormDefaultsToAUsableToken() async throws {
        try await TestServer.withConsole { server in
            try await server.consoleUser("ada", role: .admin)
            let ada = ConsoleClient(server)
            try await ada.signIn("ada")
            let page = try await ada.get("/console/tokens")
            #expect(page.body.contains(#"<option value="development" selected>development</option>"#))
            #expect(page.body.contains(#"<option selected>client</option>"#))
            let refused = try await server.request(
                .POST, "/admin/v1/tokens", token: server.adminToken, body: #"{"name": "app", "environment": "*", "role": "client"}"#)
            #expect(refused.status == 400)
            #expect(refused.body.contains("only admin tokens may be for every environment"))
        }
    }

    /// The `value` of the input with `id` in a page.
    static func value(ofInput id: String, in html: String) -> String? {
        guard let start = html.range(of: #"id="\#(id)""#) else { return nil }
        let rest = html[start.upperBound...]
        guard let value = rest.range(of: #"value=""#) else { return nil }
        return String(rest[value.upperBound...].prefix { $0 != "\"" })
    }
}
