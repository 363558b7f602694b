import FeatureFlags
import FlagTooling
import Foundation
import Testing

/// What `flags change-request` and `flags approval-rule` read from their options, and what they
/// send and print, without a server.
struct ChangeRequestArgumentTests {
    static let request = #"""
        {"id": "cr-1", "environment": "production", "status": "open", "author": {"kind": "token", "name": "alice"},
         "reason": "launch", "proposal": {"flag": "checkout", "patch": {"enabled": true}}, "basedOnRevision": 7,
         "diff": [{"environment": "production", "subject": "flag", "key": "checkout",
                   "before": {"settings": {"enabled": false, "defaultVariant": "off"}},
                   "after": {"settings": {"enabled": true, "defaultVariant": "off"}}},
                  {"environment": "production", "subject": "segment", "key": "beta", "before": null}],
         "approvals": [{"approver": {"kind": "user", "name": "carol"}, "time": "2027-01-15T09:00:00Z", "comment": "ok"}],
         "history": [{"action": "opened", "actor": {"kind": "token", "name": "alice"}, "time": "2027-01-15T08:00:00Z"},
                     {"action": "approved", "actor": {"kind": "user", "name": "carol"}, "time": "2027-01-15T09:00:00Z", "comment": "ok"}],
         "applyAt": "2027-01-16T08:00:00Z", "createdAt": "2027-01-15T08:00:00Z", "updatedAt": "2027-01-15T09:00:00Z",
         "version": 2, "requiredApprovals": 1, "approved": true}
        """#

    @Test func aRequestShowsItsApprovalsAndTheServersDiff() throws {
        let request = try JSONDecoder().decode(ServerChangeRequest.self, from: Data(Self.request.utf8))
        #expect(
            request.details == """
                cr-1: open in production, approved
                  change:    flag "checkout": patch {"enabled":true}
                  reason:    launch
                  author:    token alice
                  approvals: 1 of 1
                  based on:  revision 7
                  apply at:  2027-01-16T08:00:00Z
                  version:   2
                Diff:
                  flag "checkout" in production
                    before: {"settings":{"defaultVariant":"off","enabled":false}}
                    after:  {"settings":{"defaultVariant":"off","enabled":true}}
                  segment "beta" in production
                    before: (none)
                    after:  (none)
                Approvals:
                  user carol at 2027-01-15T09:00:00Z: ok
                History:
                  2027-01-15T08:00:00Z opened by token alice
                  2027-01-15T09:00:00Z approved by user carol: ok

                """)
        #expect(
            ServerChangeRequest.table([request]) == """
                ID    STATUS  APPROVALS  AUTHOR       CHANGE
                cr-1  open    1 of 1     token alice  flag "checkout": patch {"enabled":true}
                1 change request

                """)
        #expect(ServerChangeRequest.table([]) == "No change requests.\n")
    }

    @Test func bodiesCarryTheFlagItsChangeAndTheRule() throws {
        let proposal = ChangeRequestBody.flagProposal("checkout", change: ["patch": ["enabled": true]])
        let body = ChangeRequestBody.body(proposal: proposal, reason: "launch", applyAt: try Date("2027-01-15T08:00:00Z", strategy: .iso8601))
        #expect(body.jsonString == #"{"applyAt":"2027-01-15T08:00:00Z","change":{"flag":"checkout","patch":{"enabled":true}},"reason":"launch"}"#)
        #expect(ApprovalRuleRequest(requiredApprovals: 2, appliesTo: ["settings"], reason: "x").body.jsonString == #"{"appliesTo":["settings"],"reason":"x","requiredApprovals":2}"#)
        #expect(ApprovalRuleRequest(requiredApprovals: 1).text(environment: "production") == "production: 1 approval other than the author's, for settings, segments, definitions\n")
    }

    /// Bad arguments are refused with exit status 2 before any request: the server address
    /// reaches nothing, which would be exit status 3.
    @Test func badArgumentsAreRefusedBeforeAnyRequest() throws {
        let server = ["--server", "http://127.0.0.1:1", "--token", "t"]
        let production = ["--environment", "production"]
        let cases: [([String], String)] = [
            (["change-request", "list", "--environment", "prod/uction"], "--environment \"prod/uction\""),
            (["change-request", "list", "--limit", "0"] + production, "--limit must be from 1 to 1000"),
            (["change-request", "show", "a/b"] + production, "id \"a/b\""),
            (["change-request", "create", "checkout", "--reason", "x"] + production, "Give the change: --enable"),
            (["change-request", "create", "checkout", "--enable", "--disable", "--reason", "x"] + production, "--enable or --disable"),
            (["change-request", "create", "checkout", "--enable", "--reason", " "] + production, "--reason: give a reason"),
            (["change-request", "create", "checkout", "--enable", "--reason", "x", "--apply-at", "soon"] + production, "--apply-at: \"soon\""),
            (["change-request", "edit", "cr-1"] + production, "Nothing to edit"),
            (["change-request", "approve", "cr-1", "--comment", String(repeating: "x", count: 1001)] + production, "--comment"),
            (["change-request", "reject", "a/b"] + production, "id \"a/b\""),
            (["change-request", "apply", String(repeating: "x", count: 65)] + production, "an id is 1 to 64"),
            (["approval-rule", "set", "--required-approvals", "0"] + production, "--required-approvals must be from 1 to 10"),
            (["approval-rule", "set", "--required-approvals", "1", "--applies-to", "settings,flags"] + production, "--applies-to \"flags\""),
            (["approval-rule", "show", "--environment", "a b"], "--environment \"a b\""),
            (["approval-rule", "remove", "--reason", String(repeating: "x", count: 1001)] + production, "--reason"),
        ]
        for (arguments, expected) in cases {
            let result = try FlagsTool.run(arguments + server)
            #expect(result.status == 2, "\(arguments): \(result)")
            #expect(result.standardError.contains(expected), "\(arguments): \(result)")
            #expect(result.standardOutput.isEmpty)
        }
    }
}
