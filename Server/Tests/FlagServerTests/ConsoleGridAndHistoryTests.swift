import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// The flags grid as the console's home (pages that keep the search, switches that ask their
/// reason, the last change) and the history as a changelog.
struct ConsoleGridAndHistoryTests {
    @Test
    func theGridPagesAHundredFlagsAndItsLinksKeepTheSearch() async throws {
        try await TestServer.withConsole { server in
            let flags = (0..<130).map { number -> String in
                let key = String(format: "flag-%03d", number)
                let owner = number % 10 == 0 ? "search" : "web"
                return #""\#(key)": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off", "metadata": {"owner": "\#(owner)"}}"#
            }
            let imported = try await server.request(
                .POST, "/admin/v1/environments/production/import", token: server.adminToken,
                body: #"{"flags": {\#(flags.joined(separator: ","))}}"#)
            #expect(imported.status == 200, "\(imported.body)")
            try await server.consoleUser("vera", role: .viewer)
            let client = ConsoleClient(server)
            try await client.signIn("vera")

            let first = try await client.get("/console/flags?owner=web")
            #expect(first.body.contains("1–100 of 117 flags · page 1 of 2"))
            #expect(first.body.contains(#"<tr id="flag-flag-001">"#))
            #expect(!first.body.contains(#"<tr id="flag-flag-010">"#), "flags of another owner are filtered out")
            #expect(first.body.contains(#"href="/console/flags?owner=web&amp;page=2" rel="next""#))
            let second = try await client.get("/console/flags?owner=web&page=2")
            #expect(second.body.contains("101–117 of 117 flags · page 2 of 2"))
            #expect(second.body.contains(#"<tr id="flag-flag-129">"#))
            #expect(second.body.contains(#"href="/console/flags?owner=web" rel="prev""#))
            #expect(!second.body.contains(#"<tr id="flag-flag-001">"#))
        }
    }

    @Test
    func aSwitchAsksItsReasonOnAPageWithoutScriptAndReturnsToTheGridAsItWas() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("alpha", enabled: true)
            try await server.consoleUser("erin", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("erin")
            let csrf = try await client.csrf()
            let path = "/console/flags/alpha/environments/production/switch"

            // The switch alone (a browser without script): a page asks the reason, nothing changes.
            let asked = try await client.post(path, [("enabled", "false"), ("back", "q=alp&sort=-key")], csrf: csrf)
            #expect(asked.status == 200)
            #expect(asked.body.contains(#"<h1>Turn off alpha in production</h1>"#))
            #expect(asked.body.contains(#"<input type="hidden" name="back" value="q=alp&amp;sort=-key">"#))
            #expect(asked.body.contains(#"<input id="switch-reason" name="reason" required"#))
            #expect(!asked.body.contains(#"role="alert""#))
            #expect(await server.server.admin.state.environments["production"]?.settings["alpha"]?.enabled == true)

            // An empty reason from that page is refused and asked again.
            let empty = try await client.post(path, [("enabled", "false"), ("reason", " ")], csrf: csrf)
            #expect(empty.status == 400)
            #expect(empty.body.contains("the reason is required"))
            #expect(empty.body.contains(#"id="switch-page-form""#))

            // With the reason: switched, and back to the grid with its search and sort.
            let done = try await client.post(path, [("enabled", "false"), ("reason", "incident 7"), ("back", "q=alp&sort=-key&bogus=1")], csrf: csrf)
            #expect(done.status == 303)
            #expect(done.location == "/console/flags?q=alp&sort=-key&done=switched#flag-alpha")
            #expect(await server.server.admin.state.environments["production"]?.settings["alpha"]?.enabled == false)

            // The grid names the last change and who made it.
            let grid = try await client.get("/console/flags?q=alp")
            #expect(grid.body.contains(#"<span class="by">by erin in production</span>"#))
            #expect(grid.body.contains(#"<button type="submit" class="switch" role="switch" aria-checked="false" id="switch-alpha-production""#))
        }
    }

    @Test
    func historyTellsACreationOnceAndARevertKeepsTheFilters() async throws {
        try await TestServer.withConsole { server in
            try await server.consoleUser("erin", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("erin")
            let csrf = try await client.csrf()
            let created = try await client.post(
                "/console/new-flag", [("key", "checkout"), ("type", "boolean"), ("variants", #"{"on": true, "off": false}"#)], csrf: csrf)
            #expect(created.status == 303)
            let switched = try await client.post(
                "/console/flags/checkout/environments/staging/switch", [("enabled", "true"), ("reason", "try it")], csrf: csrf)
            #expect(switched.status == 303)

            let history = try await client.get("/console/history?flag=checkout&actor=erin")
            #expect(history.body.components(separatedBy: #"<li class="entry"#).count - 1 == 2)
            #expect(history.body.contains(#"<strong class="actor">erin</strong> <span class="summary">created checkout, off everywhere</span>"#))
            #expect(history.body.contains(#"<strong class="actor">erin</strong> <span class="summary">turned checkout on in staging: serves on</span>"#))
            // The creation's field diff is one table for the three environments, on demand.
            #expect(history.body.contains("<caption>development, staging and production</caption>"))
            #expect(history.body.contains(#"<details class="fields">"#))

            let revision = try await server.server.admin.store.audit(environment: "staging", key: "checkout", limit: 10).last!.revision
            let reverted = try await client.post(
                "/console/history/revert",
                [("environment", "staging"), ("key", "checkout"), ("revision", String(revision)), ("filter-flag", "checkout"),
                 ("filter-actor", "erin"), ("filter-environment", "")], csrf: csrf)
            #expect(reverted.status == 303)
            #expect(reverted.location == "/console/history?flag=checkout&actor=erin&done=reverted")
            let after = try await client.get(reverted.location!)
            #expect(after.body.contains(#"<span class="badge revert">revert</span> <strong class="actor">erin</strong> <span class="summary">reverted checkout to revision \#(revision) in staging: off</span>"#))
        }
    }
}
