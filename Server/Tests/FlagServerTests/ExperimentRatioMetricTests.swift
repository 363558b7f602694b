import FlagEvaluation
import FlagStatistics
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOHTTP1
import Testing

/// Ratio metrics (`kind` `ratio` with `ratio`: Σ numerators / Σ denominators per arm, the unit the
/// draw): validation naming the field, the admin API and the console's form, every event store's
/// sums against the units' own values, the report against a delta-method computation written out
/// here, and a rollout guardrail on a ratio.
struct ExperimentRatioMetricTests {
    static let day = ExperimentResultsCounterTests.day
    static let revenuePerClick = MetricRatio(numerator: .sum, denominatorEvent: "click", denominator: .count)

    // MARK: - Validation

    @Test func badRatioMetricsAreRefusedNamingTheField() {
        func fields(
            _ kind: MetricData.Kind, _ ratio: MetricRatio?, cuped: Bool = false, cap: MetricCap? = nil, percentile: Double? = nil
        ) -> [String] {
            ExperimentMetric(key: "m", name: "M", event: "purchase", kind: kind, cuped: cuped, cap: cap, percentile: percentile, ratio: ratio)
                .problems.map(\.field)
        }
        #expect(fields(.ratio, Self.revenuePerClick) == [])
        #expect(fields(.ratio, MetricRatio(numerator: .count, denominatorEvent: "purchase", denominator: .count)) == [])
        #expect(fields(.ratio, nil) == ["ratio"])
        #expect(fields(.mean, Self.revenuePerClick) == ["ratio"])
        #expect(fields(.ratio, MetricRatio(numerator: .sum, denominatorEvent: "", denominator: .count)) == ["ratio.denominatorEvent"])
        #expect(fields(.ratio, MetricRatio(numerator: .sum, denominatorEvent: String(repeating: "e", count: 201), denominator: .sum))
            == ["ratio.denominatorEvent"])
        #expect(fields(.ratio, Self.revenuePerClick, cuped: true) == ["cuped"])
        #expect(fields(.ratio, Self.revenuePerClick, cap: MetricCap(value: 10)) == ["cap"])
        #expect(fields(.ratio, Self.revenuePerClick, percentile: 0.9).contains("percentile"))
    }

    @Test func aStoredMetricWithoutRatioDecodesAndARatioRoundTrips() throws {
        let metric = ExperimentMetric(key: "rpc", name: "Revenue per click", event: "purchase", kind: .ratio, ratio: Self.revenuePerClick)
        let data = try JSONEncoder().encode(metric)
        #expect(try JSONDecoder().decode(ExperimentMetric.self, from: data) == metric)
        let plain = ExperimentMetric(key: "m", name: "M", event: "e", kind: .count)
        let encoded = String(decoding: try JSONEncoder().encode(plain), as: UTF8.self)
        #expect(!encoded.contains("ratio"))
        #expect(try JSONDecoder().decode(ExperimentMetric.self, from: Data(encoded.utf8)).ratio == nil)
    }

    @Test func theAdminAPIStoresARatioAndAnswers422ForABadOne() async throws {
        try await TestServer.with { server in
            let token = server.adminToken
            let created = try await server.request(
                .POST, "/admin/v1/metrics", token: token,
                body: #"{"key": "rpc", "name": "Revenue per click", "event": "purchase", "kind": "ratio", "ratio": {"numerator": "sum", "denominatorEvent": "click", "denominator": "count"}}"#)
            #expect(created.status == 201, "\(created.body)")
            #expect(created.json?["ratio"]?["denominatorEvent"] == "click" && created.json?["kind"] == "ratio")
            let cases: [(String, String)] = [
                (#"{"key": "a", "name": "A", "event": "e", "kind": "ratio"}"#, "ratio"),
                (#"{"key": "a", "name": "A", "event": "e", "kind": "count", "ratio": {"numerator": "sum", "denominatorEvent": "s", "denominator": "count"}}"#, "ratio"),
                (#"{"key": "a", "name": "A", "event": "e", "kind": "ratio", "cuped": true, "ratio": {"numerator": "sum", "denominatorEvent": "s", "denominator": "count"}}"#, "cuped"),
                (#"{"key": "a", "name": "A", "event": "e", "kind": "ratio", "cap": {"value": 5}, "ratio": {"numerator": "sum", "denominatorEvent": "s", "denominator": "count"}}"#, "cap"),
            ]
            for (body, field) in cases {
                let reply = try await server.request(.POST, "/admin/v1/metrics", token: token, body: body)
                #expect(reply.status == 422, "\(body): \(reply.body)")
                #expect(reply.json?["error"]?["problems"]?.arrayValue?.first?["field"]?.stringValue == field, "\(body): \(reply.body)")
            }
            // The schema refuses an aggregate it does not know, before the metric's checks.
            let unknown = try await server.request(
                .POST, "/admin/v1/metrics", token: token,
                body: #"{"key": "a", "name": "A", "event": "e", "kind": "ratio", "ratio": {"numerator": "median", "denominatorEvent": "s", "denominator": "count"}}"#)
            #expect(unknown.status == 400, "\(unknown.body)")
            let replaced = try await server.request(
                .PUT, "/admin/v1/metrics/rpc", token: token,
                body: #"{"name": "Clicks per purchase", "event": "click", "kind": "ratio", "ratio": {"numerator": "count", "denominatorEvent": "purchase", "denominator": "count"}}"#)
            #expect(replaced.status == 200, "\(replaced.body)")
            let metrics = try await server.request(.GET, "/admin/v1/metrics", token: token)
            #expect(metrics.json?.arrayValue?.map { $0["key"] } == ["rpc"])
            #expect(metrics.json?.arrayValue?.first?["ratio"]?["numerator"] == "count")
            // A ratio metric can watch a rollout.
            try await server.booleanFlag("checkout", enabled: true, defaultVariant: "off")
            let plan = try await server.request(
                .POST, "/admin/v1/environments/production/rollouts", token: token,
                body: #"{"flag": "checkout", "oldVariant": "off", "newVariant": "on", "steps": [{"percent": 10, "durationSeconds": 60}, {"percent": 100, "durationSeconds": 60}], "guardrails": [{"metric": "experiment_metric", "metricKey": "rpc", "tolerance": 0, "direction": "decrease"}]}"#)
            #expect(plan.status == 201, "\(plan.body)")
            #expect(plan.json?["guardrails"]?.arrayValue?.first?["metricKey"] == "rpc")
        }
    }

    @Test func theConsolesMetricFormCreatesShowsAndKeepsARatio() async throws {
        try await TestServer.withConsole { server in
            let (client, csrf) = try await ConsoleMetricsAndSchedulesTests.signedIn(server)
            let fields: [(String, String)] = [
                ("key", "rpc"), ("name", "Revenue per click"), ("event", "purchase"), ("kind", "ratio"),
                ("numerator", "sum"), ("denominatorEvent", "click"), ("denominator", "count"),
            ]
            let wrong = try await client.post("/console/metrics", fields.map { $0.0 == "numerator" ? ($0.0, "median") : $0 }, csrf: csrf)
            #expect(wrong.status == 400 && wrong.body.contains("ratio.numerator: choose count or sum, got &quot;median&quot;"))
            #expect(try await ConsoleMetricsAndSchedulesTests.metrics(server).isEmpty)
            let created = try await client.post("/console/metrics", fields, csrf: csrf)
            #expect(created.status == 303, "\(created.body)")
            let stored = try #require(try await ConsoleMetricsAndSchedulesTests.metrics(server).first)
            #expect(stored["kind"] == "ratio" && stored["ratio"]?["numerator"] == "sum" && stored["ratio"]?["denominatorEvent"] == "click")
            let list = try await client.get("/console/metrics")
            #expect(list.body.contains("<td>ratio: sum / count of click</td>"))
            #expect(list.body.contains("<td>none</td><td>ratio</td>"))
            // The edit form shows the stored parts, so saving it unchanged keeps them.
            let edit = try await client.get("/console/metrics/rpc")
            #expect(edit.body.contains(#"name="denominatorEvent" maxlength="200" value="click""#))
            #expect(edit.body.contains(#"<option value="sum" selected>sum of values</option>"#))
            let saved = try await client.post("/console/metrics/rpc", Array(fields.dropFirst()), csrf: csrf)
            #expect(saved.status == 303, "\(saved.body)")
            let again = try #require(try await ConsoleMetricsAndSchedulesTests.metrics(server).first)
            #expect(again["ratio"] == stored["ratio"] && again["version"]?.intValue == 2)
            // Another kind leaves the ratio's fields aside.
            let counted = try await client.post(
                "/console/metrics/rpc", [("name", "Purchases"), ("event", "purchase"), ("kind", "count"), ("numerator", "sum"), ("denominatorEvent", "click")],
                csrf: csrf)
            #expect(counted.status == 303, "\(counted.body)")
            #expect(try await ConsoleMetricsAndSchedulesTests.metrics(server).first?["ratio"] == nil)
        }
    }

    // MARK: - Counting and the report

    /// One batch of units `units`, alternating arms: each unit's purchases (with values) and clicks
    /// in the day after its exposure, and some outside it (before the exposure, after the window)
    /// that must not count; returns the batch and each unit's arm, numerator and denominator.
    static func batch(_ id: Int, units: Range<Int>, t0: Int64, using random: inout SplitMix)
        -> (EventBatch, [String: (arm: String, numerator: Double, denominator: Double)])
    {
        var exposures: [EventBatch.Exposure] = []
        var tracked: [EventBatch.Tracked] = []
        var expected: [String: (arm: String, numerator: Double, denominator: Double)] = [:]
        for index in units {
            let unit = "u\(index)"
            let arm = index.isMultiple(of: 2) ? "control" : "treatment"
            let first = t0 + Int64(index) * 1000
            exposures.append(EventBatch.Exposure(flag: "checkout", variant: arm, reason: "SPLIT", unit: unit, time: first))
            var numerator = 0.0
            var denominator = 0.0
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                let value = Double.random(in: 1...20, using: &random) * (arm == "treatment" ? 1.3 : 1)
                tracked.append(EventBatch.Tracked(name: "purchase", value: value, unit: unit, time: first + 60_000))
                numerator += value
            }
            for _ in 0..<Int.random(in: 0...5, using: &random) {
                tracked.append(EventBatch.Tracked(name: "click", value: 99, unit: unit, time: first + 120_000))
                denominator += 1
            }
            tracked.append(EventBatch.Tracked(name: "purchase", value: 500, unit: unit, time: first - 60_000))
            tracked.append(EventBatch.Tracked(name: "click", value: nil, unit: unit, time: first + day + 1))
            expected[unit] = (arm, numerator, denominator)
        }
        let batch = EventBatch(
            id: "r\(id)", environment: "prod", receivedAt: t0 + Int64(id), source: FlagEventStoreCompatibilityTests.ios, exposures: exposures,
            tracked: tracked)
        return (batch, expected)
    }

    static func query(t0: Int64, end: Int64? = nil) -> ExperimentResultsQuery {
        ExperimentResultsQuery(
            experiment: "exp-r", environment: "prod", flag: "checkout", arms: ["control", "treatment"], start: t0, end: end,
            metrics: [
                .init(key: "revenue-per-click", event: "purchase", kind: .ratio, window: day, covariate: false, ratio: revenuePerClick),
                .init(key: "purchases", event: "purchase", kind: .count, window: day, covariate: false),
            ])
    }

    /// An arm's ratio and the delta method's variance of it, from the units' own values (two-pass
    /// sample variances and covariance; Deng, Knoblich & Lu 2018, §3).
    static func deltaMethod(_ units: [(numerator: Double, denominator: Double)]) -> (ratio: Double, variance: Double) {
        let n = Double(units.count)
        let meanN = units.map(\.numerator).reduce(0, +) / n
        let meanD = units.map(\.denominator).reduce(0, +) / n
        let varianceN = units.map { ($0.numerator - meanN) * ($0.numerator - meanN) }.reduce(0, +) / (n - 1)
        let varianceD = units.map { ($0.denominator - meanD) * ($0.denominator - meanD) }.reduce(0, +) / (n - 1)
        let covariance = units.map { ($0.numerator - meanN) * ($0.denominator - meanD) }.reduce(0, +) / (n - 1)
        let ratio = meanN / meanD
        return (ratio, (varianceN - 2 * ratio * covariance + ratio * ratio * varianceD) / (n * meanD * meanD))
    }

    @Test(arguments: StoreKind.allCases)
    func everyEventStoreSumsTheUnitsRatiosAndTheReportIsTheDeltaMethod(_ kind: StoreKind) async throws {
        try await FlagEventStoreCompatibilityTests.with(kind) { store, _ in
            let results = try ExperimentResultsStoreTests.results(store)
            let t0 = ExperimentResultsStoreTests.t0
            var random = SplitMix(seed: 77)
            var expected: [String: (arm: String, numerator: Double, denominator: Double)] = [:]
            for (id, units) in [0..<150, 150..<400].enumerated() {
                let (batch, values) = Self.batch(id, units: units, t0: t0, using: &random)
                _ = try await store.ingest([batch])
                expected.merge(values) { $1 }
                let totals = try await results.updateResults(Self.query(t0: t0), now: t0 + 5 * Self.day)
                for arm in ["control", "treatment"] {
                    let units = expected.values.filter { $0.arm == arm }
                    let got = try #require(totals.metrics["revenue-per-click"]?[arm], "\(kind) \(arm)")
                    func close(_ a: Double?, _ b: Double) -> Bool { a.map { abs($0 - b) <= 1e-9 * max(1, abs(b)) } ?? false }
                    #expect(got.units == Double(units.count), "\(kind) \(arm)")
                    #expect(close(got.sum, units.map(\.numerator).reduce(0, +)), "\(kind) \(arm)")
                    #expect(close(got.sumOfSquares, units.map { $0.numerator * $0.numerator }.reduce(0, +)), "\(kind) \(arm)")
                    #expect(close(got.denominatorSum, units.map(\.denominator).reduce(0, +)), "\(kind) \(arm)")
                    #expect(close(got.denominatorSumOfSquares, units.map { $0.denominator * $0.denominator }.reduce(0, +)), "\(kind) \(arm)")
                    #expect(close(got.sumOfProducts, units.map { $0.numerator * $0.denominator }.reduce(0, +)), "\(kind) \(arm)")
                    #expect(got.covariateSum == nil)
                    // The count metric on the same event is the plain count, untouched by the ratio beside it.
                    #expect(totals.metrics["purchases"]?[arm]?.denominatorSum == nil)
                }
            }
            let end = t0 + 4 * Self.day
            let totals = try await results.updateResults(Self.query(t0: t0, end: end), now: t0 + 5 * Self.day)
            let report = ExperimentReport(
                query: Self.query(t0: t0, end: end), totals: totals,
                settings: ExperimentReport.Settings(control: "control", allocation: ["control": 1, "treatment": 1], status: "Stopped", hypothesis: ""))
            let control = Self.deltaMethod(expected.values.filter { $0.arm == "control" }.map { ($0.numerator, $0.denominator) })
            let treatment = Self.deltaMethod(expected.values.filter { $0.arm == "treatment" }.map { ($0.numerator, $0.denominator) })
            let metric = try #require(report.metrics.first)
            #expect(metric.kind == .ratio)
            #expect(abs((metric.arms[0].mean ?? .nan) - control.ratio) < 1e-9)
            #expect(abs((metric.arms[1].mean ?? .nan) - treatment.ratio) < 1e-9)
            let absolute = try #require(metric.arms[1].comparison?.absolute)
            #expect(abs(absolute.estimate - (treatment.ratio - control.ratio)) < 1e-9)
            #expect(abs(absolute.standardError - (control.variance + treatment.variance).squareRoot()) < 1e-9 * absolute.standardError)
            // The treatment's values are 1.3 times the control's per purchase: a clear lift.
            #expect(absolute.lower > 0)
        }
    }

    // MARK: - Guardrail

    @Test func aRatioGuardrailComparesTheRatiosByTheirDeltaMethodVariance() throws {
        var random = SplitMix(seed: 5)
        func arm(_ errorRate: Double) -> (units: [(numerator: Double, denominator: Double)], statistics: ArmStatistics) {
            var units: [(numerator: Double, denominator: Double)] = []
            for _ in 0..<2000 {
                let sessions = Double(Int.random(in: 0...6, using: &random))
                var errors = 0.0
                for _ in 0..<Int(sessions) where Double.random(in: 0..<1, using: &random) < errorRate { errors += 1 }
                units.append((errors, sessions))
            }
            let statistics = ArmStatistics(
                units: Double(units.count), sum: units.map(\.numerator).reduce(0, +),
                sumOfSquares: units.map { $0.numerator * $0.numerator }.reduce(0, +),
                sumOfProducts: units.map { $0.numerator * $0.denominator }.reduce(0, +),
                denominatorSum: units.map(\.denominator).reduce(0, +),
                denominatorSumOfSquares: units.map { $0.denominator * $0.denominator }.reduce(0, +))
            return (units, statistics)
        }
        let old = arm(0.05)
        let new = arm(0.10)
        let guardrail = RolloutGuardrail(metric: .experimentMetric, metricKey: "errors-per-session", tolerance: 0, direction: .increase)
        let finding = try #require(guardrail.evaluate(
            old: old.statistics, new: new.statistics, kind: .ratio, oldVariant: "off", newVariant: "on", alpha: 0.05))
        let a = Self.deltaMethod(old.units)
        let b = Self.deltaMethod(new.units)
        #expect(abs(finding.oldRate - a.ratio) < 1e-12 && abs(finding.newRate - b.ratio) < 1e-12)
        #expect(abs(finding.difference - (b.ratio - a.ratio)) < 1e-12)
        // The mixture sequential interval, written out: V the two ratios' variances, τ² 0.01 × the
        // variance per session pooled over the arms' sessions.
        let variance = a.variance + b.variance
        let sessionsA = old.statistics.denominatorSum ?? 0
        let sessionsB = new.statistics.denominatorSum ?? 0
        let tau2 = 0.01 * (a.variance * sessionsA * sessionsA + b.variance * sessionsB * sessionsB) / (sessionsA + sessionsB)
        let halfWidth = (variance * (variance + tau2) / tau2 * (2 * log(1 / 0.05) + log((variance + tau2) / variance))).squareRoot()
        #expect(abs(finding.lower - (finding.difference - halfWidth)) < 1e-9)
        #expect(finding.regression && finding.kind == "ratio")
        #expect(finding.summary.hasPrefix("metric \"errors-per-session\" ratio "), "\(finding.summary)")
        // The same arm against itself is no regression; an arm without sessions is not enough data.
        #expect(guardrail.evaluate(old: old.statistics, new: old.statistics, kind: .ratio, oldVariant: "off", newVariant: "on", alpha: 0.05)?
            .regression == false)
        var empty = old.statistics
        empty.denominatorSum = 0
        #expect(guardrail.evaluate(old: empty, new: new.statistics, kind: .ratio, oldVariant: "off", newVariant: "on", alpha: 0.05) == nil)
    }
}
