import FlagEvaluation
@testable import FlagServer
import NIOHTTP1
import Testing

extension ApprovalTests {
    /// A change request's console page shows only the facts it has: no "Not before" without an
    /// `applyAt`, no "at revision" before it is applied, no empty revision or comment in its
    /// steps and approvals (Mustache renders a section for an empty string; the browser test
    /// test_approvals.py found " · : reason" in the history and an empty "Not before"); and no
    /// approve form for someone who has approved it already.
    @Test
    func theConsolePageOfAChangeRequestLeavesOutTheFactsItHasNot() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("checkout", enabled: false)
            try await Self.rule(server, #"{"requiredApprovals": 1}"#)
            let opened = try await server.request(
                .POST, Self.production + "/change-requests", token: server.adminToken,
                body: #"{"change": {"flag": "checkout", "patch": {"enabled": true}}, "reason": "launch"}"#)
            let id = try #require(opened.json?["id"]?.stringValue)
            try await server.consoleUser("erin", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("erin")
            let csrf = try await client.csrf()
            let base = "/console/environments/production/change-requests/\(id)"

            let open = try await client.get(base)
            #expect(open.status == 200)
            #expect(!open.body.contains("Not before"))
            #expect(!open.body.contains("</span> at revision"))
            #expect(open.body.contains(" opened · "))
            #expect(open.body.contains(": launch</li>"))
            #expect(!open.body.contains(" · : "))

            // Approved without a comment: the approval ends with its time.
            #expect(open.body.contains(#"id="approve-form""#))
            #expect(try await client.post(base + "/approve", [("comment", "")], csrf: csrf).status == 303)
            // Approved once: no approve form for a second approval by the same identity (refused anyway).
            let approved = try await client.get(base)
            #expect(!approved.body.contains(#"id="approve-form""#))
            #expect(approved.body.contains(#"id="apply-form""#))
            #expect(try await client.post(base + "/apply", [], csrf: csrf).location == base + "?done=applied")
            let applied = try await client.get(base)
            let revision = try #require(await server.server.admin.state.environments["production"]?.revision)
            #expect(applied.body.contains("</span> at revision \(revision)</dd>"))
            #expect(applied.body.contains(" applied · "))
            #expect(applied.body.contains(" · revision \(revision)</li>"))
            #expect(!applied.body.contains(": </li>"))
            #expect(!applied.body.contains(" · : "))
            #expect(!applied.body.contains("Not before"))
        }
    }
}
