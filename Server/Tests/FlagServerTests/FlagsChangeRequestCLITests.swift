import FlagEvaluation
import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// `flags change-request` and `flags approval-rule` against a running server: the real `flags`
/// binary (found as `FlagsCLITests` finds it) and the real admin API on a loopback port.
struct FlagsChangeRequestCLITests {
    static let environment = ["--environment", "production"]

    static func flags(_ arguments: [String], _ server: TestServer, token: String) async throws -> FlagsCLITests.Run {
        try await FlagsScheduleRolloutCLITests.flags(arguments + Self.environment, server, token: token)
    }

    static func enabled(_ server: TestServer) async throws -> JSONValue? {
        let reply = try await server.request(.GET, "/admin/v1/environments/production/flags/checkout", token: server.adminToken)
        return reply.json?["settings"]?["enabled"]
    }

    @Test
    func aRuleARequestItsDiffAnApprovalByAnotherAndTheApplication() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout", enabled: false)
            let alice = try await server.token(.admin, environment: "production", name: "alice")
            let bob = try await server.token(.admin, environment: "production", name: "bob")

            // No rule yet: the server's 404 is quoted.
            let none = try await Self.flags(["approval-rule", "show"], server, token: alice)
            #expect(none.status == 3, "\(none)")
            #expect(none.standardError.hasPrefix("error: The server refused GET /admin/v1/environments/production/approval-rule (404 "), "\(none)")
            let set = try await Self.flags(
                ["approval-rule", "set", "--required-approvals", "1", "--applies-to", "settings", "--reason", "prod is governed"], server, token: alice)
            #expect(set.status == 0, "\(set)")
            #expect(set.standardOutput == "Set the rule of production: 1 approval other than the author's, for settings\n", "\(set)")
            let shown = try await Self.flags(["approval-rule", "show", "--json"], server, token: bob)
            #expect(try FlagsScheduleRolloutCLITests.json(shown) == ["requiredApprovals": 1, "appliesTo": ["settings"]], "\(shown)")
            // Under the rule a direct write is refused.
            let direct = try await server.request(
                .PATCH, "/admin/v1/environments/production/flags/checkout/settings", token: alice, body: #"{"enabled": true}"#)
            #expect(direct.status == 409)

            let created = try await Self.flags(
                ["change-request", "create", "checkout", "--enable", "--reason", "launch", "--json"], server, token: alice)
            #expect(created.status == 0, "\(created)")
            let request = try FlagsScheduleRolloutCLITests.json(created)
            let id = try #require(request["id"]?.stringValue)
            #expect(request["proposal"] == ["flag": "checkout", "patch": ["enabled": true]])
            #expect(request["author"] == ["kind": "token", "name": "alice"])
            let basedOn = try #require(request["basedOnRevision"]?.intValue)

            let show = try await Self.flags(["change-request", "show", id], server, token: bob)
            #expect(show.status == 0, "\(show)")
            #expect(show.standardOutput.hasPrefix("\(id): open in production, awaiting approval\n"), "\(show)")
            #expect(show.standardOutput.contains(#"  change:    flag "checkout": patch {"enabled":true}"# + "\n"), "\(show)")
            #expect(show.standardOutput.contains("  author:    token alice\n  approvals: 0 of 1\n  based on:  revision \(basedOn)\n"), "\(show)")
            // The diff as the server gives it: the settings before and after.
            let lines = show.standardOutput.split(separator: "\n").map(String.init)
            let before = try #require(lines.first { $0.hasPrefix("    before: ") })
            let after = try #require(lines.first { $0.hasPrefix("    after:  ") })
            #expect(before.contains(#""enabled":false"#), "\(show)")
            #expect(after.contains(#""enabled":true"#), "\(show)")
            #expect(show.standardOutput.contains("History:\n  "), "\(show)")

            // No self-approval: the author's approve is the server's refusal, exit status 3.
            let own = try await Self.flags(["change-request", "approve", id], server, token: alice)
            #expect(own.status == 3, "\(own)")
            #expect(own.standardError.hasPrefix("error: The server refused POST /admin/v1/environments/production/change-requests/\(id)/approve (409 "), "\(own)")
            // Not approved yet: apply is refused and nothing changes.
            let early = try await Self.flags(["change-request", "apply", id], server, token: alice)
            #expect(early.status == 3, "\(early)")
            #expect(early.standardError.contains("(409 approval_required: "), "\(early)")
            #expect(try await Self.enabled(server) == false)

            let approved = try await Self.flags(["change-request", "approve", id, "--comment", "looks right"], server, token: bob)
            #expect(approved.status == 0, "\(approved)")
            #expect(approved.standardOutput.hasPrefix("Approved \(id): open in production, approved\n"), "\(approved)")
            #expect(approved.standardOutput.contains("Approvals:\n  token bob at "), "\(approved)")
            #expect(approved.standardOutput.contains(": looks right\n"), "\(approved)")

            let list = try await Self.flags(["change-request", "list"], server, token: bob)
            #expect(list.status == 0, "\(list)")
            #expect(list.standardOutput.contains(#"\#(id)  open    1 of 1     token alice  flag "checkout": patch {"enabled":true}"# + "\n1 change request\n"), "\(list)")

            let applied = try await Self.flags(["change-request", "apply", id], server, token: alice)
            #expect(applied.status == 0, "\(applied)")
            #expect(applied.standardOutput.hasPrefix("Applied \(id): applied in production\n"), "\(applied)")
            #expect(applied.standardOutput.contains("  applied:   revision "), "\(applied)")
            #expect(try await Self.enabled(server) == true)
            let again = try await Self.flags(["change-request", "apply", id], server, token: alice)
            #expect(again.status == 3, "\(again)")
            #expect(again.standardError.contains("(409 "), "\(again)")

            // Removing the rule is asking for less: refused, to be proposed as a change request.
            let remove = try await Self.flags(["approval-rule", "remove", "--reason", "done"], server, token: alice)
            #expect(remove.status == 3, "\(remove)")
            #expect(remove.standardError.contains("(409 approval_required: "), "\(remove)")
        }
    }

    @Test
    func aRejectedRequestIsClosedAndAnEditIsBasedAgain() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout", enabled: false)
            let alice = try await server.token(.admin, environment: "production", name: "alice")
            let bob = try await server.token(.admin, environment: "production", name: "bob")
            let rule = try await Self.flags(["approval-rule", "set", "--required-approvals", "1"], server, token: alice)
            #expect(rule.standardOutput == "Set the rule of production: 1 approval other than the author's, for definitions, segments, settings\n", "\(rule)")

            let created = try await Self.flags(
                ["change-request", "create", "checkout", "--enable", "--reason", "launch", "--apply-at", "2030-01-01T00:00:00Z"], server, token: alice)
            #expect(created.status == 0, "\(created)")
            #expect(created.standardOutput.contains("  apply at:  2030-01-01T00:00:00Z\n"), "\(created)")
            let id = try #require(created.standardOutput.split(separator: ":").first.map { String($0.dropFirst("Opened ".count)) })

            let edited = try await Self.flags(["change-request", "edit", id, "--default-variant", "off", "--reason", "safer"], server, token: alice)
            #expect(edited.status == 0, "\(edited)")
            #expect(edited.standardOutput.contains(#"  change:    flag "checkout": patch {"defaultVariant":"off"}"# + "\n  reason:    safer\n"), "\(edited)")
            #expect(edited.standardOutput.contains("  apply at:  2030-01-01T00:00:00Z\n"), "\(edited)")
            // Only the author edits: the server's refusal.
            let foreign = try await Self.flags(["change-request", "edit", id, "--reason", "mine"], server, token: bob)
            #expect(foreign.status == 3, "\(foreign)")

            let rejected = try await Self.flags(["change-request", "reject", id, "--comment", "not now"], server, token: bob)
            #expect(rejected.status == 0, "\(rejected)")
            #expect(rejected.standardOutput.hasPrefix("Rejected \(id): rejected in production\n"), "\(rejected)")
            #expect(rejected.standardOutput.contains(" rejected by token bob: not now\n"), "\(rejected)")
            let approve = try await Self.flags(["change-request", "approve", id], server, token: bob)
            #expect(approve.status == 3, "\(approve)")
            #expect(approve.standardError.contains("(409 "), "\(approve)")
            let missing = try await Self.flags(["change-request", "show", "cr-missing"], server, token: bob)
            #expect(missing.status == 3, "\(missing)")
            #expect(missing.standardError.hasPrefix("error: The server refused GET /admin/v1/environments/production/change-requests/cr-missing (404 "), "\(missing)")
            #expect(try await Self.enabled(server) == false)

            // Bad arguments never reach the server.
            let noChange = try await Self.flags(["change-request", "create", "checkout", "--reason", "x"], server, token: alice)
            #expect(noChange.status == 2, "\(noChange)")
            #expect(noChange.standardError.contains("Give the change: --enable, --disable"), "\(noChange)")
            let list = try await Self.flags(["change-request", "list", "--json"], server, token: alice)
            #expect(try FlagsScheduleRolloutCLITests.json(list).arrayValue?.count == 1, "\(list)")
        }
    }
}
