import FlagEvaluation
import FlagServer
import FlagStatistics
import Foundation
import NIOHTTP1
import Testing

/// `POST /admin/v1/statistics/analyze`: the engine behind the admin API, with the same figures
/// as the engine called directly (and as `flags stats analyze`).
struct StatisticsAPITests {
    static let experiment = #"""
        {"control": "off", "allocation": {"off": 1, "on": 1},
         "metrics": [{"name": "checkout", "kind": "conversion",
                      "arms": {"off": {"units": 5000, "sum": 410}, "on": {"units": 5021, "sum": 468}}},
                     {"name": "revenue", "kind": "mean", "higherIsBetter": true,
                      "arms": {"off": {"units": 5000, "sum": 61250, "sumOfSquares": 1510000},
                               "on": {"units": 5021, "sum": 63020, "sumOfSquares": 1533000}}}]}
        """#

    @Test func analysesAnExperimentAsTheEngineDoes() async throws {
        try await TestServer.with { server in
            let reply = try await server.request(.POST, "/admin/v1/statistics/analyze", token: server.adminToken, body: Self.experiment)
            #expect(reply.status == 200, "\(reply.body)")
            let served = try JSONDecoder().decode(ExperimentAnalysis.self, from: Data(reply.body.utf8))
            let direct = try StatisticsEngine.analyze(JSONDecoder().decode(ExperimentData.self, from: Data(Self.experiment.utf8)))
            #expect(served == direct)
            #expect(served.metrics.count == 2)
        }
    }

    @Test func refusesStatisticsThatCannotBeAnalysedNamingTheField() async throws {
        try await TestServer.with { server in
            let impossible = #"{"control": "off", "metrics": [{"name": "m", "kind": "conversion", "arms": {"off": {"units": 10, "sum": 11}, "on": {"units": 10, "sum": 1}}}]}"#
            let reply = try await server.request(.POST, "/admin/v1/statistics/analyze", token: server.adminToken, body: impossible)
            #expect(reply.status == 422)
            #expect(reply.json?["error"]?["problems"]?.arrayValue?.first?["field"]?.stringValue == "metrics[0].arms.off.sum")
            // The schema refuses what it describes as wrong before the engine runs.
            let unknownKind = #"{"control": "off", "metrics": [{"name": "m", "kind": "median", "arms": {"off": {"units": 10, "sum": 1}, "on": {"units": 10, "sum": 1}}}]}"#
            #expect(try await server.request(.POST, "/admin/v1/statistics/analyze", token: server.adminToken, body: unknownKind).status == 400)
        }
    }

    @Test func needsAnAdminToken() async throws {
        try await TestServer.with { server in
            #expect(try await server.request(.POST, "/admin/v1/statistics/analyze", body: Self.experiment).status == 401)
            let client = try await server.token(.client, environment: "production")
            #expect(try await server.request(.POST, "/admin/v1/statistics/analyze", token: client, body: Self.experiment).status == 403)
        }
    }
}
