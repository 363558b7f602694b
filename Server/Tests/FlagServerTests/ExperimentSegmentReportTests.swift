import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import FlagStatistics
import Foundation
import NIOHTTP1
import Testing

/// Results by segment in the report: each segment analysed by the engine exactly as the pooled
/// report would analyse those units, every p-value adjusted in one family by the experiment's
/// correction, no verdict below the minimum sample or under a sample ratio mismatch; the API's
/// parameters, the CSV, and the console's section.
struct ExperimentSegmentReportTests {
    /// The counter tests' conversion, mean and count metrics (the segments below have no ratio's sums).
    static let query = {
        var query = ExperimentResultsCounterTests.query()
        query.metrics.removeAll { $0.kind == .ratio }
        return query
    }()

    /// Sufficient statistics of `n` units whose value is `base` plus a seeded spread.
    static func arm(_ n: Int, base: Double, using random: inout SplitMix, conversion: Bool = false) -> ArmStatistics {
        var sum = 0.0, squares = 0.0
        for _ in 0..<n {
            let value = conversion ? (Double.random(in: 0..<1, using: &random) < base ? 1.0 : 0.0) : base + Double.random(in: -5...5, using: &random)
            sum += value
            squares += value * value
        }
        return ArmStatistics(units: Double(n), sum: sum, sumOfSquares: squares)
    }

    /// A segment with `n` units per arm, the treatment's mean shifted by `effect`.
    static func segment(_ key: String, kind: ExperimentSegmentTotals.Kind = .value, n: Int, effect: Double, seed: UInt64) -> ExperimentSegmentTotals.Segment {
        var random = SplitMix(seed: seed)
        var metrics: [String: [String: ArmStatistics]] = [:]
        metrics["converted"] = [
            "control": arm(n, base: 0.2, using: &random, conversion: true),
            "treatment": arm(n, base: 0.2 + effect / 100, using: &random, conversion: true),
        ]
        metrics["revenue"] = ["control": arm(n, base: 10, using: &random), "treatment": arm(n, base: 10 + effect, using: &random)]
        metrics["clicks"] = ["control": arm(n, base: 6, using: &random), "treatment": arm(n, base: 6, using: &random)]
        return .init(key: key, kind: kind, units: ["control": n, "treatment": n], metrics: metrics)
    }

    static let split = ExperimentSegmentTotals(
        dimension: .appVersion,
        segments: [
            segment("5.0", n: 800, effect: 3, seed: 1), segment("4.2", n: 600, effect: 0, seed: 2),
            segment("4.3", n: 40, effect: 0, seed: 3), segment("unknown", kind: .unknown, n: 300, effect: 0, seed: 4),
        ],
        otherValues: 0)

    /// The pooled totals of `split`.
    static func pooled(_ split: ExperimentSegmentTotals) -> ExperimentTotals {
        var units: [String: Int] = [:]
        var metrics: [String: [String: ArmStatistics]] = [:]
        for segment in split.segments {
            for (arm, n) in segment.units { units[arm, default: 0] += n }
            for (metric, arms) in segment.metrics {
                for (arm, s) in arms {
                    let old = metrics[metric]?[arm] ?? ArmStatistics(units: 0, sum: 0, sumOfSquares: 0)
                    metrics[metric, default: [:]][arm] = ArmStatistics(
                        units: old.units + s.units, sum: old.sum + s.sum, sumOfSquares: (old.sumOfSquares ?? 0) + (s.sumOfSquares ?? 0))
                }
            }
        }
        return ExperimentTotals(units: units, reassignedUnits: [:], metrics: metrics, daily: [], countedThrough: 0)
    }

    static func settings(_ correction: MultipleComparisonCorrection = .bh, allocation: [String: Double] = ["control": 1, "treatment": 1])
        -> ExperimentReport.Settings
    {
        ExperimentReport.Settings(
            control: "control", allocation: allocation, status: "Running", hypothesis: "",
            metrics: ["revenue": .init(name: "Revenue per user")], correction: correction)
    }

    static func segmentReport(
        _ split: ExperimentSegmentTotals = split, settings: ExperimentReport.Settings = settings()
    ) -> ExperimentReport {
        var report = ExperimentReport(query: query, totals: pooled(split), settings: settings)
        report.segments = ExperimentSegmentReport(totals: split, limit: 10, query: query, report: report, settings: settings)
        return report
    }

