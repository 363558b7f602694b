import FlagEvaluation
import FlagServer
import NIOHTTP1
import Testing

struct AdminAPITests {
    @Test
    func firstStartCreatesThreeEnvironmentsAndAHashedAdminToken() async throws {
        let path = TemporaryDirectory().path + "/flags.sqlite"
        try await TestServer.with(store: try await SQLiteFlagStore(path: path)) { server in
            let store = server.server.admin.store
            let reply = try await server.request(.GET, "/admin/v1/environments", token: server.adminToken)
            #expect(reply.status == 200)
            // Listed in their stored order, not alphabetically.
            #expect(reply.json == [["key": "development", "revision": 1], ["key": "staging", "revision": 1], ["key": "production", "revision": 1]])
            let records = try await store.tokens()
            #expect(records.count == 1)
            #expect(records[0].digest == TokenIssuer.digest(of: server.adminToken))
            #expect(!records[0].digest.contains(server.adminToken))
            #expect(!String(describing: records[0]).contains(records[0].digest))
        }
        // A restart on the same file creates nothing, prints no token and serves the stored state.
        let reopened = try await SQLiteFlagStore(path: path)
        let (server, bootstrap) = try await FlagServer.start(store: reopened, configuration: .init(limits: .forTests))
        #expect(bootstrap == nil)
        #expect(try await reopened.tokens().count == 1)
        #expect(await server.admin.state.environments.count == 3)
        await reopened.close()
    }

    @Test
    func aBadWriteIsRefusedWholeNamingFlagFieldAndProblem() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout")
            let before = try await server.request(.GET, "/admin/v1/environments", token: server.adminToken)

