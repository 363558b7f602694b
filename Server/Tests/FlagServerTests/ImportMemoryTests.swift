import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// An import holds its audit drafts as the model and builds their JSON one at a time (when the
/// store writes them and the answer encodes them): what is stored and answered is unchanged.
struct ImportMemoryTests {
    static func importedFlags(_ count: Int) -> [StateChange] {
        (0..<count).flatMap { index -> [StateChange] in
            let flag = FlagRecord(
                key: "flag-\(index)", type: .float, variants: ["on": .double(1.5), "off": .double(0.25)],
                metadata: FlagRecordMetadata(owner: "team/\(index)", custom: ["note": "café / \"quoted\""]))
            let targeting: JSONValue? = index % 3 == 0 ? ["fractional": [["on", 10], ["off", 90]]] : nil
            return [
                .putFlag(flag, initialSettings: FlagSettings(enabled: false, defaultVariant: "off")),
                .putSettings(environment: "production", flag: flag.key, FlagSettings(enabled: true, defaultVariant: "on", targeting: targeting)),
            ]
        }
    }

    @Test
    func aFlagDraftHoldsTheModelAndGivesTheEncodedJSON() throws {
        let state = WritePathTests.baseState()
        // New flags, and a flag changed (`checkout` has a before in every environment).
        var changes = Self.importedFlags(20)
        changes.append(.putFlag(
            FlagRecord(key: "checkout", type: .boolean, variants: ["on": true, "off": false], metadata: FlagRecordMetadata(owner: "payments")),
            initialSettings: FlagSettings(enabled: false, defaultVariant: "off")))
        let transition = try state.transition(applying: changes)
        let flagDrafts = transition.audit.filter { $0.subject == .flag }
        #expect(flagDrafts.count == 21 * 3)
        for draft in flagDrafts {
            // Held as the model, not as JSON.
            guard case .flag = draft.afterValue else {
                Issue.record("the draft of \(draft.key) in \(draft.environment) holds JSON")
                continue
            }
            let flag = try #require(transition.state.flags[draft.key])
            let settings = try #require(transition.state.environments[draft.environment]?.settings[draft.key])
            #expect(draft.after == .object(["flag": JSONValue(encoding: flag), "settings": JSONValue(encoding: settings)]))
            if let old = state.flags[draft.key], let oldSettings = state.environments[draft.environment]?.settings[draft.key] {
                #expect(draft.before == .object(["flag": JSONValue(encoding: old), "settings": JSONValue(encoding: oldSettings)]))
            } else {
                #expect(draft.before == nil)
            }
            // Equal to, and hashed as, the draft holding the same JSON.
            let json = AuditDraft(
                environment: draft.environment, subject: draft.subject, key: draft.key, before: draft.before, after: draft.after)
            #expect(json == draft)
            #expect(json.hashValue == draft.hashValue)
            var other = json
            other.after = .object(["flag": JSONValue(encoding: flag), "settings": ["enabled": true]])
            #expect(other != draft)
        }
    }

    @Test
    func asStoredKeepsStoredValuesAndConvertsTheRest() {
        let stored: JSONValue = ["a": [1, 1.5, "x", .null, true], "b": ["c": 2.25]]
        #expect(stored.isStored)
        #expect(stored.asStored == stored)
        let whole: JSONValue = ["a": [.double(1.0), 1.5], "b": ["c": .double(.infinity)]]
        #expect(!whole.isStored)
        #expect(whole.asStored == ["a": [1, 1.5], "b": ["c": .null]])
        #expect(JSONValue.double(-0.0).asStored == .int(0))
        // A flag whose variants need no conversion keeps them; one whose variants do is converted.
        let kept = FlagRecord(key: "k", type: .float, variants: ["a": .double(0.5)], metadata: FlagRecordMetadata(custom: ["w": 3]))
        let converted = FlagRecord(key: "k", type: .float, variants: ["a": .double(2.0)], metadata: FlagRecordMetadata(custom: ["w": .double(3.0)]))
        guard case .putFlag(let keptFlag, _) = StateChange.putFlag(kept, initialSettings: FlagSettings(enabled: false, defaultVariant: "a")).asStored,
            case .putFlag(let convertedFlag, _) = StateChange.putFlag(converted, initialSettings: FlagSettings(enabled: false, defaultVariant: "a")).asStored
        else {
            Issue.record("asStored changed the kind of change")
            return
        }
        #expect(keptFlag == kept)
        #expect(convertedFlag.variants == ["a": .int(2)])
        #expect(convertedFlag.metadata.custom == ["w": .int(3)])
    }