    @Test(arguments: [MultipleComparisonCorrection.bh, .holm, .dunnett])
    func eachSegmentIsTheEnginesAnalysisOfItsUnitsAdjustedInOneFamily(_ correction: MultipleComparisonCorrection) throws {
        let settings = Self.settings(correction)
        let report = Self.segmentReport(settings: settings)
        let segments = try #require(report.segments)
        #expect(segments.segments.map(\.key) == ["5.0", "4.2", "4.3", "unknown"])
        var raw: [Double] = [], rawFixed: [Double] = [], adjusted: [Double] = [], adjustedFixed: [Double] = []
        for (segment, totals) in zip(segments.segments, Self.split.segments) {
            let data = ExperimentReport.data(query: Self.query, arms: report.arms, units: totals.units, metrics: totals.metrics, settings: settings)
            let analysis = try StatisticsEngine.analyze(data)
            for (metric, expected) in zip(segment.metrics, analysis.metrics) {
                #expect(metric.arms.map(\.statistics) == report.arms.map { totals.metrics[metric.key]![$0]! })
                for comparison in expected.comparisons {
                    let got = try #require(metric.arms.first { $0.arm == comparison.arm }?.comparison)
                    #expect(got.absolute == comparison.absolute)
                    #expect(got.sequential.pValue == comparison.sequential.pValue)
                    #expect(got.sequential.lower == comparison.sequential.lower && got.sequential.upper == comparison.sequential.upper)
                    raw.append(comparison.sequential.pValue)
                    rawFixed.append(comparison.absolute.pValue)
                    adjusted.append(got.sequential.adjustedPValue)
                    adjustedFixed.append(got.adjustedPValue)
                }
            }
        }
        // 4.3 has 40 units per arm: below the minimum sample, so 3 segments × 3 metrics × 1 arm.
        #expect(raw.count == 9 && segments.comparisons == 9)
        let method: MultipleComparisonCorrection = correction == .bh ? .bh : .holm
        #expect(segments.correction == method)
        let expected = method == .bh ? StatisticalTests.benjaminiHochberg(raw) : MultipleComparisons.holm(raw)
        let expectedFixed = method == .bh ? StatisticalTests.benjaminiHochberg(rawFixed) : MultipleComparisons.holm(rawFixed)
        #expect(adjusted == expected)
        #expect(adjustedFixed == expectedFixed)
        // The adjustment asks more than the segment's own p-value.
        #expect(zip(adjusted, raw).allSatisfy { $0 >= $1 } && zip(adjusted, raw).contains { $0 > $1 })
    }

    @Test func noVerdictBelowTheMinimumSampleAndTheRealEffectIsFound() throws {
        let segments = try #require(Self.segmentReport().segments)
        let small = try #require(segments.segments.first { $0.key == "4.3" })
        for metric in small.metrics {
            let treatment = try #require(metric.arms.last)
            #expect(treatment.comparison == nil)
            #expect(treatment.notEnoughData?.contains("fewer than the 100") == true)
            #expect(treatment.decision?.state == .keepCollecting)
            #expect(treatment.decision?.text.contains("No verdict on") == true)
        }
        let revenue = try #require(segments.segments.first?.metrics.first { $0.key == "revenue" }?.arms.last)
        #expect(revenue.decision?.state == .significant)
        #expect(revenue.decision?.direction == .better)
        #expect(revenue.decision?.text.contains("Revenue per user in app version 5.0") == true)
        let flat = try #require(segments.segments[1].metrics.first { $0.key == "revenue" }?.arms.last)
        #expect(flat.decision?.state == .keepCollecting)
    }

    @Test func aSampleRatioMismatchBlocksEverySegmentsVerdict() throws {
        let report = Self.segmentReport(settings: Self.settings(allocation: ["control": 9, "treatment": 1]))
        #expect(report.sampleRatio?.mismatch == true)
        let decisions = try #require(report.segments).segments.flatMap { $0.metrics.flatMap { $0.arms.compactMap(\.decision) } }
        #expect(!decisions.isEmpty)
        #expect(decisions.allSatisfy { $0.state == .sampleRatioMismatch })
    }

