import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOHTTP1
import Testing

/// Removal evidence over the admin API and in the console's grid, from an event store whose rows
/// the test gives.
struct EvidenceRoutesTests {
    static let day = RollupGranularity.day.milliseconds
    /// A fixed moment (kept for the whole test, so that the window cannot move under it).
    static let moment = Date()
    static var now: Int64 { Int64(moment.timeIntervalSince1970 * 1000) }
    static var today: Int64 { RollupGranularity.day.bucket(of: now) }

    /// `checkout` served `on` every day of the last 30 (and `off` on 1.0 the day before), `legacy`
    /// last evaluated 40 days ago, `search` serving two variants today.
    static func store() -> FixedRowsEventStore {
        func row(_ flag: String, _ variant: String, _ version: String, _ bucket: Int64) -> EvaluationRollup {
            EvaluationRollup(
                bucket: bucket, flag: flag, variant: variant, reason: "STATIC", appVersion: version, platform: "iOS", evaluations: 5,
                exposures: 1)
        }
        let start = today - 30 * Self.day
        var rows: [EvaluationRollup] = []
        for offset in Int64(0)...30 { rows.append(row("checkout", "on", "2.0", start + offset * Self.day)) }
        rows.append(row("checkout", "off", "1.0", start - Self.day))
        rows += [row("search", "on", "2.0", today), row("search", "off", "2.0", today)]
        var store = FixedRowsEventStore()
        store.rollups["production"] = rows
        store.lastEvaluated["production"] = ["checkout": now, "legacy": now - 40 * Self.day, "search": now]
        return store
    }

    @Test
    func theAdminAPIAnswersEachFlagsStateWithItsEvidence() async throws {
        try await TestServer.with(eventStore: Self.store(), now: { Self.moment }) { server in
            for key in ["checkout", "legacy", "search"] { try await server.booleanFlag(key) }
            let reply = try await server.request(.GET, "/admin/v1/environments/production/evidence", token: server.adminToken)
            #expect(reply.status == 200, "\(reply.body)")
            let json = try #require(reply.json)
            #expect(json["days"] == 30)
            #expect(json["eventsEnabled"] == true)
            #expect(json["historyCoversWindow"] == true)
            let flags = try #require(json["flags"]?.arrayValue)
            #expect(flags.map { $0["flag"]?.stringValue } == ["checkout", "legacy", "search"])
            #expect(flags.map { $0["state"]?.stringValue } == ["settled", "unused", "active"])
            #expect(flags[0]["run"]?["variant"] == "on")
            #expect(flags[0]["run"]?["since"]?.intValue == Int(Self.today - 30 * Self.day))
            #expect(flags[0]["run"]?["appVersions"] == ["2.0"])
            #expect(flags[1]["lastEvaluated"]?.intValue == Int(Self.now - 40 * Self.day))
            // A shorter window: the flag last evaluated 40 days ago is still unused, and a token
            // of another environment may not read production's evidence.
            let week = try await server.request(.GET, "/admin/v1/environments/production/evidence?days=7", token: server.adminToken)
            #expect(week.json?["days"] == 7)
            let staging = try await server.token(.admin, environment: "staging")
            #expect(try await server.request(.GET, "/admin/v1/environments/production/evidence", token: staging).status == 403)
            #expect(try await server.request(.GET, "/admin/v1/environments/nowhere/evidence", token: server.adminToken).status == 404)
            for days in ["0", "366", "many"] {
                let refused = try await server.request(.GET, "/admin/v1/environments/production/evidence?days=\(days)", token: server.adminToken)
                #expect(refused.status == 400, "\(days)")
            }
        }
    }

    @Test
    func theAnswersMatchTheOpenAPIDocument() async throws {
        let directory = TemporaryDirectory().path
        try await TestServer.with(eventStore: Self.store(), now: { Self.moment }) { server in
            for key in ["checkout", "legacy", "search"] { try await server.booleanFlag(key) }
            let document = try await server.request(.GET, "/openapi.json")
            try document.body.write(toFile: directory + "/openapi.json", atomically: true, encoding: .utf8)
            var r = OpenAPIDocumentTests.Recorder()
            let template = "/admin/v1/environments/{environment}/evidence"
            _ = try await r.call(server, .GET, template, "/admin/v1/environments/production/evidence?days=30", token: server.adminToken)
            _ = try await r.call(server, .GET, template, "/admin/v1/environments/staging/evidence", token: server.adminToken)
            _ = try await r.call(server, .GET, template, "/admin/v1/environments/nowhere/evidence", token: server.adminToken)
            _ = try await r.call(server, .GET, template, "/admin/v1/environments/production/evidence?days=0", token: server.adminToken)
            try JSONValue.array(r.entries).serialized().write(toFile: directory + "/responses.json", atomically: true, encoding: .utf8)
        }
        let (status, text) = try OpenAPIDocumentTests.validate([directory + "/openapi.json", directory + "/responses.json"])
        #expect(status == 0, "\(text)")
        #expect(text.contains(" 0 problems"), "\(text)")
    }

