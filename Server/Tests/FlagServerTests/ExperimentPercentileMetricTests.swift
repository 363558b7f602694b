import FlagEvaluation
import FlagStatistics
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOHTTP1
import Testing

/// Percentile metrics (`percentile` on a metric): validation naming the field, the admin API and
/// console form, each arm's values on every event store against a naive recount, the quantiles
/// and interval against the library's on the same values, the bounded sample, the decision and
/// its adjustment, the exports and the results page.
struct ExperimentPercentileMetricTests {
    static let day = RollupGranularity.day.milliseconds

    // MARK: - Validation

    @Test func badPercentilesAreRefusedNamingTheField() throws {
        func fields(_ kind: MetricData.Kind, _ percentile: Double, cuped: Bool = false, cap: MetricCap? = nil) -> [String] {
            ExperimentMetric(key: "m", name: "M", event: "e", kind: kind, cuped: cuped, cap: cap, percentile: percentile).problems.map(\.field)
        }
        #expect(fields(.mean, 0.9) == [])
        #expect(fields(.count, 0.5) == [])
        #expect(fields(.mean, 0) == ["percentile"])
        #expect(fields(.mean, 1) == ["percentile"])
        #expect(fields(.mean, -0.1) == ["percentile"])
        #expect(fields(.mean, .nan) == ["percentile"])
        #expect(fields(.conversion, 0.9) == ["percentile"])
        #expect(fields(.mean, 0.9, cuped: true) == ["cuped"])
        #expect(fields(.mean, 0.9, cap: MetricCap(value: 100)) == ["cap"])
        let message = ExperimentMetric(key: "m", name: "M", event: "e", kind: .mean, percentile: 1.5).problems.first?.problem ?? ""
        #expect(message.contains("between 0 and 1") && message.contains("1.5"))
        // A metric without one is unchanged, and one stored before percentiles existed decodes.
        #expect(ExperimentMetric(key: "m", name: "M", event: "e", kind: .conversion, cuped: true).problems.isEmpty)
        let old = #"{"key":"m","name":"M","event":"e","kind":"mean","windowHours":24,"higherIsBetter":true,"guardrail":false,"cuped":false,"version":1,"updatedAt":0,"updatedBy":""}"#
        #expect(try JSONDecoder().decode(ExperimentMetric.self, from: Data(old.utf8)).percentile == nil)
    }

