import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// The admin API and the console pages of scheduled changes (Server/Docs/ScheduledChanges.md).
struct ScheduledChangeRoutesTests {
    static let base = "/admin/v1/environments/production/flags/checkout/schedules"

    /// A scheduled definition change of a sensitive flag holds its values; the audit shows them
    /// as `<REDACTED>`, as it does the flag's own entries.
    @Test
    func theAuditOfASensitiveFlagsScheduledChangeHidesItsValues() async throws {
        try await TestServer.with { server in
            let admin = server.adminToken
            let created = try await server.request(
                .PUT, "/admin/v1/flags/api-key", token: admin,
                body: #"{"type": "string", "variants": {"old": "sk-live-1", "none": ""}, "defaultVariant": "none", "metadata": {"sensitive": true}}"#)
            #expect(created.status == 200, "\(created.body)")
            let later = Date(timeIntervalSinceNow: 86400).formatted(.iso8601)
            let definition = #"{"type": "string", "variants": {"old": "sk-live-1", "new": "sk-live-2", "none": ""}, "defaultVariant": "none", "metadata": {"sensitive": true}}"#
            let scheduled = try await server.request(
                .POST, "/admin/v1/environments/production/flags/api-key/schedules", token: admin,
                body: #"{"change": {"definition": \#(definition)}, "runAt": "\#(later)", "reason": "rotate"}"#)
            #expect(scheduled.status == 201, "\(scheduled.body)")
            let id = try #require(scheduled.json?["id"]?.stringValue)
            let audit = try await server.request(.GET, "/admin/v1/environments/production/audit?key=\(id)", token: admin)
            let entry = try #require(audit.json?.arrayValue?.first)
            #expect(entry["subject"] == "schedule")
            #expect(entry["after"]?["change"]?["definition"]?["variants"]?["new"] == "<REDACTED>")
            #expect(!audit.body.contains("sk-live"))
            // Other flags' scheduled changes keep their values.
            try await server.booleanFlag("checkout", enabled: false)
            let plain = try await server.request(
                .POST, Self.base, token: admin,
                body: #"{"change": {"definition": {"type": "boolean", "variants": {"on": true, "off": false}, "defaultVariant": "off", "metadata": {"owner": "ann"}}}, "runAt": "\#(later)", "reason": "x"}"#)
            let plainID = try #require(plain.json?["id"]?.stringValue, "\(plain.body)")
            let plainAudit = try await server.request(.GET, "/admin/v1/environments/production/audit?key=\(plainID)", token: admin)
            #expect(plainAudit.json?.arrayValue?.first?["after"]?["change"]?["definition"]?["variants"]?["on"] == true)
        }
    }

    @Test
    func theAdminAPISchedulesListsEditsAndCancels() async throws {
        try await TestServer.with { server in
            let admin = server.adminToken
            try await server.booleanFlag("checkout", enabled: false)
            let later = Date(timeIntervalSinceNow: 86400).formatted(.iso8601)
            let created = try await server.request(
                .POST, Self.base, token: admin,
                body: #"{"change": {"patch": {"enabled": true}}, "runAt": "\#(later)", "reason": "launch"}"#)
            #expect(created.status == 201, "\(created.body)")
            let id = try #require(created.json?["id"]?.stringValue)
            #expect(created.json?["status"] == "pending")
            #expect(created.json?["basedOnRevision"] == 3)
            #expect(created.json?["actor"]?.stringValue?.hasPrefix("token first-admin") == true)

            // Refused: in the past, unknown flag, stale revision, bad time, bad limit.
            let past = try await server.request(
                .POST, Self.base, token: admin, body: #"{"change": {"patch": {"enabled": true}}, "runAt": "2001-01-01T00:00:00Z", "reason": "x"}"#)
            #expect(past.status == 400)
            #expect(past.json?["error"]?["message"]?.stringValue?.hasPrefix("runAt:") == true)
            let ghost = try await server.request(
                .POST, "/admin/v1/environments/production/flags/ghost/schedules", token: admin,
                body: #"{"change": {"patch": {"enabled": true}}, "runAt": "\#(later)", "reason": "x"}"#)
            #expect(ghost.status == 404)
            let stale = try await server.request(
                .POST, Self.base, token: admin,
                body: #"{"change": {"patch": {"enabled": true}}, "runAt": "\#(later)", "reason": "x", "basedOnRevision": 1}"#)
            #expect(stale.status == 409)
            let badTime = try await server.request(
                .POST, Self.base, token: admin, body: #"{"change": {"patch": {"enabled": true}}, "runAt": "tomorrow", "reason": "x"}"#)
            #expect(badTime.status == 400)
            #expect(try await server.request(.GET, Self.base + "?limit=0", token: admin).status == 400)

            let listed = try await server.request(.GET, Self.base, token: admin)
            #expect(listed.json?.arrayValue?.map { $0["id"] } == [.string(id)])
            let calendar = try await server.request(.GET, "/admin/v1/environments/production/schedules", token: admin)
            #expect(calendar.json?.arrayValue?.count == 1)
            let before = try await server.request(
                .GET, "/admin/v1/environments/production/schedules?to=\(Date().formatted(.iso8601))", token: admin)
            #expect(before.json?.arrayValue?.isEmpty == true)

            let edited = try await server.request(
                .PUT, Self.base + "/\(id)", token: admin,
                body: #"{"change": {"settings": {"enabled": true, "defaultVariant": "off"}}, "runAt": "\#(later)", "reason": "launch off", "version": 1}"#)
            #expect(edited.status == 200, "\(edited.body)")
            #expect(edited.json?["version"] == 2)
            let staleEdit = try await server.request(
                .PUT, Self.base + "/\(id)", token: admin,
                body: #"{"change": {"patch": {"enabled": true}}, "runAt": "\#(later)", "reason": "again", "version": 1}"#)
            #expect(staleEdit.status == 409)

            let cancelled = try await server.request(.DELETE, Self.base + "/\(id)?reason=not%20now", token: admin)
            #expect(cancelled.status == 200)
            #expect(cancelled.json?["status"] == "cancelled")
            #expect(try await server.request(.DELETE, Self.base + "/\(id)", token: admin).status == 409)
            #expect(try await server.request(.GET, Self.base + "/\(id)", token: admin).json?["status"] == "cancelled")
            #expect(try await server.request(.GET, Self.base + "/nope", token: admin).status == 404)

            // Audited: created, edited, cancelled.
            let audit = try await server.server.admin.store.audit(environment: "production", key: id, limit: 10)
            #expect(audit.map { $0.after?["status"] } == ["cancelled", "pending", "pending"])
            #expect(audit.allSatisfy { $0.subject == .schedule })
            // A settings write was not made.
            #expect(await server.server.admin.state.environments["production"]?.settings["checkout"]?.enabled == false)
        }
    }

    @Test
    func theConsoleListsAndCancelsWithACSRFToken() async throws {
        try await TestServer.withConsole { server in
            try await server.consoleUser("editor1", role: .editor)
            try await server.booleanFlag("checkout", enabled: false)
            let later = Date(timeIntervalSinceNow: 86400).formatted(.iso8601)
            let created = try await server.request(
                .POST, Self.base, token: server.adminToken,
                body: #"{"change": {"patch": {"enabled": true}}, "runAt": "\#(later)", "reason": "<b>launch</b>"}"#)
            let id = try #require(created.json?["id"]?.stringValue)
            let browser = ConsoleClient(server)
            try await browser.signIn("editor1")
            let page = try await browser.get("/console/flags/checkout?environment=production")
            #expect(page.status == 200)
            #expect(page.body.contains(#"id="schedule-\#(id)""#))
            #expect(page.body.contains("&lt;b&gt;launch&lt;/b&gt;"))
            #expect(!page.body.contains("<b>launch</b>"))
            // Scrolls sideways on a phone, as the calendar's table does (its cancel button is the last column).
            #expect(page.body.contains(#"<div class="scroll"><table id="flag-schedules">"#))
            let calendar = try await browser.get("/console/environments/production/schedules")
            #expect(calendar.status == 200)
            #expect(calendar.body.contains(#"id="schedule-\#(id)""#))

            let cancel = "/console/environments/production/schedules/\(id)/cancel"
            let forged = try await browser.post(cancel, [("returnTo", "list")], csrf: "forged")
            #expect(forged.status == 403)
            #expect(try await server.server.admin.store.audit(environment: "production", key: id, limit: 5).count == 1)
            let done = try await browser.post(cancel, [("returnTo", "flag")], csrf: try await browser.csrf())
            #expect(done.status == 303 || done.status == 302)
            #expect(done.location?.hasPrefix("/console/flags/checkout") == true)
            let after = try await server.request(.GET, Self.base + "/\(id)", token: server.adminToken)
            #expect(after.json?["status"] == "cancelled")
            #expect(after.json?["outcome"] == "cancelled by user editor1")
        }
    }
}
