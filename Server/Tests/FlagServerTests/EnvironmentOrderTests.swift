import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// Environments are listed in a stored order (development, staging, production after the first
/// start; new ones last), which `PUT /admin/v1/environments/order` and the console change.
struct EnvironmentOrderTests {
    static func listed(_ server: TestServer) async throws -> [String] {
        let reply = try await server.request(.GET, "/admin/v1/environments", token: server.adminToken)
        return reply.json?.arrayValue?.compactMap { $0["key"]?.stringValue } ?? []
    }

    @Test
    func theFirstStartListsDevelopmentStagingProductionAndNewOnesGoLast() async throws {
        try await TestServer.withConsole { server in
            #expect(try await Self.listed(server) == ["development", "staging", "production"])
            let created = try await server.request(.POST, "/admin/v1/environments", token: server.adminToken, body: #"{"key": "alpha"}"#)
            #expect(created.status == 201)
            #expect(try await Self.listed(server) == ["development", "staging", "production", "alpha"])

            // Every page that lists environments uses the order.
            try await server.booleanFlag("checkout")
            try await server.consoleUser("ada", role: .admin)
            let client = ConsoleClient(server)
            try await client.signIn("ada")
            let grid = try await client.get("/console/flags")
            #expect(Self.positions(of: ["development", "staging", "production", "alpha"], in: grid.body, after: "<thead>"))
            let tokens = try await client.get("/console/tokens")
            #expect(Self.positions(of: [#"value="development""#, #"value="staging""#, #"value="production""#], in: tokens.body))
        }
    }

    @Test
    func theOrderIsChangedByAdminsAndChecked() async throws {
        try await TestServer.withConsole { server in
            let put = try await server.request(
                .PUT, "/admin/v1/environments/order", token: server.adminToken,
                body: #"{"environments": ["production", "staging", "development"], "reason": "prod first"}"#)
            #expect(put.status == 200, "\(put.body)")
            #expect(try await Self.listed(server) == ["production", "staging", "development"])
            // Audited per environment whose place changed (staging kept its place).
            let audit = try await server.server.admin.store.audit(environment: "production", key: "production", limit: 1)
            #expect(audit.first?.subject == .environment)
            #expect(audit.first?.reason == "prod first")
            #expect(audit.first?.after?["position"] == 0)
            #expect(try await server.server.admin.store.audit(environment: "staging", key: "staging", limit: 5).count == 1)

            // Not the current environments: a conflict with the state (409); a name listed twice is
            // wrong whatever the state (400). Schemathesis sends `[]`, which the schema allows.
            for (body, status) in [
                (#"{"environments": ["production", "staging"]}"#, 409), (#"{"environments": []}"#, 409),
                (#"{"environments": ["production", "staging", "development", "qa"]}"#, 409),
                (#"{"environments": ["production", "staging", "staging", "development"]}"#, 400),
            ] {
                let refused = try await server.request(.PUT, "/admin/v1/environments/order", token: server.adminToken, body: body)
                #expect(refused.status == status, "\(body): \(refused.body)")
                if status == 400 { #expect(refused.body.contains("must not list an item twice"), "\(refused.body)") }
            }
            #expect(try await Self.listed(server) == ["production", "staging", "development"])
            let scoped = try await server.token(.admin, environment: "production")
            let forbidden = try await server.request(
                .PUT, "/admin/v1/environments/order", token: scoped,
                body: #"{"environments": ["development", "staging", "production"]}"#)
            #expect(forbidden.status == 403)

            // The console's control, for console admins.
            try await server.consoleUser("ada", role: .admin)
            try await server.consoleUser("erin", role: .editor)
            let admin = ConsoleClient(server)
            try await admin.signIn("ada")
            let saved = try await admin.post(
                "/console/environments/order", [("order", "development, staging, production")], csrf: try await admin.csrf())
            #expect(saved.status == 303)
            #expect(try await Self.listed(server) == ["development", "staging", "production"])
            let editor = ConsoleClient(server)
            try await editor.signIn("erin")
            let refused = try await editor.post(
                "/console/environments/order", [("order", "production, staging, development")], csrf: try await editor.csrf())
            #expect(refused.status == 403)
        }
    }

    /// An existing database gets the default order when it is migrated, and a stored order
    /// survives a restart.
    @Test
    func theOrderIsStored() async throws {
        let path = TemporaryDirectory().path + "/flags.sqlite"
        var store = try await SQLiteFlagStore(path: path)
        try await TestServer.with(store: store) { server in
            _ = try await server.request(.POST, "/admin/v1/environments", token: server.adminToken, body: #"{"key": "qa"}"#)
            let put = try await server.request(
                .PUT, "/admin/v1/environments/order", token: server.adminToken,
                body: #"{"environments": ["qa", "production", "staging", "development"]}"#)
            #expect(put.status == 200)
        }
        store = try await SQLiteFlagStore(path: path)
        let state = try await store.load()
        #expect(state.orderedEnvironmentKeys == ["qa", "production", "staging", "development"])
        await store.close()
    }

    /// Whether `needles` occur in this order in `text` (after `marker`, if given).
    static func positions(of needles: [String], in text: String, after marker: String? = nil) -> Bool {
        var rest = Substring(text)
        if let marker, let start = rest.range(of: marker) { rest = rest[start.upperBound...] }
        for needle in needles {
            guard let found = rest.range(of: needle) else { return false }
            rest = rest[found.upperBound...]
        }
        return true
    }
}
