import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOHTTP1
import Testing

/// The console's platform-neutral pieces: rollouts, diffs, versions, forms and CSRF tokens.
struct ConsoleHelpersTests {
    static let flag = FlagRecord(key: "checkout", type: .string, variants: ["a": "A", "b": "B", "c": "C"])

    @Test
    func aRolloutIsAFractionalRuleOverTheVariants() throws {
        let rule = try SettingsPreview.rollout(["a": 10, "b": 90, "c": 0], flag: Self.flag)
        #expect(rule == ["fractional": [["a", 10], ["b", 90]]])
        #expect(SettingsPreview.percentages(of: rule) == ["a": 10, "b": 90])
        #expect(SettingsPreview.percentages(of: ["if": [true, "a", "b"]]) == nil)
    }

    @Test
    func aRolloutMustAddUpTo100OverKnownVariants() {
        #expect(throws: AdminError.invalid([
            ValidationError(key: "checkout", field: "rollout", problem: "percentages must add up to 100, got 60")
        ])) { try SettingsPreview.rollout(["a": 10, "b": 50], flag: Self.flag) }
        #expect(throws: AdminError.invalid([
            ValidationError(key: "checkout", field: "rollout.a", problem: "must be 0–100, got 120"),
            ValidationError(key: "checkout", field: "rollout.z", problem: "is not one of the variants"),
            ValidationError(key: "checkout", field: "rollout.z", problem: "must be 0–100, got -20"),
        ])) { try SettingsPreview.rollout(["a": 120, "z": -20], flag: Self.flag) }
    }

    @Test
    func aPreviewEvaluatesEveryKeyWithTheServersEvaluator() throws {
        var state = ServerState(flags: ["checkout": Self.flag])
        state.environments["production"] = EnvironmentState(
            key: "production", revision: 4, settings: ["checkout": FlagSettings(enabled: true, defaultVariant: "a")])
        var settings = FlagSettings(enabled: true, defaultVariant: "a")
        settings.targeting = try SettingsPreview.rollout(["b": 50, "c": 50], flag: Self.flag)
        let keys = SettingsPreview.sampleKeys(count: 1000)
        let result = try SettingsPreview.preview(
            settings, flag: "checkout", environment: "production", in: state, targetingKeys: keys, bucketing: .current,
            now: Date(timeIntervalSince1970: 0))
        #expect(result.problems.isEmpty)
        #expect(result.assignments.count == 1000)
        #expect(result.counts.keys.sorted() == ["b", "c"])
        #expect((400...600).contains(result.counts["b"] ?? 0))
        // The same key always lands in the same variant.
        let again = try SettingsPreview.preview(
            settings, flag: "checkout", environment: "production", in: state, targetingKeys: ["user-7"], bucketing: .current,
            now: Date(timeIntervalSince1970: 0))
        #expect(again.assignments.first == result.assignments[6])
        // The stored state is untouched.
        #expect(state.environments["production"]?.settings["checkout"]?.targeting == nil)
        #expect(throws: AdminError.badRequest("targetingKeys: at most 1000, got 1001")) {
            try SettingsPreview.preview(settings, flag: "checkout", environment: "production", in: state, targetingKeys: keys + ["x"], bucketing: .current,
                now: Date())
        }
    }

    @Test
    func aDiffListsChangedLeavesByPath() {
        let before: JSONValue = ["settings": ["enabled": true, "defaultVariant": "on"], "flag": ["key": "k"]]
        let after: JSONValue = ["settings": ["enabled": false, "defaultVariant": "on", "targeting": ["fractional": [["on", 10]]]], "flag": ["key": "k"]]
        #expect(AuditDiff(before: before, after: after).lines == [
            .init(path: "settings.enabled", before: "true", after: "false"),
            .init(path: "settings.targeting", before: nil, after: #"{"fractional":[["on",10]]}"#),
        ])
        #expect(AuditDiff(before: nil, after: ["key": "qa"]).lines == [.init(path: "key", before: nil, after: #""qa""#)])
    }

    @Test
    func removalTargetsAreDueAtOrBeforeTheVersion() {
        #expect(AppVersion.isDue(removalTarget: "2.4", at: "2.4.0"))
        #expect(AppVersion.isDue(removalTarget: "2.3.9", at: "2.4"))
        #expect(!AppVersion.isDue(removalTarget: "2.10", at: "2.9.5"))
        #expect(AppVersion.isDue(removalTarget: "3.0.0-beta", at: "3"))
        #expect(!AppVersion.isDue(removalTarget: nil, at: "9"))
        #expect(!AppVersion.isDue(removalTarget: "soon", at: "9"))
    }

    @Test
    func formsDecodePercentEscapesAndPluses() {
        let form = ConsoleForm(parsing: "reason=incident+%2342&targeting=%7B%22a%22%3A1%7D&empty=&flag&percent.on=10")
        #expect(form["reason"] == "incident #42")
        #expect(form["targeting"] == #"{"a":1}"#)
        #expect(form["empty"] == "")
        #expect(form["flag"] == "")
        #expect(form["percent.on"] == "10")
    }

    @Test
    func csrfTokensBelongToOneSession() {
        let one = ConsoleAccounts.randomHex(bytes: 32)
        let two = ConsoleAccounts.randomHex(bytes: 32)
        let token = ConsoleAccounts.csrfToken(sessionID: one)
        #expect(token.count == 64)
        #expect(token != one)
        #expect(ConsoleAccounts.isValidCSRF(token, sessionID: one))
        #expect(!ConsoleAccounts.isValidCSRF(token, sessionID: two))
        #expect(!ConsoleAccounts.isValidCSRF(nil, sessionID: one))
        #expect(!ConsoleAccounts.isValidCSRF("", sessionID: one))
    }

    @Test
    func theBootstrapNeverPrintsItsSecrets() {
        let bootstrap = FlagServer.Bootstrap(adminToken: "ffs_secret", consoleAdmin: (name: "admin", password: "hunter2hunter2"))
        #expect(bootstrap.description == "Bootstrap(adminToken: <REDACTED>, consoleAdmin: admin <REDACTED>)")
        #expect(!String(reflecting: bootstrap).contains("hunter2"))
    }
}
