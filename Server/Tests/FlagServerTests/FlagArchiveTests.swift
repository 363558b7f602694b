import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOHTTP1
import Testing

/// Archiving a flag keeps its definition, settings and history in every environment, stops
/// serving it (delivery answers as for a flag that does not exist), and makes it read-only;
/// restoring brings it back exactly as it was. Both are audited writes of every environment.
struct FlagArchiveTests {
    // MARK: - The model

    @Test
    func archivingKeepsEverythingAndRestoringBringsItBackExactly() throws {
        let state = WritePathTests.baseState()
        let archived = try state.transition(applying: [.archiveFlag("limit")])
        var definition = try #require(archived.state.flags["limit"])
        #expect(definition.archived)
        definition.archived = false
        #expect(definition == state.flags["limit"])
        for key in state.environments.keys {
            #expect(archived.state.environments[key]?.settings["limit"] == state.environments[key]?.settings["limit"])
        }
        // One audit entry per environment, the definition's `archived` the only difference.
        #expect(archived.audit.map(\.environment) == ["development", "production", "staging"])
        for draft in archived.audit {
            #expect(draft.key == "limit")
            #expect(draft.before?["flag"]?["archived"] == nil)
            #expect(draft.after?["flag"]?["archived"] == true)
            #expect(draft.before?["settings"] == draft.after?["settings"])
        }
        let restored = try archived.state.transition(applying: [.restoreFlag("limit")])
        #expect(restored.state == state)
        #expect(restored.audit.map(\.after) == archived.audit.map(\.before))
    }

