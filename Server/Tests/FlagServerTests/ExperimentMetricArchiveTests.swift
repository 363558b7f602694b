import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOHTTP1
import Testing

/// Archiving a metric (Server/Docs/Experiments.md, "Model"): kept with the results that used it,
/// refused to new experiments and guardrails, listed apart in the console, restored on demand.
struct ExperimentMetricArchiveTests {
    static let production = ExperimentAPITests.production

    /// A plan of `checkout` guarded by metric `key`.
    static func plan(guardedBy key: String) -> String {
        #"{"flag": "checkout", "oldVariant": "off", "newVariant": "on", "steps": [{"percent": 10, "durationSeconds": 60}, {"percent": 100, "durationSeconds": 60}], "guardrails": [{"metric": "experiment_metric", "metricKey": ""#
            + key + #"", "tolerance": 0.01, "direction": "decrease"}]}"#
    }

    @Test
    func anArchivedMetricIsKeptButRefusedToNewExperimentsAndGuardrailsUntilRestored() async throws {
        // Experiment exp-1 (a draft) names metric buy.
        try await ExperimentAPITests.withExperiment(start: false) { server in
            let token = server.adminToken
            let archive = "/admin/v1/metrics/buy/archive"

            // Used by a draft: refused, nothing changes.
            let used = try await server.request(.POST, archive, token: token)
            #expect(used.status == 409)
            #expect(used.body.contains(#"metric \"buy\" is used by draft experiment \"exp-1\""#), "\(used.body)")
            #expect(try await server.request(.GET, "/admin/v1/metrics/buy", token: token).json?["archived"] == false)
            #expect(try await server.request(.DELETE, Self.production + "/experiments/exp-1", token: token).status == 204)

            let archived = try await server.request(.POST, archive, token: token)
            #expect(archived.status == 200, "\(archived.body)")
            #expect(archived.json?["archived"] == true && archived.json?["version"]?.intValue == 2)
            #expect(archived.json?["updatedBy"]?.stringValue?.hasPrefix("token ") == true)
            // Again: as it is, no new version.
            #expect(try await server.request(.POST, archive, token: token).json?["version"]?.intValue == 2)
            // Listed, with the field; a PUT keeps it archived.
            #expect(try await server.request(.GET, "/admin/v1/metrics", token: token).json?.arrayValue?.first?["archived"] == true)
            let replaced = try await server.request(
                .PUT, "/admin/v1/metrics/buy", token: token, body: #"{"name": "Purchases", "event": "purchase", "kind": "conversion", "windowHours": 24}"#)
            #expect(replaced.status == 200 && replaced.json?["archived"] == true && replaced.json?["version"]?.intValue == 3)

            // Refused to a new experiment (422 naming metrics) and to a rollout guardrail (400).
            let experiment = try await server.request(
                .POST, Self.production + "/experiments", token: token,
                body: #"{"id": "exp-2", "flag": "checkout", "control": "off", "arms": ["off", "on"], "metrics": ["buy"]}"#)
            #expect(experiment.status == 422)
            #expect(experiment.body.contains(#"metric \"buy\" is archived; restore it to name it in an experiment"#), "\(experiment.body)")
            let plans = Self.production + "/rollouts"
            let guarded = try await server.request(.POST, plans, token: token, body: Self.plan(guardedBy: "buy"))
            #expect(guarded.status == 400)
            #expect(guarded.json?["error"]?["message"]?.stringValue?.contains(#"guardrails[0].metricKey: metric "buy" is archived"#) == true)
            #expect(try await server.request(.GET, plans, token: token).json?.arrayValue?.isEmpty == true)

            // Restored: offered again.
            let restored = try await server.request(.POST, "/admin/v1/metrics/buy/restore", token: token)
            #expect(restored.status == 200 && restored.json?["archived"] == false && restored.json?["version"]?.intValue == 4)
            let again = try await server.request(
                .POST, Self.production + "/experiments", token: token,
                body: #"{"id": "exp-2", "flag": "checkout", "control": "off", "arms": ["off", "on"], "metrics": ["buy"]}"#)
            #expect(again.status == 201, "\(again.body)")
            #expect(try await server.request(.POST, plans, token: token, body: Self.plan(guardedBy: "buy")).status == 201)
            #expect(try await server.request(.POST, "/admin/v1/metrics/nope/archive", token: token).status == 404)
        }
    }

    /// A stopped experiment keeps its metric's results when the metric is archived: nothing uses
    /// it any more, so archiving is allowed, and the experiment still reads the metric.
    @Test
    func aStoppedExperimentsMetricCanBeArchivedAndStillNamesIt() async throws {
        try await ExperimentAPITests.withExperiment(start: true) { server in
            let token = server.adminToken
            #expect(try await server.request(.POST, "/admin/v1/metrics/buy/archive", token: token).status == 409)
            let stopped = try await server.request(.POST, Self.production + "/experiments/exp-1/stop", token: token, body: "{}")
            #expect(stopped.status == 200, "\(stopped.body)")
            #expect(try await server.request(.POST, "/admin/v1/metrics/buy/archive", token: token).status == 200)
            let experiment = try await server.request(.GET, Self.production + "/experiments/exp-1", token: token)
            #expect(experiment.json?["metrics"] == ["buy"])
            let store = try #require(server.server.admin.store.capabilities.experiments)
            let metrics = try await Experiments(admin: server.server.admin, store: store, now: Date.init).metricsByKey()
            #expect(metrics["buy"]?.archived == true)
        }
    }

    /// A metric stored before `archived` existed (a document without it) reads as not archived;
    /// one written now carries the field.
    @Test
    func aDocumentWithoutTheFieldIsNotArchived() throws {
        let old = #"{"key": "buy", "name": "Purchases", "event": "purchase", "kind": "conversion", "windowHours": 168, "higherIsBetter": true, "guardrail": false, "cuped": false, "version": 3, "updatedAt": 0, "updatedBy": "ada"}"#
        let metric = try JSONDecoder().decode(ExperimentMetric.self, from: Data(old.utf8))
        #expect(!metric.archived && metric.version == 3 && metric.updatedBy == "ada")
        var archived = metric
        archived.archived = true
        let written = try JSONEncoder().encode(archived)
        #expect(String(decoding: written, as: UTF8.self).contains(#""archived":true"#))
        #expect(try JSONDecoder().decode(ExperimentMetric.self, from: written) == archived)
    }

    @Test
    func theConsoleListsArchivedMetricsApartAndRestoresThem() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("checkout", targeting: ExperimentAPITests.split)
            for body in [
                #"{"key": "buy", "name": "Purchases", "event": "purchase", "kind": "conversion"}"#,
                #"{"key": "refunds", "name": "Refunds", "event": "refund", "kind": "count"}"#,
            ] {
                #expect(try await server.request(.POST, "/admin/v1/metrics", token: server.adminToken, body: body).status == 201)
            }
            let draft = try await server.request(
                .POST, Self.production + "/experiments", token: server.adminToken,
                body: #"{"id": "exp-1", "flag": "checkout", "control": "off", "arms": ["off", "on"], "metrics": ["buy"]}"#)
            #expect(draft.status == 201, "\(draft.body)")
            let (client, csrf) = try await ConsoleMetricsAndSchedulesTests.signedIn(server)

            // Used by the draft: the list comes back with the problem; nothing archived.
            let refused = try await client.post("/console/metrics/buy/archive", [], csrf: csrf)
            #expect(refused.status == 409)
            #expect(refused.body.contains(#"id="problems""#) && refused.body.contains("is used by draft experiment &quot;exp-1&quot;"))
            #expect(!refused.body.contains(#"id="archived-metrics-table""#))

            let done = try await client.post("/console/metrics/refunds/archive", [], csrf: csrf)
            #expect(done.status == 303 && done.location == "/console/metrics?done=archived")
            let list = try await client.get("/console/metrics?done=archived")
            #expect(list.body.contains("Metric archived"))
            #expect(list.body.contains(#"<tr id="metric-buy">"#) && list.body.contains(#"id="archive-buy""#))
            #expect(list.body.contains(#"<tr id="archived-metric-refunds">"#) && list.body.contains(#"id="restore-refunds""#))
            #expect(!list.body.contains(#"<tr id="metric-refunds">"#))
            #expect(list.body.contains("by user erin"))
            let page = try await client.get("/console/metrics/refunds")
            #expect(page.body.contains(#"id="metric-archived""#) && page.body.contains(#"id="restore-metric""#))
            #expect(!(try await client.get("/console/metrics/buy")).body.contains(#"id="metric-archived""#))
            // The experiments page offers only the metrics that are not archived.
            let experiments = try await client.get("/console/environments/production/experiments")
            #expect(experiments.body.contains("Defined: buy ("))

            // Without the CSRF token: refused, still archived.
            let forged = try await client.post("/console/metrics/refunds/restore", [], csrf: "forged")
            #expect(forged.status == 403)
            let restored = try await client.post("/console/metrics/refunds/restore", [], csrf: csrf)
            #expect(restored.status == 303 && restored.location == "/console/metrics?done=restored")
            let after = try await client.get("/console/metrics")
            #expect(after.body.contains(#"<tr id="metric-refunds">"#) && !after.body.contains(#"id="archived-metrics-table""#))
            #expect(try await ConsoleMetricsAndSchedulesTests.metrics(server).allSatisfy { $0["archived"] == false })

            // A viewer sees the tables without the buttons.
            let (viewer, _) = try await ConsoleMetricsAndSchedulesTests.signedIn(server, "vic", role: .viewer)
            let seen = try await viewer.get("/console/metrics")
            #expect(seen.status == 200 && seen.body.contains(#"<tr id="metric-buy">"#) && !seen.body.contains(#"id="archive-buy""#))
        }
    }
}
