import FlagEvaluation
import FlagStatistics
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOHTTP1
import Testing

/// Capping a metric's per-unit values (`cap` on a metric): a fixed cap kept incrementally, a
/// percentile cap summed afresh from the stored units, both against a naive recount on every
/// event store; validation naming the field; the cap and the units capped in the report and on
/// the console's results page.
struct ExperimentMetricCapTests {
    static let day = ExperimentResultsCounterTests.day

    /// The counter tests' query with revenue capped at 10 (and its covariate), clicks winsorized
    /// at their 90th percentile, and a second revenue metric winsorized at 0.75 with CUPED.
    static func cappedQuery(_ query: ExperimentResultsQuery) -> ExperimentResultsQuery {
        var query = query
        query.metrics[1].cap = .value(10)
        query.metrics[2].cap = .percentile(0.9)
        query.metrics.append(.init(key: "revenue-p75", event: "purchase", kind: .mean, window: 2 * day, covariate: true, cap: .percentile(0.75)))
        return query
    }

    @Test func cappedMetricsMatchANaiveRecountOfRandomHistories() async throws {
        var capped = 0
        for seed in UInt64(1)...30 {
            var random = SplitMix(seed: seed)
            let query = Self.cappedQuery(ExperimentResultsCounterTests.query(end: seed % 3 == 0 ? ExperimentResultsCounterTests.start + 3 * Self.day : nil))
            let counter = ExperimentResultsCounter(query)
            let source = MemorySource()
            var state: ExperimentResultsCounter.State?
            let units = (0..<Int.random(in: 3...30, using: &random)).map { "u\($0)" }
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                for _ in 0..<Int.random(in: 0...4, using: &random) {
                    source.ingest(ExperimentResultsCounterTests.randomBatch(units: units, using: &random))
                }
                let update = try await counter.update(state: state, through: source.sequence, source: source)
                source.store(update)
                state = update.state
                let now = ExperimentResultsCounterTests.start + 5 * Self.day
                let got = counter.totals(update.state.cohorts, now: now, units: try await source.allUnits())
                let expected = Naive(query: query).totals(exposures: source.exposures, events: source.events, now: now)
                ExperimentResultsCounterTests.expectClose(got, expected, "seed \(seed)")
                capped += got.capping.values.reduce(0) { $0 + $1.cappedUnits.values.reduce(0, +) }
            }
        }
        // The histories do reach above the caps.
        #expect(capped > 50)
    }

    @Test func aUnitsValueIsCappedAndItsCovariateAtTheSameThreshold() async throws {
        var query = ExperimentResultsCounterTests.query()
        query.metrics[1].cap = .value(10)
        let counter = ExperimentResultsCounter(query)
        let source = MemorySource()
        let t = ExperimentResultsCounterTests.start + 1000
        source.ingest((
            [.init(unit: "u", variant: "control", time: t), .init(unit: "v", variant: "control", time: t)],
            [
                .init(unit: "u", name: "purchase", value: 25, time: t - Self.day),
                .init(unit: "u", name: "purchase", value: 7, time: t + 1),
                .init(unit: "u", name: "purchase", value: 8, time: t + 2),
                .init(unit: "v", name: "purchase", value: 4, time: t + 2),
            ]))
        let update = try await counter.update(state: nil, through: source.sequence, source: source)
        let totals = counter.totals(update.state.cohorts, now: t)
        // u: 15 capped to 10, covariate 25 capped to 10; v: 4, covariate 0.
        #expect(totals.metrics["revenue"]?["control"] == ArmStatistics(
            units: 2, sum: 14, sumOfSquares: 116, covariateSum: 10, covariateSumOfSquares: 100, sumOfProducts: 100))
        #expect(totals.capping["revenue"] == ExperimentTotals.Capping(threshold: 10, cappedUnits: ["control": 1, "treatment": 0]))
        #expect(totals.capping["converted"] == nil)
    }

    @Test func aStateStoredBeforeCapsDecodesAndAChangedCapRecounts() throws {
        let old = #"{"query":"q","watermark":3,"cohorts":[{"arm":"a","day":0,"units":2,"reassigned":0,"metrics":[{"sum":1,"sumOfSquares":1,"covariateSum":0,"covariateSumOfSquares":0,"sumOfProducts":0}]}]}"#
        let state = try JSONDecoder().decode(ExperimentResultsCounter.State.self, from: Data(old.utf8))
        #expect(state.cohorts.first?.metrics.first?.capped == 0)
        #expect(state.cohorts.first?.metrics.first?.sum == 1)
        let plain = ExperimentResultsCounterTests.query()
        var capped = plain
        capped.metrics[1].cap = .value(10)
        var other = plain
        other.metrics[1].cap = .percentile(0.99)
        let keys = Set([plain, capped, other].map(ExperimentResultsCounter.key(of:)))
        #expect(keys.count == 3)
    }

    @Test(arguments: StoreKind.allCases)
    func everyEventStoreCapsLikeANaiveRecount(_ kind: StoreKind) async throws {
        try await FlagEventStoreCompatibilityTests.with(kind) { store, _ in
            let results = try ExperimentResultsStoreTests.results(store)
            var query = ExperimentResultsStoreTests.query
            query.metrics[1].cap = .value(10)
            query.metrics[2].cap = .percentile(0.9)
            query.metrics.append(
                .init(key: "revenue-p75", event: "purchase", kind: .mean, window: 2 * Self.day, covariate: true, cap: .percentile(0.75)))
            let log = ExperimentResultsStoreTests.Log()
            var random = SplitMix(seed: 31)
            let now = ExperimentResultsStoreTests.t0 + 5 * Self.day
            var capped = 0
            for round in 0..<8 {
                for _ in 0..<Int.random(in: 0...3, using: &random) { _ = try await store.ingest([log.next(using: &random)]) }
                let totals = try await results.updateResults(query, now: now)
                ExperimentResultsCounterTests.expectClose(totals, log.expected(query, now: now), "\(kind) round \(round)")
                capped = totals.capping.values.reduce(0) { $0 + $1.cappedUnits.values.reduce(0, +) }
            }
            // Nothing new: the percentile is computed again from the stored units, the same.
            let again = try await results.updateResults(query, now: now)
            ExperimentResultsCounterTests.expectClose(again, log.expected(query, now: now), "\(kind) again")
            #expect(capped > 0)
            #expect(again.capping["clicks"]?.threshold != nil)
        }
    }

    // MARK: - Validation

    @Test func badCapsAreRefusedNamingTheField() {
        func fields(_ kind: MetricData.Kind, _ cap: MetricCap) -> [String] {
            ExperimentMetric(key: "m", name: "M", event: "e", kind: kind, cap: cap).problems.map(\.field)
        }
        #expect(fields(.mean, MetricCap(value: 100)) == [])
        #expect(fields(.count, MetricCap(percentile: 0.99)) == [])
        #expect(fields(.conversion, MetricCap(value: 1)) == ["cap"])
        #expect(fields(.mean, MetricCap(value: 0)) == ["cap.value"])
        #expect(fields(.mean, MetricCap(value: -3)) == ["cap.value"])
        #expect(fields(.mean, MetricCap(percentile: 0.5)) == ["cap.percentile"])
        #expect(fields(.mean, MetricCap(percentile: 1)) == ["cap.percentile"])
        #expect(fields(.mean, MetricCap()) == ["cap"])
        #expect(fields(.mean, MetricCap(value: 5, percentile: 0.9)) == ["cap"])
    }

    @Test func theAdminAPIStoresACapAndAnswers422ForABadOne() async throws {
        try await TestServer.with { server in
            let token = server.adminToken
            let created = try await server.request(
                .POST, "/admin/v1/metrics", token: token,
                body: #"{"key": "revenue", "name": "Revenue", "event": "purchase", "kind": "mean", "cap": {"percentile": 0.99}}"#)
            #expect(created.status == 201, "\(created.body)")
            #expect(created.json?["cap"]?["percentile"]?.doubleValue == 0.99)
            let cases: [(String, String)] = [
                (#"{"key": "a", "name": "A", "event": "e", "kind": "mean", "cap": {"percentile": 1.5}}"#, "cap.percentile"),
                (#"{"key": "a", "name": "A", "event": "e", "kind": "mean", "cap": {"value": 0}}"#, "cap.value"),
                (#"{"key": "a", "name": "A", "event": "e", "kind": "conversion", "cap": {"value": 3}}"#, "cap"),
                (#"{"key": "a", "name": "A", "event": "e", "kind": "count", "cap": {}}"#, "cap"),
            ]
            for (body, field) in cases {
                let reply = try await server.request(.POST, "/admin/v1/metrics", token: token, body: body)
                #expect(reply.status == 422, "\(body): \(reply.body)")
                #expect(reply.json?["error"]?["problems"]?.arrayValue?.first?["field"]?.stringValue == field, "\(body): \(reply.body)")
            }
            let replaced = try await server.request(
                .PUT, "/admin/v1/metrics/revenue", token: token,
                body: #"{"name": "Revenue", "event": "purchase", "kind": "mean", "cap": {"value": 250}}"#)
            #expect(replaced.status == 200, "\(replaced.body)")
            let metrics = try await server.request(.GET, "/admin/v1/metrics", token: token)
            #expect(metrics.json?.arrayValue?.map { $0["key"] } == ["revenue"])
            #expect(metrics.json?.arrayValue?.first?["cap"]?["value"]?.doubleValue == 250)
        }
    }

    @Test func theConsolesMetricFormSetsKeepsAndClearsACap() async throws {
        try await TestServer.withConsole { server in
            let (client, csrf) = try await ConsoleMetricsAndSchedulesTests.signedIn(server)
            let fields: [(String, String)] = [("key", "revenue"), ("name", "Revenue"), ("event", "purchase"), ("kind", "mean")]
            let bad = try await client.post("/console/metrics", fields + [("capPercentile", "ninety-nine")], csrf: csrf)
            #expect(bad.status == 400 && bad.body.contains("cap.percentile: expected a number, got &quot;ninety-nine&quot;"))
            let wrong = try await client.post("/console/metrics", fields + [("capPercentile", "0.3")], csrf: csrf)
            #expect(wrong.status == 422 && wrong.body.contains("cap.percentile: must be between 0.5 and 1"))
            #expect(try await ConsoleMetricsAndSchedulesTests.metrics(server).isEmpty)
            let created = try await client.post("/console/metrics", fields + [("capPercentile", "0.99"), ("capValue", "")], csrf: csrf)
            #expect(created.status == 303)
            #expect(try await ConsoleMetricsAndSchedulesTests.metrics(server).first?["cap"]?["percentile"]?.doubleValue == 0.99)
            let list = try await client.get("/console/metrics")
            #expect(list.body.contains("<td>at p99</td>"))
            // The edit form shows the stored cap, so saving it unchanged keeps it.
            let edit = try await client.get("/console/metrics/revenue")
            #expect(edit.body.contains(#"name="capPercentile" inputmode="decimal" maxlength="32" value="0.99""#))
            let fixed = try await client.post(
                "/console/metrics/revenue", [("name", "Revenue"), ("event", "purchase"), ("kind", "mean"), ("capValue", "250")], csrf: csrf)
            #expect(fixed.status == 303)
            let stored = try await ConsoleMetricsAndSchedulesTests.metrics(server).first
            #expect(stored?["cap"]?["value"]?.doubleValue == 250 && stored?["cap"]?["percentile"] == nil)
            #expect(try await client.get("/console/metrics/revenue").body.contains(#"value="250""#))
            let cleared = try await client.post(
                "/console/metrics/revenue", [("name", "Revenue"), ("event", "purchase"), ("kind", "mean")], csrf: csrf)
            #expect(cleared.status == 303)
            #expect(try await ConsoleMetricsAndSchedulesTests.metrics(server).first?["cap"] == nil)
        }
    }

    // MARK: - Report and page

    static func cappedReport() -> ExperimentReport {
        let query = ExperimentReportTests.query(metrics: [
            .init(key: "checkout", event: "purchase", kind: .conversion, window: 7 * day, covariate: false),
            .init(key: "crashes", event: "crash", kind: .count, window: 7 * day, covariate: false, cap: .percentile(0.99)),
        ])
        var totals = ExperimentReportTests.totals()
        totals.capping = ["crashes": .init(threshold: 4.5, cappedUnits: ["off": 97, "on": 1])]
        return ExperimentReport(query: query, totals: totals, settings: ExperimentReportTests.settings())
    }

    @Test func theReportShowsTheCapTheThresholdAndTheUnitsCapped() throws {
        let report = Self.cappedReport()
        #expect(report.metrics[0].cap == nil)
        #expect(report.metrics[1].cap == ExperimentReport.CapReport(value: nil, percentile: 0.99, threshold: 4.5, cappedUnits: ["off": 97, "on": 1]))
        let json = try JSONEncoder().encode(report)
        let decoded = try JSONDecoder().decode(ExperimentReport.self, from: json)
        #expect(decoded.metrics[1].cap?.threshold == 4.5)
    }

    @Test func theResultsPageSaysHowTheValuesWereCapped() async throws {
        let page = try await ExperimentReportPageTests.render(Self.cappedReport())
        #expect(page.contains("Each unit&#39;s value is capped at 4.5, the 99th percentile of all units&#39;") || page.contains("Each unit's value is capped at 4.5, the 99th percentile of all units'"))
        #expect(page.contains("97 units in off, 1 unit in on above it."))
        let fixed = ConsoleRoutes.capText(.init(value: 100, percentile: nil, threshold: 100, cappedUnits: ["off": 2]), arms: ["off", "<b>on</b>"])
        #expect(fixed == "Each unit's value is capped at 100: 2 units in off, 0 units in <b>on</b> above it.")
        var query = ExperimentReportTests.query(arms: ["off", "<b>on</b>"], metrics: [
            .init(key: "crashes", event: "crash", kind: .count, window: 7 * Self.day, covariate: false, cap: .value(100)),
        ])
        query.arms = ["off", "<b>on</b>"]
        var totals = ExperimentReportTests.totals()
        totals.units = ["off": 10_000, "<b>on</b>": 10_000]
        totals.metrics = ["crashes": ["off": totals.metrics["crashes"]!["off"]!, "<b>on</b>": totals.metrics["crashes"]!["on"]!]]
        totals.capping = ["crashes": .init(threshold: 100, cappedUnits: ["off": 2, "<b>on</b>": 0])]
        let escaped = try await ExperimentReportPageTests.render(
            ExperimentReport(query: query, totals: totals, settings: ExperimentReportTests.settings(allocation: ["off": 1, "<b>on</b>": 1])))
        #expect(escaped.contains("0 units in &lt;b&gt;on&lt;/b&gt; above it."))
        #expect(!escaped.contains("<b>on</b>"))
    }
}
