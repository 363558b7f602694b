import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOHTTP1
import Testing

/// The console's Experiments entry in the navigation, its metric pages (create, list, edit,
/// delete) and the form that schedules a change: each write goes through the same
/// ``Experiments`` and ``Schedules`` calls as the admin API, CSRF-checked, output escaped.
struct ConsoleMetricsAndSchedulesTests {
    static let metric: [(String, String)] = [
        ("key", "checkout-conversion"), ("name", "Checkout <b>conversion</b>"), ("event", "checkout"), ("kind", "conversion"),
        ("windowHours", "48"), ("higherIsBetter", "true"), ("guardrail", "on"),
    ]

    static func signedIn(_ server: TestServer, _ name: String = "erin", role: ConsoleRole = .editor) async throws -> (ConsoleClient, String) {
        try await server.consoleUser(name, role: role)
        let client = ConsoleClient(server)
        try await client.signIn(name)
        return (client, try await client.csrf())
    }

    static func metrics(_ server: TestServer) async throws -> [JSONValue] {
        try await server.request(.GET, "/admin/v1/metrics", token: server.adminToken).json?.arrayValue ?? []
    }

    @Test
    func theNavigationLinksTheExperimentsOfTheFirstEnvironment() async throws {
        try await TestServer.withConsole { server in
            let (client, _) = try await Self.signedIn(server)
            let flags = try await client.get("/console/flags")
            #expect(flags.body.contains(#"<li><a href="/console/experiments">Experiments</a></li>"#))
            let entry = try await client.get("/console/experiments")
            #expect(entry.status == 303)
            let first = try #require(await server.server.admin.state.orderedEnvironmentKeys.first)
            #expect(entry.location == "/console/environments/\(first)/experiments")
            let page = try await client.get(try #require(entry.location))
            #expect(page.status == 200)
            #expect(page.body.contains(#"<a href="/console/experiments" aria-current="page">Experiments</a>"#))
            #expect(page.body.contains(#"id="metrics-link""#) && page.body.contains("No metrics yet"))
            let environments = try await client.get("/console/environments")
            #expect(environments.body.contains(#"href="/console/environments/production/experiments""#))
            #expect(environments.body.contains(#"href="/console/environments/production/schedules""#))
            // Signed out, the entry leads to the sign-in page.
            let stranger = ConsoleClient(server)
            #expect(try await stranger.get("/console/experiments").location == "/console/login")
        }
    }

    @Test
    func anEditorCreatesEditsAndDeletesAMetricAsTheAdminAPIWould() async throws {
        try await TestServer.withConsole { server in
            let (client, csrf) = try await Self.signedIn(server)

            // Fields that do not parse come back named, the form as typed; nothing stored.
            var bad = Self.metric
            bad[4] = ("windowHours", "two days")
            let refused = try await client.post("/console/metrics", bad, csrf: csrf)
            #expect(refused.status == 400)
            #expect(refused.body.contains("windowHours: expected a whole number of hours, got &quot;two days&quot;"))
            #expect(refused.body.contains(#"value="checkout-conversion""#) && refused.body.contains(#"value="two days""#))
            bad = Self.metric
            bad[3] = ("kind", "median")
            let kind = try await client.post("/console/metrics", bad, csrf: csrf)
            #expect(kind.status == 400 && kind.body.contains("kind: choose conversion, mean, count, ratio, got &quot;median&quot;"))
            // The metric's own checks are the ones `POST /admin/v1/metrics` runs after its schema
            // (`Experiments.createMetric`), every problem named with its field.
            bad = Self.metric
            bad[0] = ("key", "no spaces allowed")
            bad[3] = ("kind", "ratio")
            bad += [("numerator", "count"), ("denominatorEvent", " "), ("denominator", "sum")]
            let invalid = try await client.post("/console/metrics", bad, csrf: csrf)
            #expect(invalid.status == 422)
            #expect(invalid.body.contains("ratio.denominatorEvent: 1–200 characters"))
            #expect(invalid.body.contains("key: letters, digits"))
            #expect(try await Self.metrics(server).isEmpty)

            let created = try await client.post("/console/metrics", Self.metric, csrf: csrf)
            #expect(created.status == 303 && created.location == "/console/metrics?done=created")
            let stored = try #require(try await Self.metrics(server).first)
            #expect(stored["key"]?.stringValue == "checkout-conversion" && stored["name"]?.stringValue == "Checkout <b>conversion</b>")
            #expect(stored["windowHours"]?.intValue == 48 && stored["guardrail"] == .bool(true) && stored["cuped"] == .bool(false))
            #expect(stored["updatedBy"]?.stringValue == "user erin" && stored["version"]?.intValue == 1)
            let list = try await client.get("/console/metrics?done=created")
            #expect(list.body.contains(#"id="metric-checkout-conversion""#) && list.body.contains("Checkout &lt;b&gt;conversion&lt;/b&gt;"))
            #expect(!list.body.contains("<b>conversion</b>"))
            // The same key again: the store's refusal, as the API answers it.
            let again = try await client.post("/console/metrics", Self.metric, csrf: csrf)
            #expect(again.status == 409 && again.body.contains(#"id="problems""#))

            // Edit: the form shows the stored values; a save is version 2.
            let edit = try await client.get("/console/metrics/checkout-conversion")
            #expect(edit.status == 200 && edit.body.contains(#"value="48""#) && edit.body.contains(#"id="metric-guardrail" name="guardrail" checked"#))
            let saved = try await client.post(
                "/console/metrics/checkout-conversion",
                [("name", "Checkout"), ("event", "checkout"), ("kind", "count"), ("windowHours", "24"), ("higherIsBetter", "false")], csrf: csrf)
            #expect(saved.status == 303)
            let updated = try #require(try await Self.metrics(server).first)
            #expect(updated["version"]?.intValue == 2 && updated["kind"]?.stringValue == "count" && updated["higherIsBetter"] == .bool(false))
            #expect(updated["guardrail"] == .bool(false))
            let emptyName = try await client.post(
                "/console/metrics/checkout-conversion", [("name", ""), ("event", "checkout"), ("kind", "count")], csrf: csrf)
            #expect(emptyName.status == 422 && emptyName.body.contains("name: 1–200 characters"))
            #expect(try await client.post("/console/metrics/ghost", Self.metric, csrf: csrf).status == 404)

            // A metric a draft experiment names is not deleted (409, as the API answers).
            try await server.booleanFlag("checkout")
            let experiment = try await client.post(
                "/console/environments/production/experiments",
                [("id", "exp-1"), ("flag", "checkout"), ("control", "off"), ("arms", "off, on"), ("metrics", "checkout-conversion")], csrf: csrf)
            #expect(experiment.status == 303)
            let used = try await client.post("/console/metrics/checkout-conversion/delete", [], csrf: csrf)
            #expect(used.status == 409 && used.body.contains("is used by draft experiment &quot;exp-1&quot;"))
            #expect(try await Self.metrics(server).count == 1)
            #expect(try await server.request(.DELETE, "/admin/v1/environments/production/experiments/exp-1", token: server.adminToken).status == 204)
            let deleted = try await client.post("/console/metrics/checkout-conversion/delete", [], csrf: csrf)
            #expect(deleted.status == 303 && deleted.location == "/console/metrics?done=deleted")
            #expect(try await Self.metrics(server).isEmpty)
        }
    }

    @Test
    func metricFormsWithoutTheCSRFTokenOrFromAViewerAreRefused() async throws {
        try await TestServer.withConsole { server in
            let (client, csrf) = try await Self.signedIn(server)
            let forged = try await client.post("/console/metrics", Self.metric)
            #expect(forged.status == 403 && forged.body.contains("CSRF token is missing or wrong"))
            let wrong = try await client.post("/console/metrics", Self.metric, csrf: String(csrf.reversed()))
            #expect(wrong.status == 403)
            #expect(try await Self.metrics(server).isEmpty)
            let (viewer, viewerCSRF) = try await Self.signedIn(server, "vic", role: .viewer)
            let page = try await viewer.get("/console/metrics")
            #expect(page.status == 200 && !page.body.contains(#"id="create-metric-form""#))
            #expect(try await viewer.post("/console/metrics", Self.metric, csrf: viewerCSRF).status == 403)
            #expect(try await Self.metrics(server).isEmpty)
        }
    }

    @Test
    func anEditorSchedulesAndCancelsAChangeAsTheAdminAPIWould() async throws {
        let base = "/console/environments/production/schedules"
        let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z
        try await TestServer.withConsole(now: { now }) { server in
            try await server.booleanFlag("checkout")
            let (client, csrf) = try await Self.signedIn(server)
            let flagPage = try await client.get("/console/flags/checkout?environment=production")
            #expect(flagPage.body.contains(#"href="/console/environments/production/schedules?flag=checkout#schedule-form""#))
            let blank = try await client.get(base + "?flag=checkout")
            #expect(blank.body.contains(#"id="schedule-form""#) && blank.body.contains(#"id="schedule-flag" name="flag" required maxlength="128" list="schedule-flags" value="checkout""#))

            let form: [(String, String)] = [
                ("flag", "checkout"), ("change", "off"), ("variant", ""), ("patch", ""), ("runAt", "2027-01-16T09:30"), ("reason", "end of <b>promo</b>"),
            ]
            // Refusals name the field and keep what was typed; nothing is stored.
            var bad = form
            bad[4] = ("runAt", "tomorrow")
            let unparsed = try await client.post(base, bad, csrf: csrf)
            #expect(unparsed.status == 400 && unparsed.body.contains("runAt: expected a date and time in UTC"))
            #expect(unparsed.body.contains(#"value="end of &lt;b&gt;promo&lt;/b&gt;""#))
            bad[4] = ("runAt", "2027-01-14T09:30")
            let past = try await client.post(base, bad, csrf: csrf)
            #expect(past.status == 400 && past.body.contains("runAt: 2027-01-14T09:30:00Z is not in the future"))
            bad = form
            bad[5] = ("reason", "")
            #expect(try await client.post(base, bad, csrf: csrf).body.contains("reason: say why; it is required"))
            bad = form
            bad[1] = ("change", "patch")
            bad[3] = ("patch", "[1]")
            #expect(try await client.post(base, bad, csrf: csrf).body.contains("patch: expected a JSON object of settings"))
            bad[3] = (#"patch"#, #"{"enabled": "yes"}"#)
            let badPatch = try await client.post(base, bad, csrf: csrf)
            #expect(badPatch.status == 400 && badPatch.body.contains("enabled"))
            bad = form
            bad[0] = ("flag", "ghost")
            let ghost = try await client.post(base, bad, csrf: csrf)
            #expect(ghost.status == 404 && ghost.body.contains("flag &quot;ghost&quot; does not exist"))
            let forged = try await client.post(base, form)
            #expect(forged.status == 403)
            let api = "/admin/v1/environments/production/schedules"
            #expect(try await server.request(.GET, api, token: server.adminToken).json?.arrayValue?.isEmpty == true)

            let created = try await client.post(base, form, csrf: csrf)
            #expect(created.status == 303 && created.location == base + "?done=created")
            let stored = try #require(try await server.request(.GET, api, token: server.adminToken).json?.arrayValue?.first)
            #expect(stored["flag"]?.stringValue == "checkout" && stored["status"]?.stringValue == "pending")
            #expect(stored["change"]?["patch"] == ["enabled": false])
            #expect(stored["runAt"]?.stringValue == "2027-01-16T09:30:00Z")
            #expect(stored["actor"]?.stringValue == "user erin" && stored["reason"]?.stringValue == "end of <b>promo</b>")
            let id = try #require(stored["id"]?.stringValue)
            let list = try await client.get(base + "?done=created")
            #expect(list.body.contains(#"id="schedule-\#(id)""#) && list.body.contains("end of &lt;b&gt;promo&lt;/b&gt;"))

            var variant = form
            variant[1] = ("change", "variant")
            variant[2] = ("variant", "off")
            #expect(try await client.post(base, variant, csrf: csrf).status == 303)
            let both = try await server.request(.GET, api, token: server.adminToken).json?.arrayValue ?? []
            #expect(both.contains { $0["change"]?["patch"] == ["defaultVariant": "off"] })

            let cancelled = try await client.post(base + "/\(id)/cancel", [("returnTo", "list")], csrf: csrf)
            #expect(cancelled.status == 303 && cancelled.location == base + "?done=cancelled")
            let after = try await server.request(.GET, api, token: server.adminToken).json?.arrayValue ?? []
            #expect(after.first { $0["id"]?.stringValue == id }?["status"]?.stringValue == "cancelled")
            #expect(try await client.get(base + "?done=cancelled").body.contains("Cancelled: the change is kept as cancelled"))
        }
    }
}