    @Test
    func anArchivedFlagIsReadOnlyUntilRestored() throws {
        let state = try WritePathTests.baseState().applying([.archiveFlag("limit")]).state
        let limit = try #require(state.flags["limit"])
        func refusal(_ changes: [StateChange]) -> StoreError? {
            do {
                _ = try state.applying(changes)
                return nil
            } catch {
                return error
            }
        }
        let readOnly = StoreError.conflict(#"flag "limit" is archived, and archived flags are read-only: restore it first"#)
        #expect(refusal([.putSettings(environment: "staging", flag: "limit", FlagSettings(enabled: false, defaultVariant: "low"))]) == readOnly)
        var changed = limit
        changed.variants["medium"] = 5
        changed.archived = false
        #expect(refusal([.putFlag(changed, initialSettings: FlagSettings(enabled: false, defaultVariant: "low"))]) == readOnly)
        // A put of the definition as it is (a manifest push listing it) changes nothing, and
        // does not restore it.
        var same = limit
        same.archived = false
        let unchanged = try state.transition(applying: [.putFlag(same, initialSettings: FlagSettings(enabled: false, defaultVariant: "low"))])
        #expect(unchanged.audit.isEmpty)
        #expect(unchanged.state.flags["limit"]?.archived == true)
        let settings = try #require(state.environments["staging"]?.settings["limit"])
        #expect(try state.applying([.putSettings(environment: "staging", flag: "limit", settings)]).audit.isEmpty)

        #expect(refusal([.archiveFlag("limit")]) == .conflict(#"flag "limit" is archived already"#))
        #expect(refusal([.restoreFlag("checkout")]) == .conflict(#"flag "checkout" is not archived"#))
        #expect(refusal([.archiveFlag("nothing")]) == .notFound(#"flag "nothing""#))
        // Deleting an archived flag is how it leaves for good.
        #expect(try state.applying([.deleteFlag("limit")]).state.flags["limit"] == nil)
    }

    @Test
    func aNewPutCannotCreateAnArchivedFlag() throws {
        let fresh = FlagRecord(key: "fresh", type: .boolean, variants: ["on": true], archived: true)
        let state = try WritePathTests.baseState().applying([.putFlag(fresh, initialSettings: FlagSettings(enabled: true, defaultVariant: "on"))]).state
        #expect(state.flags["fresh"]?.archived == false)
    }

    @Test
    func rowsAndAuditEntriesWrittenBeforeArchivingReadAsLiveFlags() throws {
        let old = try JSONValue(parsing: #"{"key": "checkout", "type": "boolean", "variants": {"on": true}, "metadata": {}}"#)
        #expect(try old.decoded(as: FlagRecord.self).archived == false)
        // A live flag's document is what it was before flags could be archived; an archived one's says so.
        let live = FlagRecord(key: "checkout", type: .boolean, variants: ["on": true])
        #expect(live.jsonValue["archived"] == nil)
        #expect(JSONValue(encoding: live) == live.jsonValue)
        var archived = live
        archived.archived = true
        #expect(archived.jsonValue["archived"] == true)
        #expect(JSONValue(encoding: archived) == archived.jsonValue)
        #expect(try archived.jsonValue.decoded(as: FlagRecord.self) == archived)
    }

    // MARK: - Dependents

    @Test
    func archivingAFlagOthersDependOnIsRefusedNamingThem() async throws {
        let store = try await SQLiteFlagStore(path: nil)
        let (server, _) = try await FlagServer.start(store: store, configuration: .init(limits: .forTests))
        let off = FlagSettings(enabled: false, defaultVariant: "on")
        try await server.admin.write(actor: "test", reason: nil) { _ in
            [
                .putFlag(FlagRecord(key: "checkout", type: .boolean, variants: ["on": true]), initialSettings: off),
                .putFlag(FlagRecord(key: "banner", type: .boolean, variants: ["on": true], metadata: FlagRecordMetadata(requires: ["checkout"])), initialSettings: off),
                .putFlag(FlagRecord(key: "promo", type: .boolean, variants: ["on": true], metadata: FlagRecordMetadata(conflicts: ["checkout"])), initialSettings: off),
            ]
        }
        let before = await server.admin.state
        do {
            try await server.admin.write(actor: "test", reason: "done") { _ in [.archiveFlag("checkout")] }
            Issue.record("archiving a flag others require was not refused")
        } catch {
            guard case .invalid(let problems) = error else { throw error }
            #expect(problems.map(\.description) == [
                #""banner": metadata.requires: names "checkout", which is archived (not served): take "checkout" out of "banner"'s metadata.requires or archive "banner" too"#,
                #""promo": metadata.conflicts: names "checkout", which is archived (not served): take "checkout" out of "promo"'s metadata.conflicts or archive "promo" too"#,
            ])
        }
        #expect(await server.admin.state == before)
        #expect(try await store.load() == before)

        // With its dependents archived first, it can go; a dependent cannot come back without it.
        try await server.admin.write(actor: "test", reason: nil) { _ in [.archiveFlag("banner"), .archiveFlag("promo")] }
        try await server.admin.write(actor: "test", reason: nil) { _ in [.archiveFlag("checkout")] }
        do {
            try await server.admin.write(actor: "test", reason: nil) { _ in [.restoreFlag("banner")] }
            Issue.record("restoring a flag that requires an archived one was not refused")
        } catch {
            guard case .invalid(let problems) = error else { throw error }
            #expect(problems.map(\.key) == ["banner"])
        }
        try await server.admin.write(actor: "test", reason: nil) { _ in [.restoreFlag("checkout"), .restoreFlag("banner")] }
        #expect(await server.admin.state.flags["banner"]?.archived == false)
        await store.close()
    }

    // MARK: - The admin API and delivery

