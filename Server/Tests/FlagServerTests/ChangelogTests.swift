import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import Testing

/// The history as a changelog: one change per write across environments, said in words.
struct ChangelogTests {
    static let environments = ["development", "staging", "production"]
    static let flag = FlagRecord(key: "checkout", type: .boolean, variants: ["on": true, "off": false])

    static func view(_ settings: FlagSettings, flag: FlagRecord = flag) -> JSONValue {
        .object(["flag": JSONValue(encoding: flag), "settings": JSONValue(encoding: settings)])
    }

    static func entry(
        _ environment: String, _ revision: Int, at seconds: TimeInterval, actor: String = "ana", reason: String? = nil,
        before: JSONValue?, after: JSONValue?, revertedTo: Int? = nil
    ) -> AuditEntry {
        AuditEntry(
            environment: environment, revision: revision, time: Date(timeIntervalSince1970: seconds), actor: actor, reason: reason,
            subject: .flag, key: "checkout", before: before, after: after, revertedTo: revertedTo)
    }

    @Test
    func aCreationInEveryEnvironmentIsOneChangeOffEverywhere() {
        let off = Self.view(FlagSettings(enabled: false, defaultVariant: "off"))
        let log = Changelog(Self.environments.reversed().enumerated().map { Self.entry($1, $0 + 1, at: 100, before: nil, after: off) },
            environments: Self.environments)
        #expect(log.changes.count == 1)
        #expect(log.changes[0].summary == "created checkout, off everywhere")
        #expect(log.changes[0].entries.map(\.environment) == Self.environments)
    }

    @Test
    func turningOnWithARolloutNamesTheEnvironmentAndThePlan() {
        let before = Self.view(FlagSettings(enabled: false, defaultVariant: "off", targeting: ["fractional": [["on", 10], ["off", 90]]]))
        let after = Self.view(FlagSettings(enabled: true, defaultVariant: "off", targeting: ["fractional": [["on", 10], ["off", 90]]]))
        let log = Changelog([Self.entry("staging", 4, at: 200, before: before, after: after)], environments: Self.environments)
        #expect(log.changes.map(\.summary) == ["turned checkout on in staging: 10 % rollout of on"])
    }

    @Test
    func writesAtDifferentTimesOrByDifferentPeopleStaySeparateAndNewestFirst() {
        let on = Self.view(FlagSettings(enabled: true, defaultVariant: "on"))
        let off = Self.view(FlagSettings(enabled: false, defaultVariant: "on"))
        let log = Changelog([
            Self.entry("staging", 2, at: 100, before: off, after: on),
            Self.entry("production", 2, at: 100, actor: "bo", before: off, after: on),
            Self.entry("development", 2, at: 150, before: off, after: on),
            Self.entry("production", 3, at: 300, before: on, after: off),
            Self.entry("staging", 3, at: 300, before: on, after: off),
        ], environments: Self.environments)
        #expect(log.changes.count == 4)
        #expect(log.changes.prefix(2).map(\.summary) == [
            "turned checkout off in staging and production", "turned checkout on in development: serves on",
        ])
        // Two writes at the same moment by different people are two changes.
        #expect(Set(log.changes.suffix(2).map { "\($0.actor): \($0.summary)" }) == [
            "ana: turned checkout on in staging: serves on", "bo: turned checkout on in production: serves on",
        ])
    }

    @Test
    func aRevertIsMarkedAndSaysWhatItRestored() {
        let on = Self.view(FlagSettings(enabled: true, defaultVariant: "on"))
        let off = Self.view(FlagSettings(enabled: false, defaultVariant: "on"))
        let log = Changelog([Self.entry("production", 9, at: 100, before: off, after: on, revertedTo: 7)], environments: Self.environments)
        #expect(log.changes[0].isRevert)
        #expect(log.changes[0].summary == "reverted checkout to revision 7 in production: on: serves on")
    }

    @Test
    func aDefinitionChangeIsSaidOnceWithItsFields() {
        var renamed = Self.flag
        renamed.metadata.owner = "payments"
        renamed.variants["off"] = false
        let settings = FlagSettings(enabled: true, defaultVariant: "on")
        let log = Changelog(Self.environments.map { Self.entry($0, 5, at: 100, before: Self.view(settings), after: Self.view(settings, flag: renamed)) },
            environments: Self.environments)
        #expect(log.changes.map(\.summary) == ["changed the definition of checkout (owner)"])
    }

    @Test
    func segmentsAndEnvironmentsSayWhatChangedAndWhere() {
        func entry(_ subject: AuditEntry.Subject, _ environment: String, _ key: String, before: JSONValue?) -> AuditEntry {
            AuditEntry(
                environment: environment, revision: 1, time: Date(timeIntervalSince1970: 5), actor: "ana", reason: nil, subject: subject,
                key: key, before: before, after: ["rule": true])
        }
        let log = Changelog([entry(.environment, "staging", "staging", before: nil)], environments: Self.environments)
        #expect(log.changes.map(\.summary) == ["created environment staging"])
        let segment = Changelog([entry(.segment, "production", "beta", before: ["rule": false])], environments: Self.environments)
        #expect(segment.changes.map(\.summary) == ["changed segment beta in production"])
    }
}