    @Test func theAdminAPIStoresAPercentileAndAnswers422ForEachRefusal() async throws {
        try await TestServer.with { server in
            let token = server.adminToken
            let created = try await server.request(
                .POST, "/admin/v1/metrics", token: token,
                body: #"{"key": "latency", "name": "Checkout latency", "event": "checkout", "kind": "mean", "higherIsBetter": false, "percentile": 0.9}"#)
            #expect(created.status == 201, "\(created.body)")
            #expect(created.json?["percentile"]?.doubleValue == 0.9)
            let cases: [(String, String)] = [
                (#"{"key": "a", "name": "A", "event": "e", "kind": "mean", "percentile": 1}"#, "percentile"),
                (#"{"key": "a", "name": "A", "event": "e", "kind": "mean", "percentile": 0}"#, "percentile"),
                (#"{"key": "a", "name": "A", "event": "e", "kind": "conversion", "percentile": 0.5}"#, "percentile"),
                (#"{"key": "a", "name": "A", "event": "e", "kind": "mean", "cuped": true, "percentile": 0.5}"#, "cuped"),
                (#"{"key": "a", "name": "A", "event": "e", "kind": "count", "cap": {"value": 3}, "percentile": 0.5}"#, "cap"),
            ]
            for (body, field) in cases {
                let reply = try await server.request(.POST, "/admin/v1/metrics", token: token, body: body)
                #expect(reply.status == 422, "\(body): \(reply.body)")
                #expect(reply.json?["error"]?["problems"]?.arrayValue?.first?["field"]?.stringValue == field, "\(body): \(reply.body)")
            }
            let replaced = try await server.request(
                .PUT, "/admin/v1/metrics/latency", token: token, body: #"{"name": "Checkout latency", "event": "checkout", "kind": "mean"}"#)
            #expect(replaced.status == 200, "\(replaced.body)")
            let metrics = try await server.request(.GET, "/admin/v1/metrics", token: token)
            #expect(metrics.json?.arrayValue?.first?["percentile"] == nil)
        }
    }

    @Test func theConsolesMetricFormSetsKeepsAndClearsAPercentile() async throws {
        try await TestServer.withConsole { server in
            let (client, csrf) = try await ConsoleMetricsAndSchedulesTests.signedIn(server)
            let fields: [(String, String)] = [("key", "latency"), ("name", "Latency"), ("event", "checkout"), ("kind", "mean")]
            let bad = try await client.post("/console/metrics", fields + [("percentile", "p90")], csrf: csrf)
            #expect(bad.status == 400 && bad.body.contains("percentile: expected a number, got &quot;p90&quot;"))
            let wrong = try await client.post("/console/metrics", fields + [("percentile", "0.9"), ("cuped", "on")], csrf: csrf)
            #expect(wrong.status == 422 && wrong.body.contains("cuped: a percentile metric is compared without CUPED"))
            #expect(try await ConsoleMetricsAndSchedulesTests.metrics(server).isEmpty)
            let created = try await client.post("/console/metrics", fields + [("percentile", "0.9")], csrf: csrf)
            #expect(created.status == 303)
            #expect(try await ConsoleMetricsAndSchedulesTests.metrics(server).first?["percentile"]?.doubleValue == 0.9)
            #expect(try await client.get("/console/metrics").body.contains("<td>p90</td>"))
            let edit = try await client.get("/console/metrics/latency")
            #expect(edit.body.contains(#"name="percentile" inputmode="decimal" maxlength="32" value="0.9""#))
            let cleared = try await client.post("/console/metrics/latency", [("name", "Latency"), ("event", "checkout"), ("kind", "mean")], csrf: csrf)
            #expect(cleared.status == 303)
            #expect(try await ConsoleMetricsAndSchedulesTests.metrics(server).first?["percentile"] == nil)
            #expect(try await client.get("/console/metrics").body.contains("<td>mean</td>"))
        }
    }

    // MARK: - Values on every event store

    /// Units `u0`… split between the arms, each with 0–3 checkout events of continuous values
    /// (the treatment's larger), some before the exposure (not counted) and some past the window.
    static func batch(_ id: Int, units: Range<Int>, t0: Int64, using random: inout SplitMix) -> (EventBatch, [String: (String, Double)]) {
        var exposures: [EventBatch.Exposure] = []
        var tracked: [EventBatch.Tracked] = []
        var expected: [String: (String, Double)] = [:]
        for index in units {
            let unit = "u\(index)"
            let arm = index % 2 == 0 ? "control" : "treatment"
            let first = t0 + Int64(index) * 1000
            exposures.append(EventBatch.Exposure(flag: "checkout", variant: arm, reason: "SPLIT", unit: unit, time: first))
            var sum = 0.0
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                let value = Double.random(in: 0.1...2, using: &random) * (arm == "treatment" ? 1.6 : 1)
                tracked.append(EventBatch.Tracked(name: "checkout", value: value, unit: unit, time: first + 60_000))
                sum += value
            }
            tracked.append(EventBatch.Tracked(name: "checkout", value: 50, unit: unit, time: first - 60_000))
            tracked.append(EventBatch.Tracked(name: "checkout", value: 70, unit: unit, time: first + 3 * day))
            expected[unit] = (arm, sum)
        }
        let batch = EventBatch(
            id: "p\(id)", environment: "prod", receivedAt: t0 + Int64(id), source: FlagEventStoreCompatibilityTests.ios, exposures: exposures,
            tracked: tracked)
        return (batch, expected)
    }

    static func query(t0: Int64, end: Int64? = nil) -> ExperimentResultsQuery {
        ExperimentResultsQuery(
            experiment: "exp-p", environment: "prod", flag: "checkout", arms: ["control", "treatment"], start: t0, end: end,
            metrics: [
                .init(key: "checkouts", event: "checkout", kind: .count, window: day, covariate: false),
                .init(key: "latency-p90", event: "checkout", kind: .mean, window: day, covariate: false, percentile: 0.9),
            ])
    }

    @Test(arguments: StoreKind.allCases)
    func everyEventStoreReadsEachArmsValuesAndTheReportIsTheLibrarysQuantileDifference(_ kind: StoreKind)
        async throws
    {
        try await FlagEventStoreCompatibilityTests.with(kind) { store, _ in
            let results = try ExperimentResultsStoreTests.results(store)
            let t0 = ExperimentResultsStoreTests.t0
            var random = SplitMix(seed: 35)
            var expected: [String: (String, Double)] = [:]
            for (id, units) in [0..<180, 180..<400].enumerated() {
                let (batch, values) = Self.batch(id, units: units, t0: t0, using: &random)
                _ = try await store.ingest([batch])
                expected.merge(values) { $1 }
                let totals = try await results.updateResults(Self.query(t0: t0), now: t0 + 5 * Self.day)
                for arm in ["control", "treatment"] {
                    let naive = expected.values.filter { $0.0 == arm }.map(\.1).sorted()
                    let got = try #require(totals.percentiles["latency-p90"]?[arm], "\(kind) \(arm)")
                    #expect(got.units == naive.count && !got.isSampled, "\(kind) \(arm)")
                    #expect(zip(got.values.sorted(), naive).allSatisfy { abs($0 - $1) <= 1e-9 * max(1, abs($1)) }, "\(kind) \(arm)")
                }
                #expect(totals.percentiles["checkouts"] == nil)
            }
            // The ended experiment's report is the library's answer on the naive values.
            let end = t0 + 4 * Self.day
            let totals = try await results.updateResults(Self.query(t0: t0, end: end), now: t0 + 5 * Self.day)
            let report = ExperimentReport(
                query: Self.query(t0: t0, end: end), totals: totals,
                settings: ExperimentReport.Settings(control: "control", allocation: ["control": 1, "treatment": 1], status: "Stopped", hypothesis: ""))
            let control = expected.values.filter { $0.0 == "control" }.map(\.1)
            let treatment = expected.values.filter { $0.0 == "treatment" }.map(\.1)
            let library = try QuantileDifference(treatment: treatment, control: control, probability: 0.9, alpha: 0.05)
            let percentile = try #require(report.metrics[1].percentile)
            #expect(percentile.arms.map(\.units) == [200, 200])
            #expect(abs((percentile.arms[0].quantile ?? .nan) - library.control.quantile) < 1e-9)
            #expect(abs((percentile.arms[1].quantile ?? .nan) - library.treatment.quantile) < 1e-9)
            #expect(abs((percentile.arms[1].difference ?? .nan) - library.estimate) < 1e-9)
            #expect(abs((percentile.arms[1].lower ?? .nan) - library.lower) < 1e-9)
            #expect(abs((percentile.arms[1].upper ?? .nan) - library.upper) < 1e-9)
            #expect(abs((percentile.arms[1].pValue ?? .nan) - library.pValue) < 1e-12)
            #expect(report.metrics[0].percentile == nil)
        }
    }

    // MARK: - The bounded sample

    @Test func aSampleKeyIsFixedAndTheSampleIsTheLowestKeysOfEachArm() async throws {
        // Pinned: the same in every process and on every platform (a changed hash would move
        // every stored sample).
        #expect(ExperimentResultsCounter.sampleKey(of: "user-1") == 7_083_277_091_215_568_812)
        let keys = (0..<20_000).map { ExperimentResultsCounter.sampleKey(of: "user-\($0)") }
        #expect(keys.allSatisfy { $0 >= 0 })
        #expect(Set(keys).count == keys.count)
        // Sequential keys spread evenly: the lowest tenth holds about a tenth of the even ones.
        let lowest = Set((0..<20_000).sorted { keys[$0] < keys[$1] }.prefix(2_000))
        let even = lowest.filter { $0 % 2 == 0 }.count
        #expect((900...1_100).contains(even), "\(even)")
        let early = lowest.filter { $0 < 10_000 }.count
        #expect((900...1_100).contains(early), "\(early)")

        let query = Self.query(t0: 0)
        let counter = ExperimentResultsCounter(query)
        let source = MemorySource()
        for index in 0..<10 {
            source.units["u\(index)"] = .init(
                arm: index < 6 ? "control" : "treatment", first: 0, reassigned: false, values: [1, Double(index)], covariates: [0, 0])
        }
        let samples = try await source.samples(limit: 3)
        let percentiles = counter.percentiles(samples: samples, units: ["control": 6, "treatment": 4])
        let control = try #require(percentiles["latency-p90"]?["control"])
        #expect(control.values.count == 3 && control.units == 6 && control.isSampled)
        let lowestControl = (0..<6).sorted { ExperimentResultsCounter.sampleKey(of: "u\($0)") < ExperimentResultsCounter.sampleKey(of: "u\($1)") }
        #expect(Set(control.values) == Set(lowestControl.prefix(3).map(Double.init)))
    }

    // MARK: - Report, decision, exports, page

    static func values(_ count: Int, shift: Double, seed: UInt64) -> [Double] {
        var random = SplitMix(seed: seed)
        return (0..<count).map { _ in Double.random(in: 0...10, using: &random) + shift }
    }

    static func report(count: Int = 400, shift: Double = 2, ended: Bool = true, sampled: Bool = false) -> ExperimentReport {
        let start = ExperimentReportTests.start
        var query = ExperimentReportTests.query(metrics: [
            .init(key: "checkout", event: "purchase", kind: .conversion, window: 7 * day, covariate: false),
            .init(key: "latency", event: "checkout", kind: .mean, window: 7 * day, covariate: false, percentile: 0.9),
        ])
        query.end = ended ? start + 6 * day : nil
        var totals = ExperimentReportTests.totals(off: count, on: count, checkout: (Double(count) / 10, Double(count) / 10))
        let off = values(count, shift: 0, seed: 1)
        let on = values(count, shift: shift, seed: 2)
        func statistics(_ values: [Double]) -> ArmStatistics {
            ArmStatistics(units: Double(values.count), sum: values.reduce(0, +), sumOfSquares: values.reduce(0) { $0 + $1 * $1 })
        }
        totals.metrics["latency"] = ["off": statistics(off), "on": statistics(on)]
        totals.percentiles["latency"] = [
            "off": PercentileSample(units: sampled ? count * 3 : count, values: off), "on": PercentileSample(units: count, values: on),
        ]
        var settings = ExperimentReportTests.settings()
        settings.metrics["latency"] = .init(name: "Checkout latency", higherIsBetter: false, guardrail: true)
        return ExperimentReport(query: query, totals: totals, settings: settings)
    }

    @Test func anEndedExperimentDecidesAPercentileMetricByItsAdjustedPValue() throws {
        let report = Self.report()
        let metric = report.metrics[1]
        let percentile = try #require(metric.percentile)
        let library = try QuantileDifference(
            treatment: Self.values(400, shift: 2, seed: 2), control: Self.values(400, shift: 0, seed: 1), probability: 0.9)
        #expect(percentile.arms[1].pValue == library.pValue)
        // Benjamini–Hochberg across both comparisons: the conversion's always-valid p and this one.
        let other = try #require(report.metrics[0].arms[1].comparison?.sequential.pValue)
        let adjusted = StatisticalTests.benjaminiHochberg([other, library.pValue])[1]
        #expect(percentile.arms[1].adjustedPValue == adjusted)
        #expect(adjusted <= 0.05)
        // Lower is better and p90 went up: a guardrail harmed, and the experiment says so.
        #expect(metric.decision.state == .guardrailHarmed)
        #expect(metric.arms[1].decision?.text.contains("p90 of Checkout latency is worse in on than in off") == true)
        #expect(report.decision.state == .guardrailHarmed)
        #expect(percentile.note == nil)
    }

    @Test func aRunningExperimentOrTooFewUnitsGiveNoVerdict() throws {
        let running = Self.report(ended: false)
        #expect(running.metrics[1].decision.state == .keepCollecting)
        #expect(running.metrics[1].percentile?.note?.contains("decides when the experiment ends") == true)
        #expect(running.metrics[1].percentile?.arms[1].difference != nil)
        let few = Self.report(count: 60)
        #expect(few.metrics[1].decision.state == .keepCollecting)
        #expect(few.metrics[1].percentile?.arms[1].problem?.contains("not enough data: each arm needs 100 units") == true)
        #expect(few.metrics[1].percentile?.arms[1].pValue == nil)
        let sampled = Self.report(sampled: true)
        #expect(sampled.metrics[1].percentile?.note?.contains("off has more than 50,000 units") == true)
        #expect(sampled.metrics[1].percentile?.arms[0].units == 1_200 && sampled.metrics[1].percentile?.arms[0].values == 400)
    }

    @Test func theExportsCarryThePercentileFigures() throws {
        let report = Self.report()
        let lines = report.csv().split(separator: "\r\n").map(String.init)
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        #expect(header == ExperimentReport.csvColumns)
        func field(_ line: String, _ column: String) -> String {
            line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)[header.firstIndex(of: column)!]
        }
        let percentile = try #require(report.metrics[1].percentile)
        let on = try #require(lines.first { $0.hasPrefix("latency,") && field($0, "arm") == "on" })
        #expect(field(on, "percentile") == "0.9" && field(on, "percentile_values") == "400")
        #expect(Double(field(on, "quantile_difference")) == percentile.arms[1].difference)
        #expect(Double(field(on, "quantile_adjusted_p_value")) == percentile.arms[1].adjustedPValue)
        let checkout = try #require(lines.first { $0.hasPrefix("checkout,") })
        #expect(field(checkout, "percentile").isEmpty && field(checkout, "quantile").isEmpty)
        let decoded = try ExperimentReport.decode(json: try report.json())
        #expect(decoded.metrics[1].percentile == percentile)
    }

    @Test func theResultsPageShowsEachArmsPercentileAndTheNote() async throws {
        let page = try await ExperimentReportPageTests.render(Self.report(ended: false, sampled: true))
        #expect(page.contains(#"id="percentile-m1""#))
        #expect(page.contains("p90 by arm"))
        #expect(page.contains("decides when the experiment ends"))
        #expect(page.contains("<td>1,200</td><td>400</td>"))
        let ended = try await ExperimentReportPageTests.render(Self.report())
        let row = try #require(ended.components(separatedBy: #"id="percentile-m1""#).last?.components(separatedBy: "</table>").first)
        #expect(row.contains("Guardrail harmed"))
    }
}