    @Test
    func withoutAnEventStoreEveryFlagIsUnknown() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout")
            let reply = try await server.request(.GET, "/admin/v1/environments/production/evidence?days=30", token: server.adminToken)
            #expect(reply.status == 200)
            #expect(reply.json?["eventsEnabled"] == false)
            #expect(reply.json?["flags"]?.arrayValue?.first?["state"] == "unknown")
        }
    }

    @Test
    func theGridFiltersUnusedAndSettledFlagsAndNamesTheStateInABadge() async throws {
        try await TestServer.withConsole(eventStore: Self.store(), now: { Self.moment }) { server in
            for key in ["checkout", "legacy", "search"] { try await server.booleanFlag(key) }
            try await server.consoleUser("vera", role: .viewer)
            let client = ConsoleClient(server)
            try await client.signIn("vera")
            let since = ConsoleRoutes.shortDay(Self.today - 30 * Self.day)
            // The grid never waits for the event store: its first view starts the computation.
            let first = try await client.get("/console/flags")
            #expect(first.body.contains(#"id="evidence-computing""#))
            #expect(!first.body.contains("badge settled"))
            // The admin API waits for it (joining the computation the grid started).
            #expect(try await server.request(.GET, "/admin/v1/environments/production/evidence", token: server.adminToken).status == 200)
            let all = try await client.get("/console/flags")
            #expect(!all.body.contains(#"id="evidence-computing""#))
            #expect(all.body.contains(#"<select id="lifecycle" name="lifecycle""#))
            #expect(all.body.contains(#"<span class="badge settled" title="served only on to every unit"#))
            #expect(all.body.contains(">settled on on since \(since) in production</span>"))
            #expect(all.body.contains(">unused in production since \(ConsoleRoutes.shortDay(Self.now - 40 * Self.day))</span>"))
            let settled = try await client.get("/console/flags?lifecycle=settled")
            #expect(settled.body.contains(#"<tr id="flag-checkout">"#))
            #expect(!settled.body.contains(#"<tr id="flag-legacy">"#))
            #expect(!settled.body.contains(#"<tr id="flag-search">"#))
            let unused = try await client.get("/console/flags?lifecycle=unused&in=production")
            #expect(unused.body.contains(#"<tr id="flag-legacy">"#))
            #expect(!unused.body.contains(#"<tr id="flag-checkout">"#))
            // Staging has no events: no badge there, and its filter matches nothing.
            let staging = try await client.get("/console/flags?lifecycle=settled&in=staging")
            #expect(staging.body.contains(#"id="no-flags""#))
        }
    }

    @Test
    func theGridEscapesWhatTheEventsName() async throws {
        // Variant names and app versions come from the apps: the page escapes them.
        var store = FixedRowsEventStore()
        let start = Self.today - 30 * Self.day
        store.rollups["production"] = (Int64(0)...30).map { offset in
            EvaluationRollup(
                bucket: start + offset * Self.day, flag: "checkout", variant: "<b>on</b>", reason: "STATIC", appVersion: "\"><i>2",
                platform: "iOS", evaluations: 1, exposures: 0)
        }
        try await TestServer.withConsole(eventStore: store, now: { Self.moment }) { server in
            try await server.booleanFlag("checkout")
            try await server.consoleUser("vera", role: .viewer)
            let client = ConsoleClient(server)
            try await client.signIn("vera")
            _ = try await server.request(.GET, "/admin/v1/environments/production/evidence", token: server.adminToken)
            let page = try await client.get("/console/flags?lifecycle=settled")
            #expect(page.body.contains(">settled on &lt;b&gt;on&lt;/b&gt; since"))
            #expect(page.body.contains("on app versions &quot;&gt;&lt;i&gt;2"))
            #expect(!page.body.contains("<b>on</b>"))
            #expect(!page.body.contains("<i>2"))
        }
    }

    @Test
    func theGridQueryKeepsOnlyKnownLifecycleStatesAndFiltersOnTheEvidence() {
        let query = FlagGrid.Query(ConsoleForm(parsing: "lifecycle=settled&in=staging&page=2"))
        #expect(query.lifecycle == "settled")
        #expect(query.lifecycleEnvironment == "staging")
        #expect(query.queryString == "lifecycle=settled&in=staging&page=2")
        #expect(FlagGrid.Query(ConsoleForm(parsing: "lifecycle=active")).lifecycle == "")
        let flags = ["a", "b", "c"].map { FlagRecord(key: $0, type: .boolean, variants: ["on": true, "off": false]) }
        let grid = FlagGrid(flags: flags, query: query, evidence: ["a": .settled, "b": .unused])
        #expect(grid.flags.map(\.key) == ["a"])
        #expect(ConsoleRoutes.lifecycleEnvironment(query, environments: ["development", "staging", "production"]) == "staging")
        #expect(ConsoleRoutes.lifecycleEnvironment(FlagGrid.Query(), environments: ["development", "staging", "production"]) == "production")
        #expect(ConsoleRoutes.lifecycleEnvironment(FlagGrid.Query(), environments: ["dev", "live"]) == "live")
    }

    @Test
    func theBadgeSaysTheStateInWords() {
        let settled = FlagEvidence(
            flag: "checkout", state: .settled, reason: "",
            run: .init(variant: "on", since: 1_762_128_000_000, coversWindow: true, appVersions: ["2.0"], evaluations: 1, exposures: 0, unitDays: 0))
        #expect(ConsoleRoutes.evidenceBadge(settled, environment: "production") == "settled on on since 3 Nov in production")
        let never = FlagEvidence(flag: "old", state: .unused, reason: "")
        #expect(ConsoleRoutes.evidenceBadge(never, environment: "production") == "unused in production, never evaluated")
        #expect(ConsoleRoutes.evidenceBadge(FlagEvidence(flag: "a", state: .active, reason: ""), environment: "production") == nil)
    }
}
