import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// The console's experiments: the list, the CSRF-checked create form, start, stop and ship, and
/// the results page with its exports from an event store that computes results.
struct ConsoleExperimentsTests {
    static let base = "/console/environments/production/experiments"

    @Test
    func anEditorCreatesStartsAndShipsAnExperimentAndReadsItsResults() async throws {
        let events = ExperimentResultsEventStore(totals: ExperimentResultsEventStore.sample())
        try await TestServer.withConsole(eventStore: events) { server in
            try await server.booleanFlag("checkout", targeting: ExperimentAPITests.split)
            #expect(try await server.request(
                .POST, "/admin/v1/metrics", token: server.adminToken,
                body: #"{"key": "buy", "name": "Purchases <b>", "event": "purchase", "kind": "conversion"}"#).status == 201)
            try await server.consoleUser("erin", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("erin")
            let csrf = try await client.csrf()

            let empty = try await client.get(Self.base)
            #expect(empty.status == 200)
            #expect(empty.body.contains("No experiments in production."))
            let fields = [
                ("id", "exp-1"), ("flag", "checkout"), ("control", "off"), ("arms", "off, on"), ("metrics", "buy"),
                ("hypothesis", "<script>alert(1)</script>"), ("alpha", "0.05"),
            ]
            // Without the CSRF token: refused, nothing stored.
            let forged = try await client.post(Self.base, fields)
            #expect(forged.status == 403)
            #expect(try await server.request(.GET, "/admin/v1/environments/production/experiments", token: server.adminToken).json?.arrayValue?.isEmpty == true)
            // A bad arm: the page names it.
            var bad = fields
            bad[3] = ("arms", "off, maybe")
            let refused = try await client.post(Self.base, bad, csrf: csrf)
            #expect(refused.status == 422)
            #expect(refused.body.contains("&quot;maybe&quot; is not a variant"))

            let created = try await client.post(Self.base, fields, csrf: csrf)
            #expect(created.status == 303)
            #expect(created.location == Self.base + "?done=created")
            let list = try await client.get(Self.base)
            #expect(list.body.contains(#"id="start-exp-1""#))
            #expect(!list.body.contains("<script>alert(1)</script>"))

            #expect(try await client.post(Self.base + "/exp-1/start", [], csrf: csrf).status == 303)
            let running = try await client.get(Self.base)
            #expect(running.body.contains(#"id="stop-exp-1""#) && running.body.contains(#"id="ship-exp-1""#))

            let results = try await client.get(Self.base + "/exp-1/results")
            #expect(results.status == 200)
            #expect(results.body.contains("Purchases &lt;b&gt;"))
            #expect(results.body.contains("&lt;script&gt;alert(1)"))
            #expect(!results.body.contains("<script>alert(1)</script>"))
            #expect(results.body.contains(Self.base + "/exp-1/export.csv"))
            let csv = try await client.get(Self.base + "/exp-1/export.csv")
            #expect(csv.status == 200)
            #expect(csv.body.hasPrefix("metric,"))

            let shipped = try await client.post(Self.base + "/exp-1/ship", [("arm", "on")], csrf: csrf)
            #expect(shipped.status == 303)
            let settings = await server.server.admin.state.environments["production"]?.settings["checkout"]
            #expect(settings?.defaultVariant == "on" && settings?.targeting == nil)
            let history = try await server.request(.GET, "/admin/v1/environments/production/experiments/exp-1", token: server.adminToken)
            #expect(history.json?["history"]?.arrayValue?.compactMap { $0["actor"]?.stringValue }.last == "user erin")
        }
    }

    @Test
    func aViewerSeesNoFormsAndCannotPost() async throws {
        try await TestServer.withConsole { server in
            try await server.consoleUser("vera", role: .viewer)
            let client = ConsoleClient(server)
            try await client.signIn("vera")
            let page = try await client.get(Self.base)
            #expect(page.status == 200)
            #expect(!page.body.contains("create-experiment-form"))
            let csrf = try #require(page.csrf)
            let post = try await client.post(Self.base, [("id", "x")], csrf: csrf)
            #expect(post.status == 403)
        }
    }
}