    @Test(arguments: [0, 1, AdminResponses.ImportResult.changesPerSlice, 2 * AdminResponses.ImportResult.changesPerSlice + 7])
    func theAnswerIsWhatTheEncoderWritesForTheWholeValue(_ flags: Int) throws {
        let state = WritePathTests.baseState()
        var changes = Self.importedFlags(flags)
        changes.append(.deleteFlag("banner"))
        changes.append(.putSegment(environment: "staging", key: "beta", rule: ["in": [["var": "email"], "/é\u{2028}"]]))
        let drafts = try state.transition(applying: changes).audit
        let problems = [
            ValidationError(key: "flag-1", field: "variants.on", problem: "must be a \"number\" </script>"),
            ValidationError(environment: "production", key: nil, field: "(body)", problem: "ünïcode"),
        ]
        for result in [
            AdminResponses.ImportResult(dryRun: true, changes: drafts, problems: problems, revisions: [:]),
            AdminResponses.ImportResult(dryRun: false, changes: drafts, problems: [], revisions: ["production": 7, "staging": 3]),
        ] {
            let whole = try JSONBody.encoder.encode(result)
            let sliced = result.body()
            #expect(Array(sliced.readableBytesView) == Array(whole))
            #expect(try JSONValue(parsing: whole)["changes"]?.arrayValue?.count == drafts.count)
        }
    }

    @Test
    func anImportStoresTheAuditItAnswers() async throws {
        let flags = (0..<300).map { index in
            "\"f\(index)\": {\"state\": \"ENABLED\", \"variants\": {\"on\": true, \"off\": false}, \"defaultVariant\": \"off\""
                + (index % 10 == 0 ? ", \"targeting\": {\"fractional\": [[\"on\", 10], [\"off\", 90]]}" : "")
                + ", \"metadata\": {\"owner\": \"team/\(index)\", \"ratio\": 2.0}}"
        }
        let document = "{\"flags\": {\(flags.joined(separator: ", "))}}"
        try await TestServer.with { server in
            let reply = try await server.request(
                .POST, "/admin/v1/environments/production/import", token: server.adminToken, body: document)
            #expect(reply.status == 200)
            let changes = try #require(reply.json?["changes"]?.arrayValue)
            #expect(changes.count == 900)
            let state = await server.server.admin.state
            let loaded = try await server.server.admin.store.load()
            #expect(state == loaded)
            for environment in ["development", "production", "staging"] {
                // Beside the entry that created the environment.
                let audit = try await server.server.admin.store.audit(environment: environment, key: nil, limit: 1000)
                    .filter { $0.subject == .flag }
                #expect(audit.count == 300)
                // Newest first in the store; the answer lists them in the order written.
                let answered = changes.filter { $0["environment"] == .string(environment) }
                #expect(audit.reversed().map { JSONValue.string($0.key) } == answered.map { $0["key"] })
                for (entry, change) in zip(audit.reversed(), answered) {
                    #expect(entry.before == nil && change["before"] == nil)
                    #expect(entry.after == change["after"])
                    let flag = try #require(state.flags[entry.key])
                    let settings = try #require(state.environments[environment]?.settings[entry.key])
                    #expect(entry.after == .object(["flag": JSONValue(encoding: flag), "settings": JSONValue(encoding: settings)]))
                }
            }
        }
    }
}