    @Test func theCSVHasARowPerSegmentMetricAndArmAndTheJSONKeepsTheSegments() throws {
        let report = Self.segmentReport()
        let csv = try #require(report.segmentCSV())
        let lines = csv.split(separator: "\r\n")
        #expect(lines.first.map(String.init) == ExperimentReport.segmentCSVColumns.joined(separator: ","))
        #expect(lines.count == 1 + 4 * 3 * 2)
        #expect(lines[1].hasPrefix("appVersion,5.0,value,converted,converted,control,true,800,"))
        #expect(lines.contains { $0.hasPrefix("appVersion,unknown,unknown,") })
        #expect(ExperimentReport(query: Self.query, totals: Self.pooled(Self.split), settings: Self.settings()).segmentCSV() == nil)
        let decoded = try ExperimentReport.decode(json: try report.json())
        #expect(decoded.segments == report.segments)
    }

    @Test func theResultsPageShowsTheSegmentTables() async throws {
        let page = try await ExperimentReportPageTests.render(Self.segmentReport())
        #expect(page.contains(#"<h3 id="segments-heading" data-dimension="appVersion">By app version</h3>"#))
        #expect(page.contains(#"<table class="figures segment-table" id="segments-m1" data-metric="revenue"><caption>Revenue per user by app version</caption>"#))
        #expect(page.contains(#"<tr data-segment="5.0" data-segment-kind="value" data-arm="treatment"><th scope="row">5.0</th>"#))
        #expect(page.contains(#"data-state="significant">Significant, better</td>"#))
        #expect(page.contains(#"href="/console/experiments/exp-1/export.csv?segment=appVersion&amp;segments=10" id="segments-export-csv""#))
        #expect(page.contains("adjusted together by Benjamini–Hochberg"))
        // Without segments: only the links.
        let plain = try await ExperimentReportPageTests.render(ExperimentReportTests.report(ExperimentReportTests.totals(checkout: (500, 700))))
        #expect(plain.contains(#"<a href="?segment=appVersion" id="segments-app-version">By app version</a>"#))
        #expect(!plain.contains(#"id="segments-heading""#))
    }

    @Test func theAPIAnswersSegmentsFromTheEventStoreAnd422NamingABadParameter() async throws {
        let events = try await SQLiteFlagEventStore(path: nil)
        try await events.migrate()
        try await ExperimentAPITests.withExperiment(eventStore: events) { server in
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            var batches: [EventBatch] = []
            for (index, version) in ["4.2", "4.2", "5.0"].enumerated() {
                let units = (0..<30).map { "u\(index)-\($0)" }
                batches.append(
                    EventBatch(
                        id: "b\(index)", environment: "production", receivedAt: now,
                        source: .init(appVersion: version, buildConfiguration: "release", platform: "iOS"),
                        exposures: units.enumerated().map { .init(flag: "checkout", variant: $0.offset % 2 == 0 ? "on" : "off", reason: "SPLIT", unit: $0.element, time: now) },
                        tracked: units.prefix(10).map { .init(name: "purchase", value: 1, unit: $0, time: now + 1) }))
            }
            _ = try await events.ingest(batches)
            let base = ExperimentAPITests.production + "/experiments/exp-1/results"
            let reply = try await server.request(.GET, base + "?segment=appVersion&refresh=true", token: server.adminToken)
            #expect(reply.status == 200)
            let report = try ExperimentReport.decode(json: Data(reply.body.utf8))
            let segments = try #require(report.segments)
            #expect(segments.dimension == .appVersion)
            #expect(segments.segments.map(\.key) == ["4.2", "5.0"])
            #expect(segments.segments.map { $0.units.map(\.units).reduce(0, +) } == [60, 30])
            let platform = try await server.request(.GET, base + "?segment=platform&segments=1&format=csv", token: server.adminToken)
            #expect(platform.status == 200)
            #expect(platform.body.hasPrefix(ExperimentReport.segmentCSVColumns.joined(separator: ",")))
            #expect(platform.body.contains("platform,iOS,value,buy,"))
            // The document refuses values outside its enum and range (400), the server the rest (422); both name the parameter.
            for (parameters, name, status) in [
                ("segment=country", "segment", 400), ("segment=platform&segments=50", "segments", 400), ("segments=3", "segments", 422),
            ] {
                let bad = try await server.request(.GET, base + "?" + parameters, token: server.adminToken)
                #expect(bad.status == status, "\(parameters)")
                #expect(bad.json?["error"]?["message"]?.stringValue?.contains(name) == true, "\(parameters) \(bad.body)")
            }
            // Without the parameter, no segments (and no read of every unit).
            #expect(try await server.request(.GET, base, token: server.adminToken).json?["segments"] == nil)
        }
        await events.close()
    }
}