            let wrongType = try await server.request(
                .PUT, "/admin/v1/flags/limit", token: server.adminToken,
                body: #"{"type": "integer", "variants": {"small": 10, "big": "many"}}"#)
            #expect(wrongType.status == 422)
            let problem = try #require(wrongType.json?["error"]?["problems"]?.arrayValue?.first)
            #expect(problem["key"] == "limit")
            #expect(problem["field"] == "variants.big")
            #expect(problem["problem"]?.stringValue?.contains("integer") == true)

            let missingVariant = try await server.request(
                .PUT, "/admin/v1/environments/production/flags/checkout/settings", token: server.adminToken,
                body: #"{"enabled": true, "defaultVariant": "maybe"}"#)
            #expect(missingVariant.status == 422)
            #expect(missingVariant.json?["error"]?["problems"]?.arrayValue?.first?["field"] == "defaultVariant")
            #expect(missingVariant.json?["error"]?["problems"]?.arrayValue?.first?["environment"] == "production")

            let badRule = try await server.request(
                .PUT, "/admin/v1/environments/production/flags/checkout/settings", token: server.adminToken,
                body: #"{"enabled": true, "defaultVariant": "on", "targeting": {"no_such_operator": [1]}}"#)
            #expect(badRule.status == 422)
            #expect(badRule.json?["error"]?["problems"]?.arrayValue?.first?["field"] == "targeting")
            #expect(badRule.json?["error"]?["problems"]?.arrayValue?.first?["key"] == "checkout")

            let unknownDependency = try await server.request(
                .PUT, "/admin/v1/flags/search", token: server.adminToken,
                body: #"{"type": "boolean", "variants": {"on": true, "off": false}, "metadata": {"requires": ["ghost"]}}"#)
            #expect(unknownDependency.status == 422)
            #expect(unknownDependency.json?["error"]?["message"]?.stringValue?.contains(#"names "ghost""#) == true)

            let wrongJSONType = try await server.request(
                .PUT, "/admin/v1/environments/production/flags/checkout/settings", token: server.adminToken,
                body: #"{"enabled": "yes", "defaultVariant": "on"}"#)
            #expect(wrongJSONType.status == 400)
            #expect(wrongJSONType.json?["error"]?["message"]?.stringValue?.hasPrefix("enabled:") == true)

            let unknownFlag = try await server.request(
                .PUT, "/admin/v1/environments/production/flags/ghost/settings", token: server.adminToken,
                body: #"{"enabled": true, "defaultVariant": "on"}"#)
            #expect(unknownFlag.status == 404)
            #expect(unknownFlag.json?["error"]?["message"] == #"flag "ghost" does not exist"#)

            let duplicate = try await server.request(
                .POST, "/admin/v1/environments", token: server.adminToken, body: #"{"key": "staging"}"#)
            #expect(duplicate.status == 409)

            let after = try await server.request(.GET, "/admin/v1/environments", token: server.adminToken)
            #expect(after.json == before.json)
        }
    }

    @Test
    func dependencyCyclesAreRefused() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("a")
            let b = try await server.request(
                .PUT, "/admin/v1/flags/b", token: server.adminToken,
                body: #"{"type": "boolean", "variants": {"on": true, "off": false}, "metadata": {"requires": ["a"]}}"#)
            #expect(b.status == 200)
            let cycle = try await server.request(
                .PUT, "/admin/v1/flags/a", token: server.adminToken,
                body: #"{"type": "boolean", "variants": {"on": true, "off": false}, "metadata": {"requires": ["b"]}}"#)
            #expect(cycle.status == 422)
            #expect(cycle.json?["error"]?["message"]?.stringValue?.contains("cycle") == true)
        }
    }

    @Test
    func auditRecordsEveryWriteAndRevertIsANewAuditedRevision() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout", enabled: false)  // production revisions 2 (create) and 3 (off)
            let on = try await server.request(
                .PUT, "/admin/v1/environments/production/flags/checkout/settings", token: server.adminToken,
                body: #"{"enabled": true, "defaultVariant": "on", "reason": "launch"}"#)
            #expect(on.json == ["revisions": ["production": 4]])

            let audit = try await server.request(.GET, "/admin/v1/environments/production/audit?key=checkout", token: server.adminToken)
            let entries = audit.json?.arrayValue ?? []
            #expect(entries.map { $0["revision"] } == [4, 3, 2])
            #expect(entries.first?["reason"] == "launch")
            #expect(entries.first?["actor"]?.stringValue?.hasPrefix("token first-admin") == true)
            #expect(entries.first?["before"]?["settings"]?["enabled"] == false)
            #expect(entries.first?["after"]?["settings"]?["enabled"] == true)

            let revert = try await server.request(
                .POST, "/admin/v1/environments/production/flags/checkout/revert", token: server.adminToken,
                body: #"{"revision": 3}"#)
            #expect(revert.status == 200)
            #expect(revert.json == ["revisions": ["production": 5]])
            let flag = try await server.request(.GET, "/admin/v1/environments/production/flags/checkout", token: server.adminToken)
            #expect(flag.json?["settings"]?["enabled"] == false)
            #expect(flag.json?["revision"] == 5)
            let history = try await server.request(.GET, "/admin/v1/environments/production/revisions", token: server.adminToken)
            #expect(history.json?.arrayValue?.first?["reason"] == "revert \"checkout\" to revision 3")
            // Recorded as a revert, to which revision; a plain change carries no `revertedTo`.
            let reverted = try await server.request(
                .GET, "/admin/v1/environments/production/audit?key=checkout&limit=2", token: server.adminToken)
            #expect(reverted.json?.arrayValue?.map { $0["revertedTo"] } == [3, nil])

            // Reverting to the state the flag is in already writes nothing and says so.
            let nothing = try await server.request(
                .POST, "/admin/v1/environments/production/flags/checkout/revert", token: server.adminToken,
                body: #"{"revision": 5}"#)
            #expect(nothing.status == 409)
            #expect(nothing.json?["error"]?["message"]?.stringValue?.hasPrefix("nothing to revert") == true)
            let unchanged = try await server.request(.GET, "/admin/v1/environments/production/flags/checkout", token: server.adminToken)
            #expect(unchanged.json?["revision"] == 5)

            let beforeFlag = try await server.request(
                .POST, "/admin/v1/environments/production/flags/checkout/revert", token: server.adminToken,
                body: #"{"revision": 1}"#)
            #expect(beforeFlag.status == 409)
            let future = try await server.request(
                .POST, "/admin/v1/environments/production/flags/checkout/revert", token: server.adminToken,
                body: #"{"revision": 99}"#)
            #expect(future.status == 400)
        }
    }

    @Test
    func sensitiveValuesAreRedactedInTheAudit() async throws {
        try await TestServer.with { server in
            let created = try await server.request(
                .PUT, "/admin/v1/flags/api.secret", token: server.adminToken,
                body: #"{"type": "string", "variants": {"key": "sk-live-123"}, "metadata": {"sensitive": true}}"#)
            #expect(created.status == 200)
            let audit = try await server.request(.GET, "/admin/v1/environments/production/audit", token: server.adminToken)
            #expect(!audit.body.contains("sk-live-123"))
            #expect(audit.json?.arrayValue?.first?["after"]?["flag"]?["variants"]?["key"] == "<REDACTED>")
        }
    }

    @Test
    func segmentsAreSharedRulesOfOneEnvironment() async throws {
        try await TestServer.with { server in
            let segment = try await server.request(
                .PUT, "/admin/v1/environments/production/segments/beta", token: server.adminToken,
                body: #"{"rule": {"ends_with": [{"var": "email"}, "@beta.example"]}}"#)
            #expect(segment.status == 200)
            try await server.booleanFlag(
                "checkout", defaultVariant: "off", targeting: #"{"if": [{"$ref": "beta"}, "on", null]}"#)
            let token = try await server.token(.client, environment: "production")
            let beta = try await server.request(
                .POST, "/ofrep/v1/evaluate/flags/checkout", token: token, body: #"{"context": {"email": "a@beta.example"}}"#)
            #expect(beta.json?["value"] == true)
            let list = try await server.request(.GET, "/admin/v1/environments/production/segments", token: server.adminToken)
            #expect(list.json?["beta"] != nil)
            let inUse = try await server.request(.DELETE, "/admin/v1/environments/production/segments/beta", token: server.adminToken)
            #expect(inUse.status == 422)
        }
    }

    @Test
    func tokensAreListedWithoutSecretsAndScopedToTheirEnvironment() async throws {
        try await TestServer.with { server in
            let client = try await server.token(.client, environment: "staging", name: "web")
            let stagingAdmin = try await server.token(.admin, environment: "staging", name: "staging-admin")
            let list = try await server.request(.GET, "/admin/v1/tokens", token: server.adminToken)
            #expect(list.json?.arrayValue?.map { $0["name"] } == ["first-admin", "web", "staging-admin"])
            #expect(!list.body.contains(client))
            #expect(!list.body.contains("digest"))
            let scoped = try await server.request(.GET, "/admin/v1/tokens", token: stagingAdmin)
            #expect(scoped.json?.arrayValue?.map { $0["name"] } == ["web", "staging-admin"])
            let otherEnvironment = try await server.request(
                .POST, "/admin/v1/tokens", token: stagingAdmin,
                body: #"{"name": "x", "environment": "production", "role": "client"}"#)
            #expect(otherEnvironment.status == 403)
            let global = try await server.request(
                .PUT, "/admin/v1/flags/x", token: stagingAdmin, body: #"{"type": "boolean", "variants": {"on": true}}"#)
            #expect(global.status == 403)
            let clientWrites = try await server.request(.GET, "/admin/v1/environments/staging/flags", token: client)
            #expect(clientWrites.status == 403)
            // Without a token the answer is 401 whatever the body: nothing is read first.
            let anonymous = try await server.request(.POST, "/admin/v1/tokens", body: "not json")
            #expect(anonymous.status == 401)
        }
    }
}
