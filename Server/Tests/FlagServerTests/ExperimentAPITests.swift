import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import FlagStatistics
import Foundation
import NIOHTTP1
import Synchronization
import Testing

/// The experiment routes (Server/Docs/Experiments.md): metrics, experiments and their lifecycle,
/// the allocation guard on every write path, shipping, results and the planner.
struct ExperimentAPITests {
    static let production = "/admin/v1/environments/production"
    static let split = #"{"fractional": [{"cat": ["salt-", {"var": "targetingKey"}]}, ["on", 50], ["off", 50]]}"#

    /// A server with flag `checkout` split 50/50 in production (and on in staging), metric `buy`,
    /// and experiment `exp-1` (off against on) created; started when `start`.
    static func withExperiment(
        start: Bool = true, eventStore: (any FlagEventStore)? = nil, _ body: (TestServer) async throws -> Void
    ) async throws {
        try await TestServer.with(eventStore: eventStore) { server in
            try await server.booleanFlag("checkout", targeting: split)
            try await server.booleanFlag("checkout", environment: "staging")
            let metric = try await server.request(
                .POST, "/admin/v1/metrics", token: server.adminToken,
                body: #"{"key": "buy", "name": "Purchases", "event": "purchase", "kind": "conversion", "guardrail": false}"#)
            guard metric.status == 201 else { throw TestFailure("metric: \(metric.status) \(metric.body)") }
            let created = try await server.request(
                .POST, production + "/experiments", token: server.adminToken,
                body: #"{"id": "exp-1", "flag": "checkout", "control": "off", "arms": ["off", "on"], "metrics": ["buy"], "hypothesis": "on sells more"}"#)
            guard created.status == 201 else { throw TestFailure("experiment: \(created.status) \(created.body)") }
            if start {
                let started = try await server.request(.POST, production + "/experiments/exp-1/start", token: server.adminToken, body: "{}")
                guard started.status == 200 else { throw TestFailure("start: \(started.status) \(started.body)") }
            }
            try await body(server)
        }
    }

    @Test
    func anExperimentStartsRecordingTheAllocationAndStops() async throws {
        try await Self.withExperiment(start: false) { server in
            let token = server.adminToken
            let listed = try await server.request(.GET, Self.production + "/experiments", token: token)
            #expect(listed.json?.arrayValue?.map { $0["id"] } == ["exp-1"])
            let started = try await server.request(.POST, Self.production + "/experiments/exp-1/start", token: token, body: "{}")
            #expect(started.status == 200)
            #expect(started.json?["status"] == "running")
            #expect(started.json?["allocation"]?["buckets"]?.arrayValue?.count == 2)
            #expect(started.json?["allocation"]?["bucketing"] == ["cat": ["salt-", ["var": "targetingKey"]]])
            // Started again, changed or deleted while running: 409, nothing changes.
            #expect(try await server.request(.POST, Self.production + "/experiments/exp-1/start", token: token, body: "{}").status == 409)
            let edit = try await server.request(
                .PUT, Self.production + "/experiments/exp-1", token: token,
                body: #"{"flag": "checkout", "control": "on", "arms": ["off", "on"], "metrics": ["buy"]}"#)
            #expect(edit.status == 409)
            #expect(try await server.request(.DELETE, Self.production + "/experiments/exp-1", token: token).status == 409)
            #expect(try await server.request(.DELETE, "/admin/v1/metrics/buy", token: token).status == 409)
            let stopped = try await server.request(.POST, Self.production + "/experiments/exp-1/stop", token: token, body: #"{"reason": "done"}"#)
            #expect(stopped.status == 200)
            #expect(stopped.json?["status"] == "stopped")
            #expect(stopped.json?["history"]?.arrayValue?.compactMap { $0["action"]?.stringValue } == ["created", "started", "stopped"])
            #expect(try await server.request(.DELETE, Self.production + "/experiments/exp-1", token: token).status == 204)
            #expect(try await server.request(.GET, Self.production + "/experiments/exp-1", token: token).status == 404)
        }
    }

    @Test
    func startingWithoutASplitOverTheArmsIsRefusedNamingTheAllocation() async throws {
        try await Self.withExperiment(start: false) { server in
            let token = server.adminToken
            let plain = try await server.request(
                .PUT, Self.production + "/flags/checkout/settings", token: token, body: #"{"enabled": true, "defaultVariant": "on"}"#)
            #expect(plain.status == 200)
            let refused = try await server.request(.POST, Self.production + "/experiments/exp-1/start", token: token, body: "{}")
            #expect(refused.status == 422)
            #expect(refused.json?["error"]?["problems"]?.arrayValue?.first?["field"] == "allocation")
            #expect(try await server.request(.GET, Self.production + "/experiments/exp-1", token: token).json?["status"] == "draft")
        }
    }

    @Test
    func everyWritePathThatChangesTheAllocationIsRefused() async throws {
        try await Self.withExperiment { server in
            let token = server.adminToken
            let history = try await server.request(.GET, Self.production + "/audit?key=checkout", token: token)
            // The flag's first revision in production had no split.
            let first = try #require(history.json?.arrayValue?.last?["revision"]?.intValue)
            let before = await server.server.admin.state
            let attempts: [(String, HTTPMethod, String, String?, [(String, String)])] = [
                ("weights", .PUT, Self.production + "/flags/checkout/settings",
                 #"{"enabled": true, "defaultVariant": "on", "targeting": {"fractional": [{"cat": ["salt-", {"var": "targetingKey"}]}, ["on", 90], ["off", 10]]}}"#, []),
                ("bucketing", .PUT, Self.production + "/flags/checkout/settings",
                 #"{"enabled": true, "defaultVariant": "on", "targeting": {"fractional": [["on", 50], ["off", 50]]}}"#, []),
                ("segment", .PUT, Self.production + "/flags/checkout/settings",
                 #"{"enabled": true, "defaultVariant": "on", "targeting": {"if": [{"in": ["@a", {"var": "email"}]}, \#(Self.split), "off"]}}"#, []),
                ("patch", .PATCH, Self.production + "/flags/checkout/settings", #"{"targeting": null}"#,
                 [("Content-Type", "application/merge-patch+json")]),
                ("copy from staging", .POST, Self.production + "/flags/checkout/copy", #"{"from": "staging"}"#, []),
                ("revert", .POST, Self.production + "/flags/checkout/revert", #"{"revision": \#(first)}"#, []),
                ("variants", .PUT, "/admin/v1/flags/checkout", #"{"type": "boolean", "variants": {"on": false, "off": true}}"#, []),
                ("archive", .POST, "/admin/v1/flags/checkout/archive", #"{"reason": "done"}"#, []),
                ("delete", .DELETE, "/admin/v1/flags/checkout", nil, []),
                ("import", .POST, Self.production + "/import",
                 #"{"flags": {"checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"}}}"#, []),
            ]
            for (name, method, path, body, headers) in attempts {
                let reply = try await server.request(method, path, token: token, body: body, headers: headers)
                #expect(reply.status == 409, "\(name): \(reply.status) \(reply.body)")
                let message = reply.json?["error"]?["message"]?.stringValue ?? ""
                #expect(message.contains("experiment \"exp-1\"") && message.contains("/experiments/exp-1/stop"), "\(name): \(message)")
            }
            #expect(await server.server.admin.state == before)

            // What leaves the allocation alone passes: the kill switch, metadata, other environments.
            let kill = try await server.request(
                .PATCH, Self.production + "/flags/checkout/settings", token: token, body: #"{"enabled": false}"#,
                headers: [("Content-Type", "application/merge-patch+json")])
            #expect(kill.status == 200, "\(kill.body)")
            let metadata = try await server.request(
                .PUT, "/admin/v1/flags/checkout", token: token,
                body: #"{"type": "boolean", "variants": {"on": true, "off": false}, "metadata": {"owner": "growth"}}"#)
            #expect(metadata.status == 200, "\(metadata.body)")
            let staging = try await server.request(
                .PUT, "/admin/v1/environments/staging/flags/checkout/settings", token: token,
                body: #"{"enabled": true, "defaultVariant": "on", "targeting": {"fractional": [["on", 90], ["off", 10]]}}"#)
            #expect(staging.status == 200)

            // Stopped, the same change passes.
            #expect(try await server.request(.POST, Self.production + "/experiments/exp-1/stop", token: token, body: "{}").status == 200)
            let after = try await server.request(.PUT, attempts[0].2, token: token, body: attempts[0].3)
            #expect(after.status == 200)
        }
    }

    @Test
    func aChangedSegmentOfTheConditionIsRefusedAndAChangeRequestToo() async throws {
        try await TestServer.with { server in
            let token = server.adminToken
            #expect(try await server.request(.PUT, Self.production + "/segments/beta", token: token, body: #"{"rule": {"in": ["@b", {"var": "email"}]}}"#).status == 200)
            #expect(try await server.request(.PUT, Self.production + "/segments/other", token: token, body: #"{"rule": {"==": [1, 1]}}"#).status == 200)
            try await server.booleanFlag("checkout", targeting: #"{"if": [{"$ref": "beta"}, \#(Self.split), "off"]}"#)
            #expect(try await server.request(.POST, "/admin/v1/metrics", token: token, body: #"{"key": "buy", "name": "Buy", "event": "purchase", "kind": "count"}"#).status == 201)
            #expect(try await server.request(
                .POST, Self.production + "/experiments", token: token,
                body: #"{"id": "e", "flag": "checkout", "control": "off", "arms": ["off", "on"], "metrics": ["buy"]}"#).status == 201)
            #expect(try await server.request(.POST, Self.production + "/experiments/e/start", token: token, body: "{}").status == 200)
            let segment = try await server.request(.PUT, Self.production + "/segments/beta", token: token, body: #"{"rule": {"==": [1, 1]}}"#)
            #expect(segment.status == 409)
            #expect(segment.json?["error"]?["message"]?.stringValue?.contains("segments") == true)
            // Another segment is no part of the allocation.
            #expect(try await server.request(.PUT, Self.production + "/segments/other", token: token, body: #"{"rule": {"==": [2, 2]}}"#).status == 200)
            // An approved change request meets the guard when it is applied.
            #expect(try await server.request(
                .PUT, Self.production + "/approval-rule", token: token, body: #"{"requiredApprovals": 1, "appliesTo": ["settings"]}"#).status == 200)
            let opened = try await server.request(
                .POST, Self.production + "/change-requests", token: token,
                body: #"{"change": {"flag": "checkout", "settings": {"enabled": true, "defaultVariant": "on"}}, "reason": "end it"}"#)
            let id = try #require(opened.json?["id"]?.stringValue)
            let other = try await server.token(.admin, environment: "production", name: "reviewer")
            #expect(try await server.request(.POST, Self.production + "/change-requests/\(id)/approve", token: other, body: "{}").status == 200)
            let applied = try await server.request(.POST, Self.production + "/change-requests/\(id)/apply", token: token)
            #expect(applied.status == 409, "\(applied.body)")
            #expect(applied.json?["error"]?["message"]?.stringValue?.contains("experiment \"e\"") == true)
        }
    }

    @Test
    func shippingMakesTheArmTheDefaultAsAnAuditedRevision() async throws {
        try await Self.withExperiment { server in
            let token = server.adminToken
            let wrong = try await server.request(.POST, Self.production + "/experiments/exp-1/ship", token: token, body: #"{"arm": "maybe"}"#)
            #expect(wrong.status == 422)
            #expect(wrong.json?["error"]?["problems"]?.arrayValue?.first?["field"] == "arm")
            let shipped = try await server.request(
                .POST, Self.production + "/experiments/exp-1/ship", token: token, body: #"{"arm": "on", "reason": "on won"}"#)
            #expect(shipped.status == 200, "\(shipped.body)")
            #expect(shipped.json?["experiment"]?["status"] == "shipped")
            #expect(shipped.json?["experiment"]?["shippedArm"] == "on")
            let revision = try #require(shipped.json?["revisions"]?["production"]?.intValue)
            let settings = await server.server.admin.state.environments["production"]?.settings["checkout"]
            #expect(settings == FlagSettings(enabled: true, defaultVariant: "on", targeting: nil))
            let audit = try await server.request(.GET, Self.production + "/audit?key=checkout", token: token)
            let entry = try #require(audit.json?.arrayValue?.first)
            #expect(entry["revision"]?.intValue == revision)
            #expect(entry["reason"] == "on won")
            // Shipped is final.
            #expect(try await server.request(.POST, Self.production + "/experiments/exp-1/stop", token: token, body: "{}").status == 409)
            #expect(try await server.request(.POST, Self.production + "/experiments/exp-1/ship", token: token, body: #"{"arm": "off"}"#).status == 409)
            #expect(try await server.request(.DELETE, Self.production + "/experiments/exp-1", token: token).status == 409)
        }
    }

    @Test
    func resultsNeedAnEventStoreThatComputesThem() async throws {
        try await Self.withExperiment { server in
            let reply = try await server.request(.GET, Self.production + "/experiments/exp-1/results", token: server.adminToken)
            #expect(reply.status == 503)
            #expect(reply.json?["error"]?["message"]?.stringValue?.contains("experiment results") == true)
        }
        let events = ExperimentResultsEventStore(totals: ExperimentResultsEventStore.sample())
        try await Self.withExperiment(eventStore: events) { server in
            let json = try await server.request(.GET, Self.production + "/experiments/exp-1/results", token: server.adminToken)
            #expect(json.status == 200)
            let report = try ExperimentReport.decode(json: Data(json.body.utf8))
            #expect(report.experiment == "exp-1" && report.control == "off")
            #expect(report.units.map(\.plannedShare) == [0.5, 0.5])
            #expect(report.metrics.map(\.key) == ["buy"])
            let query = try #require(events.queries.withLock { $0.last })
            #expect(query.arms == ["off", "on"] && query.flag == "checkout" && query.end == nil)
            #expect(query.metrics == [ExperimentResultsQuery.Metric(key: "buy", event: "purchase", kind: .conversion, window: 7 * 86_400_000, covariate: false)])
            let csv = try await server.request(.GET, Self.production + "/experiments/exp-1/results?format=csv", token: server.adminToken)
            #expect(csv.status == 200)
            #expect(csv.header("Content-Type")?.hasPrefix("text/csv") == true)
            #expect(csv.body.hasPrefix(ExperimentReport.csvColumns.joined(separator: ",")))
            // The second page read the totals the first counted (ExperimentResultsCache), or the
            // background's: never a count per page.
            #expect(events.queries.withLock { $0.count } <= 2)
            let counted = events.queries.withLock { $0.count }
            _ = try await server.request(.GET, Self.production + "/experiments/exp-1/results", token: server.adminToken)
            #expect(events.queries.withLock { $0.count } == counted)
            // refresh=true counts now.
            let refreshed = try await server.request(.GET, Self.production + "/experiments/exp-1/results?refresh=true", token: server.adminToken)
            #expect(refreshed.status == 200)
            #expect(events.queries.withLock { $0.count } == counted + 1)
            #expect(try await server.request(.GET, Self.production + "/experiments/exp-1/results?refresh=maybe", token: server.adminToken).status == 400)
            #expect(try await server.request(.GET, Self.production + "/experiments/exp-1/results?format=xml", token: server.adminToken).status == 400)
        }
    }

    @Test
    func badInputIsRefusedNamingTheFieldAndStoresNothing() async throws {
        try await Self.withExperiment(start: false) { server in
            let token = server.adminToken
            let cases: [(String, String, Int, String)] = [
                ("/experiments", #"{"id": "x", "flag": "checkout", "control": "off", "arms": ["off", "maybe"], "metrics": ["buy"]}"#, 422, "arms"),
                ("/experiments", #"{"id": "x", "flag": "ghost", "control": "off", "arms": ["off", "on"], "metrics": ["buy"]}"#, 422, "flag"),
                ("/experiments", #"{"id": "x", "flag": "checkout", "control": "off", "arms": ["off", "on"], "metrics": ["nope"]}"#, 422, "metrics"),
                ("/experiments", #"{"id": "x", "flag": "checkout", "control": "off", "arms": ["off", "on"], "metrics": ["buy"], "alpha": 0.9}"#, 400, "alpha"),
                ("/experiments", #"{"id": "x y", "flag": "checkout", "control": "off", "arms": ["off", "on"], "metrics": ["buy"]}"#, 400, "id"),
                ("/experiments", #"{"id": "x", "flag": "checkout", "control": "off", "arms": "off", "metrics": ["buy"]}"#, 400, "arms"),
                ("/experiments", #"{"id": "x", "flag": "checkout", "control": "off", "arms": ["off", "on"], "metrics": ["buy"], "plannedEnd": "soon"}"#, 400, "plannedEnd"),
            ]
            for (path, body, status, field) in cases {
                let reply = try await server.request(.POST, Self.production + path, token: token, body: body)
                #expect(reply.status == status, "\(body): \(reply.body)")
                #expect(reply.json?["error"]?["message"]?.stringValue?.contains(field) == true, "\(body): \(reply.body)")
            }
            let duplicate = try await server.request(
                .POST, Self.production + "/experiments", token: token,
                body: #"{"id": "exp-1", "flag": "checkout", "control": "off", "arms": ["off", "on"], "metrics": ["buy"]}"#)
            #expect(duplicate.status == 409)
            let listed = try await server.request(.GET, Self.production + "/experiments", token: token)
            #expect(listed.json?.arrayValue?.count == 1)
            let metric = try await server.request(
                .POST, "/admin/v1/metrics", token: token, body: #"{"key": "m", "name": "M", "event": "e", "kind": "ratio"}"#)
            // A ratio metric without its parts: the metric's own check, naming them.
            #expect(metric.status == 422)
            #expect(metric.json?["error"]?["problems"]?.arrayValue?.first?["field"] == "ratio")
            let median = try await server.request(
                .POST, "/admin/v1/metrics", token: token, body: #"{"key": "m", "name": "M", "event": "e", "kind": "median"}"#)
            #expect(median.status == 400)
            #expect(median.json?["error"]?["message"]?.stringValue?.contains("kind") == true)
            let window = try await server.request(
                .PUT, "/admin/v1/metrics/buy", token: token, body: #"{"name": "M", "event": "e", "kind": "mean", "windowHours": 0}"#)
            #expect(window.status == 400)
            #expect(window.json?["error"]?["message"]?.stringValue?.contains("windowHours") == true)
            let metrics = try await server.request(.GET, "/admin/v1/metrics", token: token)
            #expect(metrics.json?.arrayValue?.map { $0["key"] } == ["buy"])
            #expect(metrics.json?.arrayValue?.first?["kind"] == "conversion")
            #expect(try await server.request(.GET, "/admin/v1/environments/nowhere/experiments", token: token).status == 404)
        }
    }

    @Test
    func thePlannerUsesTheSampleSizeFormulaAndTheFlagsTraffic() async throws {
        let day: Int64 = 86_400_000
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let today = Int64(now.timeIntervalSince1970 * 1000) / day * day
        let rows = FixedRowsEventStore(unitCounts: [
            "production": (1...7).map { UnitCount(day: today - Int64($0) * day, flag: "checkout", variant: "on", units: 100) }
        ])
        try await TestServer.with(eventStore: rows, now: { now }) { server in
            try await server.booleanFlag("checkout")
            let path = Self.production + "/flags/checkout/experiment-plan"
            let reply = try await server.request(
                .POST, path, token: server.adminToken, body: #"{"baselineRate": 0.1, "minimumDetectableEffect": 0.2, "relative": true}"#)
            #expect(reply.status == 200, "\(reply.body)")
            let expected = try SampleSizePlan(metric: .conversion(baseline: 0.1), effect: 0.1 * 0.2, unitsPerDay: 100)
            #expect(reply.json?["unitsPerArm"]?.doubleValue == expected.unitsPerArm)
            #expect(reply.json?["totalUnits"]?.doubleValue == expected.totalUnits)
            #expect(reply.json?["unitsPerDay"]?.doubleValue == 100)
            #expect(reply.json?["days"]?.doubleValue == expected.days)
            let mean = try await server.request(
                .POST, path, token: server.adminToken, body: #"{"standardDeviation": 2, "minimumDetectableEffect": 0.5, "arms": 3, "power": 0.9}"#)
            let planned = try SampleSizePlan(metric: .mean(standardDeviation: 2), effect: 0.5, power: 0.9, arms: 3)
            #expect(mean.json?["totalUnits"]?.doubleValue == planned.totalUnits)
            let bad = try await server.request(.POST, path, token: server.adminToken, body: #"{"baselineRate": 1, "minimumDetectableEffect": 0.1}"#)
            #expect(bad.status == 422)
            #expect(bad.json?["error"]?["problems"]?.arrayValue?.first?["field"] == "baseline")
            let relative = try await server.request(
                .POST, path, token: server.adminToken, body: #"{"standardDeviation": 2, "minimumDetectableEffect": 0.5, "relative": true}"#)
            #expect(relative.status == 422)
            #expect(relative.json?["error"]?["problems"]?.arrayValue?.first?["field"] == "baselineMean")
            #expect(try await server.request(.POST, Self.production + "/flags/ghost/experiment-plan", token: server.adminToken,
                body: #"{"baselineRate": 0.1, "minimumDetectableEffect": 0.01}"#).status == 404)
        }
    }

    /// The planner sizes the sequential test the results decide with, for every comparison, and
    /// gives the effect a size detects; an α that used to end the process (1e-17) is refused.
    @Test
    func thePlannerSizesTheSequentialTestAndGivesTheDetectableEffect() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout")
            let path = Self.production + "/flags/checkout/experiment-plan"
            let reply = try await server.request(
                .POST, path, token: server.adminToken, body: #"{"baselineRate": 0.1, "minimumDetectableEffect": 0.02, "arms": 3, "metrics": 2}"#)
            #expect(reply.status == 200, "\(reply.body)")
            let expected = try SampleSizePlan(metric: .conversion(baseline: 0.1), effect: 0.02, arms: 3, metrics: 2)
            #expect(expected.test == .sequential)
            #expect(reply.json?["unitsPerArm"]?.doubleValue == expected.unitsPerArm)
            #expect(reply.json?["test"]?.stringValue == "sequential")
            #expect(reply.json?["comparisons"]?.doubleValue == 4)
            #expect(reply.json?["mixingWidth"]?.doubleValue == 0.1)
            let fixed = try await server.request(
                .POST, path, token: server.adminToken, body: #"{"baselineRate": 0.1, "minimumDetectableEffect": 0.02, "test": "fixed-horizon"}"#)
            #expect(fixed.json?["unitsPerArm"]?.doubleValue ?? 0 < expected.unitsPerArm)
            let detectable = try await server.request(.POST, path, token: server.adminToken, body: #"{"baselineRate": 0.1, "unitsPerArm": 20000}"#)
            #expect(detectable.status == 200, "\(detectable.body)")
            let effect = try SampleSizePlan.minimumDetectableEffect(metric: .conversion(baseline: 0.1), unitsPerArm: 20_000)
            #expect(detectable.json?["minimumDetectableEffect"]?.doubleValue == effect)
            let tiny = try await server.request(
                .POST, path, token: server.adminToken, body: #"{"baselineRate": 0.1, "minimumDetectableEffect": 0.02, "alpha": 1e-17}"#)
            // Refused by the request schema's bounds (1e-12 to 0.5), naming the field.
            #expect(tiny.status == 400)
            #expect(tiny.body.contains("alpha"), "\(tiny.body)")
            let neither = try await server.request(.POST, path, token: server.adminToken, body: #"{"baselineRate": 0.1}"#)
            #expect(neither.status == 422)
            #expect(neither.json?["error"]?["problems"]?.arrayValue?.first?["field"] == "minimumDetectableEffect")
        }
    }
}
