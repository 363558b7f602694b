import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOHTTP1
import Testing

/// A rollout plan's evidence (issue 39): the sessions and crashes received since its run started
/// and those without a variant of its flag, on the plan page and from
/// `GET …/rollouts/{id}/attribution`.
struct RolloutEvidenceTests {
    static let api = ConsoleRolloutTests.api

    static func tracked(_ name: String, _ variants: [String: String], at time: Int64) -> EventBatch.Tracked {
        EventBatch.Tracked(name: name, unit: "u1", variants: variants, time: time)
    }

    @Test
    func thePlanPageAndTheAPICountSessionsAndCrashesWithoutAVariantSinceTheRunStarted() async throws {
        let events = try await SQLiteFlagEventStore(path: nil)
        try await events.migrate()
        do {
            try await Self.countEvidence(events)
        } catch {
            await events.close()
            throw error
        }
        await events.close()
    }

    static func countEvidence(_ events: SQLiteFlagEventStore) async throws {
        try await TestServer.withConsole(eventStore: events, rolloutTickInterval: nil) { server in
            try await server.booleanFlag("search", defaultVariant: "off")
            try await server.consoleUser("ada", role: .admin)
            let client = ConsoleClient(server)
            try await client.signIn("ada")
            let id = try await ConsoleRolloutTests.createByAPI(server, flag: "search")

            // A draft has no run: nothing counted, no sentence.
            let draft = try await server.request(.GET, Self.api + "/\(id)/attribution", token: server.adminToken)
            #expect(draft.status == 200)
            #expect(draft.json?["since"] == nil && draft.json?["sessions"]?.intValue == 0 && draft.json?["flag"]?.stringValue == "search")
            #expect(!(try await client.get(ConsoleRolloutTests.base + "/" + id)).body.contains(#"id="rollout-evidence""#))

            #expect(try await server.request(.POST, Self.api + "/\(id)/start", token: server.adminToken, body: "{}").status == 200)
            let started = InsightsRange.milliseconds(Date())
            let running = try await client.get(ConsoleRolloutTests.base + "/" + id)
            #expect(running.body.contains(#"<p id="rollout-evidence">Evidence: 0 sessions and 0 crashes since the run started.</p>"#))

            let later = started + 60_000
            _ = try await events.ingest([
                FlagEventStoreCompatibilityTests.batch("1", environment: "production", tracked: [
                    Self.tracked("$session", ["search": "on"], at: later), Self.tracked("$session", ["search": "off"], at: later),
                    Self.tracked("$crash", ["search": "on"], at: later), Self.tracked("$session", [:], at: later),
                    Self.tracked("$crash", ["other": "x"], at: later),
                    // Before the run started.
                    Self.tracked("$crash", [:], at: started - 3_600_000),
                ]),
            ])
            let counted = try await server.request(.GET, Self.api + "/\(id)/attribution", token: server.adminToken)
            #expect(counted.status == 200)
            let json = try #require(counted.json)
            #expect(json["sessions"]?.intValue == 5 && json["crashes"]?.intValue == 2)
            #expect(json["sessionsWithoutVariant"]?.intValue == 2 && json["crashesWithoutVariant"]?.intValue == 1)
            #expect(json["since"]?.stringValue != nil && json["plan"]?.stringValue == id && json["environment"]?.stringValue == "production")
            let page = try await client.get(ConsoleRolloutTests.base + "/" + id)
            #expect(page.body.contains(
                "Evidence: 5 sessions and 2 crashes since the run started; 2 sessions and 1 crash came without a variant of this flag (not counted)."))

            #expect(try await server.request(.GET, Self.api + "/ro-missing/attribution", token: server.adminToken).status == 404)
        }
    }

    @Test
    func withoutAnEventStoreTheAPIAnswers409AndThePageSaysNothing() async throws {
        try await TestServer.withConsole(rolloutTickInterval: nil) { server in
            try await server.booleanFlag("search", defaultVariant: "off")
            let id = try await ConsoleRolloutTests.createByAPI(server, flag: "search")
            let reply = try await server.request(.GET, Self.api + "/\(id)/attribution", token: server.adminToken)
            #expect(reply.status == 409 && reply.json?["error"]?["code"]?.stringValue == "no_event_store")
        }
    }

    @Test
    func theSentenceCountsInWordsAndSaysWhenEveryEventHadAVariant() {
        func attribution(_ sessions: Int, _ crashes: Int, _ sessionsWithout: Int, _ crashesWithout: Int) -> RolloutAttribution {
            let plan = RolloutPlan(
                id: "ro-1", flag: "search", environment: "production", oldVariant: "off", newVariant: "on",
                steps: [.init(percent: 100, durationSeconds: 60)], guardrails: [], salt: "salt",
                createdAt: Date(timeIntervalSince1970: 0), actor: "test")
            return RolloutAttribution(
                plan: plan, counts: RolloutAttributionCounts(
                    sessions: sessions, crashes: crashes, sessionsWithoutVariant: sessionsWithout, crashesWithoutVariant: crashesWithout))
        }
        #expect(ConsoleRoutes.evidenceText(attribution(3120, 61, 12, 4))
            == "Evidence: 3,120 sessions and 61 crashes since the run started; 12 sessions and 4 crashes came without a variant of this flag (not counted).")
        #expect(ConsoleRoutes.evidenceText(attribution(1, 1, 1, 0))
            == "Evidence: 1 session and 1 crash since the run started; 1 session and 0 crashes came without a variant of this flag (not counted).")
        #expect(ConsoleRoutes.evidenceText(attribution(40, 2, 0, 0))
            == "Evidence: 40 sessions and 2 crashes since the run started; every one came with a variant of this flag.")
    }
}