    @Test
    func anArchivedFlagIsServedAsOneThatDoesNotExistUntilRestored() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout")
            try await server.booleanFlag("other")
            let client = try await server.token(.client, environment: "production")
            let flagd = try await server.token(.server, environment: "production")
            let context = #"{"context": {"targetingKey": "user-1"}}"#
            func served() async throws -> (single: TestServer.Reply, bulk: [String], flagd: [String], appConfig: [String]) {
                let single = try await server.request(.POST, "/ofrep/v1/evaluate/flags/checkout", token: client, body: context)
                let bulk = try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: client, body: context)
                let file = try await server.request(.GET, "/flagd/v1/flags.json", token: flagd)
                let config = try await server.request(.GET, "/rpc/app_config", token: client)
                return (
                    single, (bulk.json?["flags"]?.arrayValue ?? []).compactMap { $0["key"]?.stringValue },
                    file.json?["flags"]?.objectValue.map { Array($0.keys).sorted() } ?? [],
                    config.json?["flags"]?.objectValue.map { Array($0.keys).sorted() } ?? [])
            }
            let live = try await served()
            #expect(live.single.status == 200)
            #expect(live.bulk == ["checkout", "other"])
            #expect(live.flagd == ["checkout", "other"])
            #expect(live.appConfig == ["checkout", "other"])
            let definition = try await server.request(.GET, "/admin/v1/flags/checkout", token: server.adminToken)

            let archived = try await server.request(
                .POST, "/admin/v1/flags/checkout/archive", token: server.adminToken, body: #"{"reason": "launched for good"}"#)
            #expect(archived.status == 200, "\(archived.body)")
            #expect(archived.json?["revisions"]?.objectValue?.keys.sorted() == ["development", "production", "staging"])
            let shown = try await server.request(.GET, "/admin/v1/flags/checkout", token: server.adminToken)
            #expect(shown.json?["archived"] == true)
            let listed = try await server.request(.GET, "/admin/v1/flags", token: server.adminToken)
            #expect(listed.json?.arrayValue?.map { $0["archived"] } == [true, nil])

            let gone = try await served()
            #expect(gone.single.status == 404)
            #expect(gone.single.json?["errorCode"] == "FLAG_NOT_FOUND")
            #expect(gone.bulk == ["other"])
            #expect(gone.flagd == ["other"])
            #expect(gone.appConfig == ["other"])
            let export = try await server.request(.GET, "/admin/v1/environments/production/export", token: server.adminToken)
            #expect(export.json?["flags"]?["checkout"] == nil)
            #expect(export.json?["flags"]?["other"] != nil)

            // Read-only, and audited with the reason in every environment.
            let again = try await server.request(.POST, "/admin/v1/flags/checkout/archive", token: server.adminToken, body: "{}")
            #expect(again.status == 409)
            let edit = try await server.request(
                .PUT, "/admin/v1/environments/production/flags/checkout/settings", token: server.adminToken,
                body: #"{"enabled": false, "defaultVariant": "off"}"#)
            #expect(edit.status == 409)
            #expect(edit.body.contains("archived flags are read-only: restore it first"))
            for environment in ["development", "staging", "production"] {
                let audit = try await server.request(.GET, "/admin/v1/environments/\(environment)/audit?key=checkout", token: server.adminToken)
                let newest = audit.json?.arrayValue?.first
                #expect(newest?["reason"] == "launched for good")
                #expect(newest?["after"]?["flag"]?["archived"] == true)
            }

            let restored = try await server.request(.POST, "/admin/v1/flags/checkout/restore", token: server.adminToken, body: "{}")
            #expect(restored.status == 200, "\(restored.body)")
            #expect(try await server.request(.GET, "/admin/v1/flags/checkout", token: server.adminToken).body == definition.body)
            let back = try await served()
            #expect(back.single.status == 200)
            #expect(back.single.body == live.single.body)
            #expect(back.bulk == live.bulk)
            #expect(back.flagd == live.flagd)
            #expect(back.appConfig == live.appConfig)
            let audit = try await server.request(.GET, "/admin/v1/environments/production/audit?key=checkout", token: server.adminToken)
            #expect(audit.json?.arrayValue?.first?["reason"] == #"restore "checkout""#)
            let missing = try await server.request(.POST, "/admin/v1/flags/nothing/restore", token: server.adminToken, body: "{}")
            #expect(missing.status == 404)
        }
    }

    @Test
    func aManifestPushListingAnArchivedFlagKeepsItArchivedAndCannotChangeIt() async throws {
        try await TestServer.with { server in
            let manifest = #"{"flags": [{"key": "checkout", "type": "boolean", "variants": {"on": true, "off": false}, "defaultVariant": "off"}]}"#
            #expect(try await server.request(.POST, "/admin/v1/flags", token: server.adminToken, body: manifest).status == 200)
            let archived = try await server.request(.POST, "/admin/v1/flags/checkout/archive", token: server.adminToken, body: "{}")
            #expect(archived.status == 200)
            // The same definition pushed again (the code still names the flag) changes nothing.
            let again = try await server.request(.POST, "/admin/v1/flags", token: server.adminToken, body: manifest)
            #expect(again.status == 200, "\(again.body)")
            #expect(await server.server.admin.state.flags["checkout"]?.archived == true)
            let changed = #"{"flags": [{"key": "checkout", "type": "boolean", "variants": {"on": true, "off": false, "maybe": true}, "defaultVariant": "off"}]}"#
            let refused = try await server.request(.POST, "/admin/v1/flags", token: server.adminToken, body: changed)
            #expect(refused.status == 409)
            #expect(refused.body.contains("archived flags are read-only: restore it first"))
        }
    }

    @Test
    func aRelayServesAnArchivedFlagAsTheServerDoes() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout")
            try await server.booleanFlag("other")
            #expect(try await server.request(.POST, "/admin/v1/flags/checkout/archive", token: server.adminToken, body: "{}").status == 200)
            let client = try await server.token(.client, environment: "production")
            let follower = try await server.token(.server, environment: "production", name: "relay")
            try await TestRelay.with(following: server.baseURL, token: follower) { relay in
                await relay.relay.readiness.wait(untilReady: true)
                let context = #"{"context": {"targetingKey": "user-1"}}"#
                for path in ["/ofrep/v1/evaluate/flags", "/ofrep/v1/evaluate/flags/checkout", "/ofrep/v1/evaluate/flags/other"] {
                    let expected = try await server.request(.POST, path, token: client, body: context)
                    let relayed = try await relay.request(.POST, path, token: client, body: context)
                    #expect(relayed.status == expected.status, "\(path)")
                    #expect(relayed.json == expected.json, "\(path)")
                }
                #expect(try await relay.request(.POST, "/ofrep/v1/evaluate/flags/checkout", token: client, body: context).status == 404)
            }
        }
    }

    // MARK: - Storage and replicas

    @Test(arguments: StoreKind.allCases)
    func anArchivedFlagSurvivesTheStore(kind: StoreKind) async throws {
        try await FlagStoreCompatibilityTests.with(kind) { store in
            var state = try await store.load()
            try await store.commit(
                ChangeSet(actor: "ana", reason: "retired", changes: [.archiveFlag("checkout")], basedOn: state.revisions),
                at: FlagStoreCompatibilityTests.time)
            state = try await store.load()
            #expect(state.flags["checkout"]?.archived == true)
            #expect(state.environments["prod"]?.settings["checkout"] == FlagSettings(enabled: false, defaultVariant: "off"))
            // The audit holds what a replica catching up applies: the definition, archived.
            let entry = try #require(try await store.audit(environment: "prod", key: "checkout", limit: 1).first)
            #expect(entry.reason == "retired")
            #expect(try entry.after?["flag"]?.decoded(as: FlagRecord.self).archived == true)
            try await store.commit(
                ChangeSet(actor: "ana", changes: [.restoreFlag("checkout")], basedOn: state.revisions),
                at: FlagStoreCompatibilityTests.time)
            #expect(try await store.load().flags["checkout"] == FlagStoreCompatibilityTests.flag)
        }
    }

    // MARK: - The changelog

    @Test
    func theChangelogSaysArchivedAndRestored() {
        var archived = ChangelogTests.flag
        archived.archived = true
        let settings = FlagSettings(enabled: true, defaultVariant: "on")
        let live = ChangelogTests.view(settings)
        let gone = ChangelogTests.view(settings, flag: archived)
        let log = Changelog(
            ChangelogTests.environments.flatMap { environment in
                [
                    ChangelogTests.entry(environment, 5, at: 100, reason: "launched", before: live, after: gone),
                    ChangelogTests.entry(environment, 6, at: 200, before: gone, after: live),
                ]
            }, environments: ChangelogTests.environments)
        #expect(log.changes.map(\.summary) == ["restored checkout", "archived checkout"])
        #expect(log.changes.map { $0.entries.count } == [3, 3])
    }

    // MARK: - The console

    @Test
    func anEditorArchivesAndRestoresFromTheFlagPage() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("checkout")
            try await server.booleanFlag("other")
            try await server.consoleUser("erin", role: .editor)
            try await server.consoleUser("vic", role: .viewer)
            let client = ConsoleClient(server)
            try await client.signIn("erin")
            let csrf = try await client.csrf()

            let page = try await client.get("/console/flags/checkout")
            #expect(page.body.contains(#"id="archive-form""#))
            #expect(!page.body.contains(#"id="restore-form""#))
            // The reason and the confirmation are both required; nothing is written without them.
            let unconfirmed = try await client.post("/console/flags/checkout/archive", [("reason", "launched")], csrf: csrf)
            #expect(unconfirmed.status == 400)
            #expect(unconfirmed.body.contains("Confirm that &quot;checkout&quot; stops being served in every environment."))
            let noReason = try await client.post("/console/flags/checkout/archive", [("reason", " "), ("confirm", "yes")], csrf: csrf)
            #expect(noReason.status == 400)
            #expect(noReason.body.contains("the reason is required"))
            let forged = try await client.post("/console/flags/checkout/archive", [("reason", "launched"), ("confirm", "yes")], csrf: "wrong")
            #expect(forged.status == 403)
            #expect(await server.server.admin.state.flags["checkout"]?.archived == false)

            let archived = try await client.post("/console/flags/checkout/archive", [("reason", "launched"), ("confirm", "yes")], csrf: csrf)
            #expect(archived.status == 303)
            #expect(archived.location == "/console/flags/checkout?done=archived")
            #expect(await server.server.admin.state.flags["checkout"]?.archived == true)

            // Read-only: the banner and the restore form instead of the edit forms.
            let readOnly = try await client.get("/console/flags/checkout?done=archived")
            #expect(readOnly.body.contains(#"id="archived-banner""#))
            #expect(readOnly.body.contains(#"id="restore-form""#))
            #expect(readOnly.body.contains("not served while archived; once restored, serves on"))
            #expect(!readOnly.body.contains(#"id="settings-form""#))
            #expect(!readOnly.body.contains(#"id="archive-form""#))
            let edit = try await client.post(
                "/console/flags/checkout/environments/production/settings", [("enabled", "on"), ("defaultVariant", "off"), ("action", "save")],
                csrf: csrf)
            #expect(edit.status == 409)
            #expect(edit.body.contains("archived flags are read-only: restore it first"))

            // The grid hides it unless asked; the filter shows it with its badge and no switches.
            let grid = try await client.get("/console/flags")
            #expect(!grid.body.contains(#"id="flag-checkout""#))
            #expect(grid.body.contains(#"id="flag-other""#))
            let only = try await client.get("/console/flags?archived=only")
            #expect(only.body.contains(#"id="flag-checkout""#))
            #expect(!only.body.contains(#"id="flag-other""#))
            #expect(only.body.contains(#"<span class="badge archived">archived</span>"#))
            #expect(!only.body.contains(#"id="switch-checkout-production""#))
            let all = try await client.get("/console/flags?archived=all")
            #expect(all.body.contains(#"id="flag-checkout""#) && all.body.contains(#"id="flag-other""#))

            // The history says it in words.
            let history = try await client.get("/console/history?flag=checkout")
            #expect(history.body.contains("archived checkout"))

            // A viewer sees the state but no form.
            let viewer = ConsoleClient(server)
            try await viewer.signIn("vic")
            let seen = try await viewer.get("/console/flags/checkout")
            #expect(seen.body.contains(#"id="archived-banner""#))
            #expect(!seen.body.contains(#"id="restore-form""#))
            let refused = try await viewer.post("/console/flags/checkout/restore", [("reason", "back")], csrf: try await viewer.csrf())
            #expect(refused.status == 403)

            let restored = try await client.post("/console/flags/checkout/restore", [("reason", "needed again")], csrf: csrf)
            #expect(restored.status == 303)
            #expect(restored.location == "/console/flags/checkout?done=restored")
            #expect(await server.server.admin.state.flags["checkout"]?.archived == false)
            #expect(try await client.get("/console/history?flag=checkout").body.contains("restored checkout"))
            #expect(try await client.get("/console/flags").body.contains(#"id="flag-checkout""#))
        }
    }
}
