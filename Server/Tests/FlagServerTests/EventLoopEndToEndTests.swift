import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// The whole loop on the real SQLite event store: batches an app sends to `POST /ofrep/v1/ingestion`
/// are stored once, and the admin API's insights and removal evidence read them back.
struct EventLoopEndToEndTests {
    @Test
    func ingestedBatchesReachInsightsAndEvidenceOnceEach() async throws {
        let events = try await SQLiteFlagEventStore(path: nil)
        // SQLiteNIO traps when a connection is released unclosed: closed on every way out.
        do {
            try await loop(events)
        } catch {
            await events.close()
            throw error
        }
        await events.close()
    }

    private func loop(_ events: SQLiteFlagEventStore) async throws {
        try await TestServer.with(eventStore: events) { server in
            try await server.booleanFlag("checkout")
            let token = try await server.token(.client, environment: "production")
            // Two apps' batches, the second sent twice (a retry after a lost answer).
            let first = EventIngestionTests.body(id: "app-a-1", exposures: 3, summaries: [("checkout", "on", 40)], tracked: 0)
            let second = EventIngestionTests.body(id: "app-b-1", exposures: 2, summaries: [("checkout", "on", 10)], tracked: 1) {
                $0["source"] = ["appVersion": "4.1", "buildConfiguration": "release", "platform": "Android"]
            }
            for (body, duplicate) in [(first, false), (second, false), (second, true)] {
                let reply = try await EventIngestionTests.ingest(server, body, token: token)
                #expect(reply.status == 202, "\(reply.body)")
                #expect(reply.json?["duplicate"] == .bool(duplicate))
            }

            let insights = try await server.request(
                .GET, "/admin/v1/environments/production/flags/checkout/insights", token: server.adminToken)
            #expect(insights.status == 200, "\(insights.body)")
            let json = try #require(insights.json)
            #expect(json["totalEvaluations"] == 50, "\(insights.body)")
            #expect(json["totalExposures"] == 5, "\(insights.body)")
            #expect(json["lastEvaluated"] != nil && json["lastEvaluated"] != .null)
            let versions = json["appVersions"]?["values"]?.arrayValue?.compactMap { $0["value"]?.stringValue } ?? []
            #expect(Set(versions) == ["4.2", "4.1"], "\(insights.body)")

            // A week of history does not exist yet: the evidence cannot call the flag settled.
            let evidence = try await server.request(
                .GET, "/admin/v1/environments/production/evidence?days=7", token: server.adminToken)
            #expect(evidence.status == 200, "\(evidence.body)")
            let checkout = evidence.json?["flags"]?.arrayValue?.first { $0["flag"] == "checkout" }
            #expect(checkout?["state"] == "unknown", "\(evidence.body)")

            // What was stored, read from the store itself: each batch once.
            let day = RollupGranularity.day.bucket(of: EventIngestionTests.nowMilliseconds)
            let units = try await events.unitCounts(environment: "production", flag: "checkout", from: day - 86_400_000, to: day + 86_400_000)
            #expect(units.reduce(0) { $0 + $1.units } == 3, "user-0…2 from app A, user-0…1 from app B: three units")
        }
    }
}
