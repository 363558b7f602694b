import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOHTTP1
import Synchronization
import Testing

/// Approval rules, change requests and the kill switch, through the real admin routes on both
/// stores (Server/Docs/Approvals.md).
struct ApprovalTests {
    static func withServer(_ kind: StoreKind, _ body: (TestServer) async throws -> Void) async throws {
        try await TestServer.with(store: try await kind.makeFlagStore()) { server in try await body(server) }
    }

    static let production = "/admin/v1/environments/production"

    /// Sets production's rule through the API (a tightening: no approval needed).
    static func rule(_ server: TestServer, _ body: String) async throws {
        let reply = try await server.request(.PUT, production + "/approval-rule", token: server.adminToken, body: body)
        guard reply.status == 200 else { throw TestFailure("setting the rule failed: \(reply.status) \(reply.body)") }
    }

    static func settings(_ server: TestServer, _ key: String, in environment: String = "production") async throws -> FlagSettings? {
        await server.server.admin.state.environments[environment]?.settings[key]
    }

    @Test(arguments: StoreKind.sqliteAndPostgres)
    func everyDirectPathIntoAGovernedEnvironmentIsRefused(_ kind: StoreKind) async throws {
        try await Self.withServer(kind) { server in
            try await server.booleanFlag("checkout", enabled: false)
            try await server.booleanFlag("checkout", environment: "staging", enabled: true)
            let segment = try await server.request(
                .PUT, Self.production + "/segments/beta", token: server.adminToken, body: #"{"rule": {"in": ["@", {"var": "email"}]}}"#)
            #expect(segment.status == 200)
            try await Self.rule(server, #"{"requiredApprovals": 2, "appliesTo": ["settings", "segments", "definitions"]}"#)
            let before = await server.server.admin.state
            // The flag's first revision in production: reverting to it is a change of its settings.
            let history = try await server.request(.GET, Self.production + "/audit?key=checkout", token: server.adminToken)
            let revertTo = try #require(history.json?.arrayValue?.last?["revision"]?.intValue)

            let token = server.adminToken
            let attempts: [(String, HTTPMethod, String, String?)] = [
                ("PUT settings", .PUT, Self.production + "/flags/checkout/settings", #"{"enabled": true, "defaultVariant": "on"}"#),
                ("copy from staging", .POST, Self.production + "/flags/checkout/copy", #"{"from": "staging"}"#),
                ("revert", .POST, Self.production + "/flags/checkout/revert", #"{"revision": \#(revertTo)}"#),
                ("segment put", .PUT, Self.production + "/segments/beta", #"{"rule": {"==": [1, 1]}}"#),
                ("segment delete", .DELETE, Self.production + "/segments/beta", nil),
                ("definition", .PUT, "/admin/v1/flags/checkout", #"{"type": "boolean", "variants": {"on": true, "off": false, "maybe": false}}"#),
                ("archive", .POST, "/admin/v1/flags/checkout/archive", #"{"reason": "done"}"#),
                ("delete", .DELETE, "/admin/v1/flags/checkout", nil),
                ("push", .POST, "/admin/v1/flags",
                 #"{"flags": [{"key": "checkout", "type": "boolean", "variants": {"on": true, "off": false}, "defaultVariant": "off", "settings": {"production": {"enabled": true, "defaultVariant": "on"}}}]}"#),
                ("import", .POST, Self.production + "/import",
                 #"{"flags": {"checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"}}}"#),
            ]
            for (name, method, path, body) in attempts {
                let reply = try await server.request(method, path, token: token, body: body)
                #expect(reply.status == 409, "\(name): \(reply.status) \(reply.body)")
                #expect(reply.json?["error"]?["code"] == "approval_required", "\(name)")
                #expect(reply.json?["error"]?["message"]?.stringValue?.contains("/admin/v1/environments/production/change-requests") == true, "\(name)")
            }
            // The PATCH route, with its media type.
            let patch = try await server.request(
                .PATCH, Self.production + "/flags/checkout/settings", token: token, body: #"{"enabled": true}"#,
                headers: [("Content-Type", "application/merge-patch+json")])
            #expect(patch.status == 409)
            #expect(patch.json?["error"]?["code"] == "approval_required")

            // Nothing moved in production; staging, without a rule, takes direct writes.
            #expect(await server.server.admin.state.environments["production"] == before.environments["production"])
            let staging = try await server.request(
                .PUT, "/admin/v1/environments/staging/flags/checkout/settings", token: token, body: #"{"enabled": false, "defaultVariant": "off"}"#)
            #expect(staging.status == 200)
        }
    }

    @Test(arguments: StoreKind.sqliteAndPostgres)
    func aRuleCoversOnlyItsScopes(_ kind: StoreKind) async throws {
        try await Self.withServer(kind) { server in
            try await server.booleanFlag("checkout", enabled: false)
            try await Self.rule(server, #"{"requiredApprovals": 1, "appliesTo": ["settings"]}"#)
            // Segments and definitions are not covered by this rule; a new flag starts off and is
            // no settings change.
            let segment = try await server.request(
                .PUT, Self.production + "/segments/beta", token: server.adminToken, body: #"{"rule": {"==": [1, 1]}}"#)
            #expect(segment.status == 200)
            let created = try await server.request(
                .PUT, "/admin/v1/flags/search", token: server.adminToken, body: #"{"type": "boolean", "variants": {"on": true, "off": false}}"#)
            #expect(created.status == 200)
            let settings = try await server.request(
                .PUT, Self.production + "/flags/search/settings", token: server.adminToken, body: #"{"enabled": true, "defaultVariant": "on"}"#)
            #expect(settings.status == 409)
        }
    }

    @Test(arguments: StoreKind.sqliteAndPostgres)
    func theKillSwitchPassesAnyRuleNeedsAReasonAndIsAudited(_ kind: StoreKind) async throws {
        try await Self.withServer(kind) { server in
            try await server.booleanFlag("checkout", enabled: true, targeting: #"{"if": [true, "on", "off"]}"#)
            try await Self.rule(server, #"{"requiredApprovals": 3, "appliesTo": ["settings", "segments", "definitions"]}"#)
            let path = Self.production + "/flags/checkout/kill"
            let noReason = try await server.request(.POST, path, token: server.adminToken, body: #"{"reason": " "}"#)
            #expect(noReason.status == 400)
            // The endpoint only turns off: it takes nothing but the reason.
            let turnOn = try await server.request(.POST, path, token: server.adminToken, body: #"{"reason": "x", "enabled": true}"#)
            #expect(turnOn.status == 400)
            #expect(try await Self.settings(server, "checkout")?.enabled == true)

            let killed = try await server.request(.POST, path, token: server.adminToken, body: #"{"reason": "checkout errors at 30 %"}"#)
            #expect(killed.status == 200)
            let revision = try #require(killed.json?["revisions"]?["production"]?.intValue)
            let settings = try #require(try await Self.settings(server, "checkout"))
            // Off, and nothing else changed.
            #expect(settings == FlagSettings(enabled: false, defaultVariant: "on", targeting: settings.targeting))
            #expect(settings.targeting != nil)
            let audit = try await server.request(.GET, Self.production + "/audit?key=checkout&limit=1", token: server.adminToken)
            #expect(audit.json?.arrayValue?.first?["revision"]?.intValue == revision)
            #expect(audit.json?.arrayValue?.first?["reason"] == "kill switch: checkout errors at 30 %")

            // Already off: nothing to do, no revision.
            let again = try await server.request(.POST, path, token: server.adminToken, body: #"{"reason": "again"}"#)
            #expect(again.status == 200)
            #expect(again.json?["revisions"] == [:])
        }
    }

    @Test
    func theKillSwitchOnlyTurnsFlagsOff() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout", enabled: false)
            // Through the write path itself: a kill-switch write that turns on, or changes more than
            // `enabled`, is refused.
            await #expect(throws: AdminError.badRequest("the kill switch only turns flags off (enabled: false, everything else kept)")) {
                try await server.server.admin.write(actor: "test", reason: "x", approval: .killSwitch) { _ in
                    [.putSettings(environment: "production", flag: "checkout", FlagSettings(enabled: true, defaultVariant: "on"))]
                }
            }
            try await server.booleanFlag("other", enabled: true)
            await #expect(throws: AdminError.self) {
                try await server.server.admin.write(actor: "test", reason: "x", approval: .killSwitch) { _ in
                    [.putSettings(environment: "production", flag: "other", FlagSettings(enabled: false, defaultVariant: "off"))]
                }
            }
            #expect(await server.server.admin.state.environments["production"]?.settings["other"]?.enabled == true)
        }
    }

    @Test(arguments: StoreKind.sqliteAndPostgres)
    func aChangeRequestNeedsOthersApprovalsAndAnEditWithdrawsThem(_ kind: StoreKind) async throws {
        try await Self.withServer(kind) { server in
            try await server.booleanFlag("checkout", enabled: false)
            try await Self.rule(server, #"{"requiredApprovals": 2}"#)
            let alice = try await server.token(.admin, environment: "production", name: "alice")
            let bob = try await server.token(.admin, environment: "production", name: "bob")
            let carol = try await server.token(.admin, environment: "*", name: "carol")
            let requests = Self.production + "/change-requests"

            let opened = try await server.request(
                .POST, requests, token: alice,
                body: #"{"change": {"flag": "checkout", "patch": {"enabled": true}}, "reason": "launch"}"#)
            #expect(opened.status == 201, "\(opened.body)")
            let id = try #require(opened.json?["id"]?.stringValue)
            #expect(opened.json?["status"] == "open")
            #expect(opened.json?["author"] == ["kind": "token", "name": "alice"])
            #expect(opened.json?["requiredApprovals"] == 2)
            #expect(opened.json?["approved"] == false)
            // The exact diff: the settings before and after.
            let diff = try #require(opened.json?["diff"]?.arrayValue)
            #expect(diff.count == 1)
            #expect(diff[0]["before"]?["settings"]?["enabled"] == false)
            #expect(diff[0]["after"]?["settings"]?["enabled"] == true)
            #expect(diff[0]["after"]?["settings"]?["defaultVariant"] == "on")
            let basedOn = try #require(opened.json?["basedOnRevision"]?.intValue)
            #expect(basedOn == (await server.server.admin.state.environments["production"]?.revision))

            // No self-approval; one approval per identity.
            let own = try await server.request(.POST, requests + "/\(id)/approve", token: alice, body: "{}")
            #expect(own.status == 409)
            #expect(own.json?["error"]?["message"]?.stringValue?.contains("author") == true)
            let first = try await server.request(.POST, requests + "/\(id)/approve", token: bob, body: #"{"comment": "ok"}"#)
            #expect(first.status == 200)
            #expect(first.json?["approvals"]?.arrayValue?.count == 1)
            let twice = try await server.request(.POST, requests + "/\(id)/approve", token: bob, body: "{}")
            #expect(twice.status == 409)
            // One approval of two: not applied.
            let early = try await server.request(.POST, requests + "/\(id)/apply", token: bob)
            #expect(early.status == 409)
            #expect(early.json?["error"]?["code"] == "approval_required")
            #expect(try await Self.settings(server, "checkout")?.enabled == false)

            // An edit withdraws every approval, recorded in the history.
            let edited = try await server.request(
                .PUT, requests + "/\(id)", token: alice,
                body: #"{"change": {"flag": "checkout", "settings": {"enabled": true, "defaultVariant": "off"}}, "reason": "launch, safer"}"#)
            #expect(edited.status == 200)
            #expect(edited.json?["approvals"] == [])
            let actions = edited.json?["history"]?.arrayValue?.compactMap { $0["action"]?.stringValue }
            #expect(actions == ["opened", "approved", "approvals_withdrawn", "edited"])
            #expect(edited.json?["diff"]?.arrayValue?.first?["after"]?["settings"]?["defaultVariant"] == "off")
            // Only its author edits it.
            let foreign = try await server.request(
                .PUT, requests + "/\(id)", token: bob, body: #"{"change": {"flag": "checkout", "patch": {"enabled": true}}, "reason": "mine"}"#)
            #expect(foreign.status == 409)

            #expect(try await server.request(.POST, requests + "/\(id)/approve", token: bob, body: "{}").status == 200)
            let second = try await server.request(.POST, requests + "/\(id)/approve", token: carol, body: "{}")
            #expect(second.json?["approved"] == true)
            let applied = try await server.request(.POST, requests + "/\(id)/apply", token: alice)
            #expect(applied.status == 200, "\(applied.body)")
            #expect(applied.json?["status"] == "applied")
            let revision = try #require(applied.json?["appliedRevision"]?.intValue)
            #expect(revision == (await server.server.admin.state.environments["production"]?.revision))
            #expect(try await Self.settings(server, "checkout") == FlagSettings(enabled: true, defaultVariant: "off"))
            // The audit names the request and its approvers.
            let audit = try await server.request(.GET, Self.production + "/audit?key=checkout&limit=1", token: server.adminToken)
            let reason = try #require(audit.json?.arrayValue?.first?["reason"]?.stringValue)
            #expect(reason == "change request \(id) (approved by token bob, token carol): launch, safer")
            #expect(audit.json?.arrayValue?.first?["actor"]?.stringValue?.hasPrefix("token alice") == true)
            // Applied once; a second apply is refused.
            #expect(try await server.request(.POST, requests + "/\(id)/apply", token: alice).status == 409)

            let listed = try await server.request(.GET, requests, token: bob)
            #expect(listed.json?.arrayValue?.map { $0["id"] } == [.string(id)])
        }
    }

    @Test(arguments: StoreKind.sqliteAndPostgres)
    func anApprovedRequestIsRefusedOnceTheFlagMovedAndARejectionClosesIt(_ kind: StoreKind) async throws {
        try await Self.withServer(kind) { server in
            try await server.booleanFlag("checkout", enabled: true)
            try await Self.rule(server, #"{"requiredApprovals": 1}"#)
            let alice = try await server.token(.admin, environment: "production", name: "alice")
            let bob = try await server.token(.admin, environment: "production", name: "bob")
            let requests = Self.production + "/change-requests"
            let body = #"{"change": {"flag": "checkout", "patch": {"defaultVariant": "off"}}, "reason": "serve off"}"#
            let opened = try await server.request(.POST, requests, token: alice, body: body)
            let id = try #require(opened.json?["id"]?.stringValue)
            #expect(try await server.request(.POST, requests + "/\(id)/approve", token: bob, body: "{}").status == 200)

            // The flag moves (the kill switch needs no approval): the approval was for another state.
            let killed = try await server.request(.POST, Self.production + "/flags/checkout/kill", token: bob, body: #"{"reason": "incident"}"#)
            #expect(killed.status == 200)
            let stale = try await server.request(.POST, requests + "/\(id)/apply", token: alice)
            #expect(stale.status == 409)
            #expect(stale.json?["error"]?["code"] == "approval_required")
            #expect(stale.json?["error"]?["message"]?.stringValue?.contains("approved again") == true)
            #expect(try await Self.settings(server, "checkout") == FlagSettings(enabled: false, defaultVariant: "on"))

            // Edited onto the current state and approved again, it applies.
            let edited = try await server.request(.PUT, requests + "/\(id)", token: alice, body: body)
            #expect(edited.json?["diff"]?.arrayValue?.first?["before"]?["settings"]?["enabled"] == false)
            #expect(try await server.request(.POST, requests + "/\(id)/approve", token: bob, body: "{}").status == 200)
            #expect(try await server.request(.POST, requests + "/\(id)/apply", token: alice).status == 200)
            #expect(try await Self.settings(server, "checkout") == FlagSettings(enabled: false, defaultVariant: "off"))

            // A rejection closes a request: no approval or apply after it.
            let other = try await server.request(
                .POST, requests, token: alice, body: #"{"change": {"flag": "checkout", "patch": {"enabled": true}}, "reason": "back on"}"#)
            let otherID = try #require(other.json?["id"]?.stringValue)
            let rejected = try await server.request(.POST, requests + "/\(otherID)/reject", token: bob, body: #"{"comment": "not yet"}"#)
            #expect(rejected.json?["status"] == "rejected")
            #expect(try await server.request(.POST, requests + "/\(otherID)/approve", token: bob, body: "{}").status == 409)
            #expect(try await server.request(.POST, requests + "/\(otherID)/apply", token: alice).status == 409)
        }
    }

    @Test(arguments: StoreKind.sqliteAndPostgres)
    func segmentsAndScheduledRequests(_ kind: StoreKind) async throws {
        try await Self.withServer(kind) { server in
            try await Self.rule(server, #"{"requiredApprovals": 1, "appliesTo": ["segments"]}"#)
            let alice = try await server.token(.admin, environment: "production", name: "alice")
            let bob = try await server.token(.admin, environment: "production", name: "bob")
            let requests = Self.production + "/change-requests"
            let later = Date(timeIntervalSinceNow: 3600).formatted(.iso8601)
            let opened = try await server.request(
                .POST, requests, token: alice,
                body: #"{"change": {"segment": "beta", "rule": {"==": [1, 1]}}, "reason": "beta", "applyAt": "\#(later)"}"#)
            #expect(opened.status == 201, "\(opened.body)")
            let id = try #require(opened.json?["id"]?.stringValue)
            #expect(opened.json?["diff"]?.arrayValue?.first?["subject"] == "segment")
            #expect(try await server.request(.POST, requests + "/\(id)/approve", token: bob, body: "{}").status == 200)
            // Scheduled: not before its time.
            let early = try await server.request(.POST, requests + "/\(id)/apply", token: alice)
            #expect(early.status == 409)
            #expect(early.json?["error"]?["message"]?.stringValue?.contains("scheduled") == true)
            let now = try await server.request(
                .PUT, requests + "/\(id)", token: alice, body: #"{"change": {"segment": "beta", "rule": {"==": [1, 1]}}, "reason": "beta now"}"#)
            #expect(now.status == 200)
            #expect(try await server.request(.POST, requests + "/\(id)/approve", token: bob, body: "{}").status == 200)
            #expect(try await server.request(.POST, requests + "/\(id)/apply", token: alice).status == 200)
            #expect(await server.server.admin.state.environments["production"]?.segments["beta"] == ["==": [1, 1]])
        }
    }

    @Test(arguments: StoreKind.sqliteAndPostgres)
    func loosingARuleNeedsApprovalUnderItAndIsAudited(_ kind: StoreKind) async throws {
        try await Self.withServer(kind) { server in
            let alice = try await server.token(.admin, environment: "production", name: "alice")
            let bob = try await server.token(.admin, environment: "production", name: "bob")
            try await Self.rule(server, #"{"requiredApprovals": 1, "reason": "governed"}"#)
            // Tightening applies at once; loosening or removing does not.
            try await Self.rule(server, #"{"requiredApprovals": 2}"#)
            let lower = try await server.request(.PUT, Self.production + "/approval-rule", token: alice, body: #"{"requiredApprovals": 1}"#)
            #expect(lower.status == 409)
            #expect(lower.json?["error"]?["code"] == "approval_required")
            let removed = try await server.request(.DELETE, Self.production + "/approval-rule", token: alice)
            #expect(removed.status == 409)

            let requests = Self.production + "/change-requests"
            let opened = try await server.request(
                .POST, requests, token: alice, body: #"{"change": {"removeApprovalRule": true}, "reason": "pilot over"}"#)
            #expect(opened.status == 201, "\(opened.body)")
            let id = try #require(opened.json?["id"]?.stringValue)
            #expect(opened.json?["diff"]?.arrayValue?.first?["before"]?["requiredApprovals"] == 2)
            #expect(try await server.request(.POST, requests + "/\(id)/approve", token: bob, body: "{}").status == 200)
            // Two approvals asked for, one given.
            #expect(try await server.request(.POST, requests + "/\(id)/apply", token: alice).status == 409)
            #expect(try await server.request(.POST, requests + "/\(id)/approve", token: server.adminToken, body: "{}").status == 200)
            #expect(try await server.request(.POST, requests + "/\(id)/apply", token: alice).status == 200)
            #expect(try await server.request(.GET, Self.production + "/approval-rule", token: alice).status == 404)

            // Every rule change is in the environment's audit.
            let audit = try await server.request(.GET, Self.production + "/audit?key=production", token: alice)
            let entries = try #require(audit.json?.arrayValue).filter { $0["subject"] == "approvalRule" }
            #expect(entries.count == 3)
            #expect(entries.first?["after"] == nil || entries.first?["after"] == .null)
            #expect(entries.first?["reason"]?.stringValue?.contains(id) == true)
            #expect(entries.last?["reason"] == "governed")
        }
    }

    @Test(arguments: StoreKind.sqliteAndPostgres)
    func aStaleUpdateOfAChangeRequestIsRefused(_ kind: StoreKind) async throws {
        try await Self.withServer(kind) { server in
            try await server.booleanFlag("checkout", enabled: false)
            let store = try #require(server.server.admin.store as? any ApprovalStore)
            let approvals = Approvals(admin: server.server.admin, store: store)
            let request = try await approvals.open(
                environment: "production", proposal: .init(flag: "checkout", patch: ["enabled": true]), reason: "on", applyAt: nil,
                by: ApprovalIdentity(kind: .user, name: "ann"))
            #expect(try await store.changeRequest(id: request.id) == request)
            var stale = request
            stale.reason = "changed"
            stale.version = request.version + 2
            await #expect(throws: StoreError.conflict("change request \"\(request.id)\" changed meanwhile; read it again")) {
                try await store.updateChangeRequest(stale)
            }
            #expect(try await store.changeRequest(id: request.id)?.reason == "on")
        }
    }

    /// Records what it is told.
    final class RecordingSink: NotificationSink {
        let received = Mutex<[ServerNotification]>([])
        func notify(_ notification: ServerNotification) { received.withLock { $0.append(notification) } }
    }

    @Test
    func changeRequestsAndTheKillSwitchAreAnnounced() async throws {
        let store = try await SQLiteFlagStore(path: nil)
        let sink = RecordingSink()
        let admin = FlagAdmin(
            store: store, publisher: StatePublisher(ttlSeconds: 60), events: EventHub(),
            writeTimeout: ServerLimits.forTests.writeTimeout, notifications: sink)
        try await store.migrate()
        try await admin.reload()
        try await admin.write(actor: "test", reason: nil) { _ in
            [.createEnvironment("production"),
             .putFlag(FlagRecord(key: "checkout", type: .boolean, variants: ["on": true, "off": false]), initialSettings: FlagSettings(enabled: false, defaultVariant: "on"))]
        }
        let approvals = Approvals(admin: admin, store: store)
        try await approvals.putRule(ApprovalRule(requiredApprovals: 1), environment: "production", actor: "test", reason: nil)
        let ann = ApprovalIdentity(kind: .user, name: "ann"), ben = ApprovalIdentity(kind: .token, name: "ben")
        let opened = try await approvals.open(
            environment: "production", proposal: .init(flag: "checkout", patch: ["enabled": true]), reason: "on", applyAt: nil, by: ann)
        _ = try await approvals.approve(id: opened.id, environment: "production", by: ben, comment: nil)
        let applied = try await approvals.apply(id: opened.id, environment: "production", by: ann, actor: "ann")
        let second = try await approvals.open(
            environment: "production", proposal: .init(flag: "checkout", patch: ["defaultVariant": "off"]), reason: "x", applyAt: nil, by: ann)
        _ = try await approvals.reject(id: second.id, environment: "production", by: ben, comment: "no")
        _ = try await approvals.kill(flag: "checkout", environment: "production", reason: "incident", actor: "ben")
        // Every committed write is also announced as flag.changed (the first write, the applied
        // request, the kill switch; Server/Docs/Webhooks.md).
        #expect(sink.received.withLock { $0.filter { $0.kind == .flagChanged }.map(\.revision) } == [1, applied.appliedRevision, applied.appliedRevision.map { $0 + 1 }])
        let received = sink.received.withLock { $0.filter { $0.kind != .flagChanged } }
        let kinds = received.map(\.kind)
        #expect(kinds == [.changeRequestOpened, .changeRequestApproved, .changeRequestApplied, .changeRequestOpened, .changeRequestRejected, .killSwitch])
        #expect(received[2].revision == applied.appliedRevision)
        #expect(received[2].details["changeRequest"] == .string(opened.id))
        #expect(received[5].flag == "checkout")
        #expect(received[5].details["reason"] == "incident")
        await store.close()
    }

    @Test
    func theConsoleKillSwitchNeedsAReasonAndACSRFToken() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("checkout", enabled: true)
            try await Self.rule(server, #"{"requiredApprovals": 2}"#)
            try await server.consoleUser("erin", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("erin")
            let csrf = try await client.csrf()
            let page = try await client.get("/console/flags/checkout?environment=production")
            #expect(page.body.contains(#"id="kill-form""#))
            // The ordinary save is refused under the rule, with the pointer to change requests.
            let save = try await client.post(
                "/console/flags/checkout/environments/production/settings", [("defaultVariant", "off"), ("enabled", "on"), ("action", "save")],
                csrf: csrf)
            #expect(save.status == 409)
            #expect(save.body.contains("change-requests"))
            // The same form proposes it as a change request instead (a reason is required).
            let unexplained = try await client.post(
                "/console/flags/checkout/environments/production/settings", [("defaultVariant", "off"), ("enabled", "on"), ("action", "propose")],
                csrf: csrf)
            #expect(unexplained.status == 400)
            let proposed = try await client.post(
                "/console/flags/checkout/environments/production/settings",
                [("defaultVariant", "off"), ("enabled", "on"), ("action", "propose"), ("reason", "serve off")], csrf: csrf)
            #expect(proposed.status == 303)
            #expect(proposed.location?.hasPrefix("/console/environments/production/change-requests/cr-") == true)
            let store = try #require(server.server.admin.store as? any ApprovalStore)
            let opened = try #require(try await store.changeRequests(environment: "production", limit: 10).first)
            #expect(opened.author == ApprovalIdentity(kind: .user, name: "erin"))
            #expect(opened.proposal.settings == FlagSettings(enabled: true, defaultVariant: "off"))
            #expect(try await Self.settings(server, "checkout")?.defaultVariant == "on")
            let path = "/console/flags/checkout/environments/production/kill"
            let forged = try await client.post(path, [("reason", "incident")], csrf: "wrong")
            #expect(forged.status == 403)
            let noReason = try await client.post(path, [("reason", "")], csrf: csrf)
            #expect(noReason.status == 400)
            #expect(try await Self.settings(server, "checkout")?.enabled == true)
            let killed = try await client.post(path, [("reason", "incident")], csrf: csrf)
            #expect(killed.status == 303)
            #expect(killed.location == "/console/flags/checkout?environment=production&done=killed")
            #expect(try await Self.settings(server, "checkout")?.enabled == false)
            let audit = try await server.server.admin.store.audit(environment: "production", key: "checkout", limit: 1)
            #expect(audit.first?.reason == "kill switch: incident")
            #expect(audit.first?.actor == "erin")
        }
    }

    @Test
    func consoleUsersReviewAndApplyChangeRequests() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("checkout", enabled: false)
            try await Self.rule(server, #"{"requiredApprovals": 1}"#)
            let opened = try await server.request(
                .POST, Self.production + "/change-requests", token: server.adminToken,
                body: #"{"change": {"flag": "checkout", "patch": {"enabled": true}}, "reason": "launch <now>"}"#)
            let id = try #require(opened.json?["id"]?.stringValue)
            try await server.consoleUser("erin", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("erin")
            let csrf = try await client.csrf()

            let list = try await client.get("/console/environments/production/change-requests")
            #expect(list.status == 200)
            #expect(list.body.contains(#"id="request-\#(id)""#))
            // Escaped, not markup.
            #expect(list.body.contains("launch &lt;now&gt;"))
            let base = "/console/environments/production/change-requests/\(id)"
            let detail = try await client.get(base)
            #expect(detail.body.contains("<code>settings.enabled</code>"))
            #expect(detail.body.contains(#"id="approve-form""#))
            #expect(detail.body.contains("0 of 1"))

            // Applying before the approval is refused on the page.
            let early = try await client.post(base + "/apply", [], csrf: csrf)
            #expect(early.status == 409)
            #expect(try await Self.settings(server, "checkout")?.enabled == false)
            #expect(try await client.post(base + "/approve", [("comment", "ok")], csrf: "wrong").status == 403)
            let approved = try await client.post(base + "/approve", [("comment", "ok")], csrf: csrf)
            #expect(approved.status == 303)
            #expect(try await client.post(base + "/apply", [], csrf: csrf).location == base + "?done=applied")
            #expect(try await Self.settings(server, "checkout")?.enabled == true)
            let audit = try await server.server.admin.store.audit(environment: "production", key: "checkout", limit: 1)
            #expect(audit.first?.reason == "change request \(id) (approved by user erin): launch <now>")
            #expect(audit.first?.actor == "erin")
        }
    }
}
