@testable import FlagServer
import FlagStatistics
import Foundation
import NIOHTTP1
import Testing

/// The experiment report over hand-built totals: every decision state, the sample ratio check
/// blocking the others, Benjamini–Hochberg asking more of many comparisons, the days.
struct ExperimentReportTests {
    static let day: Int64 = 86_400_000
    /// 2026-11-20T00:00:00Z.
    static let start: Int64 = 1_795_132_800_000

    static func query(arms: [String] = ["off", "on"], metrics: [ExperimentResultsQuery.Metric]? = nil) -> ExperimentResultsQuery {
        ExperimentResultsQuery(
            experiment: "exp-1", environment: "production", flag: "checkout", arms: arms, start: start, end: nil,
            metrics: metrics ?? [
                .init(key: "checkout", event: "purchase", kind: .conversion, window: 7 * day, covariate: false),
                .init(key: "crashes", event: "crash", kind: .count, window: 7 * day, covariate: false),
            ])
    }

    static func settings(allocation: [String: Double] = ["off": 1, "on": 1], guardrail: Bool = true) -> ExperimentReport.Settings {
        ExperimentReport.Settings(
            control: "off", allocation: allocation, alpha: 0.05, status: "Running since 20 Nov",
            hypothesis: "The one-page checkout sells more.",
            metrics: [
                "checkout": .init(name: "Checkout conversion"),
                "crashes": .init(name: "Crashes per user", higherIsBetter: false, guardrail: guardrail),
            ])
    }

    /// A conversion metric's statistics.
    static func conversion(_ units: Double, _ converted: Double) -> ArmStatistics {
        ArmStatistics(units: units, sum: converted)
    }

    /// A count metric's statistics: `units` units, `sum` events, Σy² = `squares`.
    static func count(_ units: Double, _ sum: Double, _ squares: Double) -> ArmStatistics {
        ArmStatistics(units: units, sum: sum, sumOfSquares: squares)
    }

    static func totals(
        off: Int = 10_000, on: Int = 10_000, checkout: (off: Double, on: Double) = (500, 505),
        crashes: (off: Double, on: Double) = (1000, 1010), daily: [ExperimentTotals.Day] = []
    ) -> ExperimentTotals {
        ExperimentTotals(
            units: ["off": off, "on": on], reassignedUnits: ["on": 3],
            metrics: [
                "checkout": ["off": conversion(Double(off), checkout.off), "on": conversion(Double(on), checkout.on)],
                "crashes": [
                    "off": count(Double(off), crashes.off, crashes.off * 12 / 10), "on": count(Double(on), crashes.on, crashes.on * 12 / 10),
                ],
            ], daily: daily, countedThrough: start + 6 * day)
    }

    static func report(_ totals: ExperimentTotals, settings: ExperimentReport.Settings = settings()) -> ExperimentReport {
        ExperimentReport(query: query(), totals: totals, settings: settings)
    }

    @Test
    func noSignificantDifferenceIsKeepCollecting() throws {
        let report = Self.report(Self.totals())
        #expect(report.problem == nil)
        #expect(report.analysis != nil)
        #expect(report.decision.state == .keepCollecting)
        #expect(report.decision.text.contains("with Benjamini–Hochberg across 2 comparisons"))
        #expect(report.comparisons == 2)
        for metric in report.metrics {
            #expect(metric.decision.state == .keepCollecting)
            let arm = try #require(metric.arms.last?.decision)
            #expect(arm.state == .keepCollecting)
            #expect(arm.text.contains("its always-valid interval includes 0"))
        }
        // Units against the allocation, the reassignments reported beside them.
        #expect(report.units.map(\.arm) == ["off", "on"])
        #expect(report.units[1].reassigned == 3)
        #expect(report.units[1].observedShare == 0.5 && report.units[1].plannedShare == 0.5)
        #expect(report.sampleRatio?.mismatch == false)
    }

    @Test
    func aSignificantGainIsBetterAndALossIsWorse() throws {
        let better = Self.report(Self.totals(checkout: (500, 700)))
        #expect(better.decision.state == .significant)
        #expect(better.decision.direction == .better)
        let checkout = try #require(better.metrics.first)
        #expect(checkout.decision.state == .significant && checkout.decision.direction == .better)
        let comparison = try #require(checkout.arms[1].comparison)
        // The rule rests on the always-valid interval, adjusted: it excludes 0 and q ≤ α.
        #expect(comparison.sequential.lower > 0)
        #expect(comparison.sequential.adjustedPValue <= 0.05)
        #expect(checkout.arms[1].decision?.text.hasPrefix("on is better than off on Checkout conversion (always-valid p = ") == true)
        // The other metric is unchanged and keeps collecting.
        #expect(better.metrics[1].decision.state == .keepCollecting)

        let worse = Self.report(Self.totals(checkout: (700, 500)))
        #expect(worse.decision.state == .significant)
        #expect(worse.decision.direction == .worse)
        #expect(worse.metrics[0].arms[1].decision?.text.hasPrefix("on is worse than off on Checkout conversion") == true)
    }

    @Test
    func aGuardrailSignificantlyWorseIsHarmedAndOutranksAGain() throws {
        // More crashes in "on" (lower is better) while checkout gains.
        let report = Self.report(Self.totals(checkout: (500, 700), crashes: (1000, 1400)))
        #expect(report.decision.state == .guardrailHarmed)
        #expect(report.decision.direction == .worse)
        #expect(report.decision.text.hasPrefix("Guardrail harmed: Crashes per user is worse in on than in off"))
        #expect(report.metrics[1].decision.state == .guardrailHarmed)
        #expect(report.metrics[0].decision.state == .significant)
        // The same metric not marked as a guardrail is merely significantly worse.
        let plain = Self.report(Self.totals(crashes: (1000, 1400)), settings: Self.settings(guardrail: false))
        #expect(plain.decision.state == .significant && plain.decision.direction == .worse)
        // Fewer crashes on a guardrail is a significant gain, not harm.
        let fewer = Self.report(Self.totals(crashes: (1400, 1000)))
        #expect(fewer.metrics[1].decision.state == .significant && fewer.metrics[1].decision.direction == .better)
    }

    @Test
    func aSampleRatioMismatchBlocksEveryDecision() throws {
        // 10,000 against 9,000 on a 50/50 allocation, with a gain and a harmed guardrail.
        let report = Self.report(Self.totals(off: 10_000, on: 9_000, checkout: (500, 700), crashes: (1000, 1400)))
        let check = try #require(report.sampleRatio)
        #expect(check.mismatch)
        #expect(report.decision.state == .sampleRatioMismatch)
        #expect(report.decision.text.hasPrefix("Sample ratio mismatch — no decision: the units per arm (off 10,000 (planned 50\u{00A0}%), on 9,000 (planned 50\u{00A0}%))"))
        for metric in report.metrics {
            #expect(metric.decision.state == .sampleRatioMismatch)
            #expect(metric.arms[1].decision?.state == .sampleRatioMismatch)
        }
        // The same split is no mismatch when it was planned so.
        let planned = Self.report(
            Self.totals(off: 10_000, on: 9_000, checkout: (500, 700)), settings: Self.settings(allocation: ["off": 10, "on": 9]))
        #expect(planned.sampleRatio?.mismatch == false)
        #expect(planned.decision.state == .significant)
    }

    @Test
    func anArmWithoutUnitsIsAMismatchEvenBeforeTheEngineCanAnalyse() throws {
        let empty = Self.report(Self.totals(off: 2_000, on: 0, checkout: (100, 0), crashes: (10, 0)))
        #expect(empty.analysis == nil)
        #expect(empty.problem?.contains("metrics[0].arms.on.units") == true)
        #expect(empty.sampleRatio?.mismatch == true)
        #expect(empty.decision.state == .sampleRatioMismatch)
        // Too few units in both arms, evenly: no analysis yet, and that is said.
        let early = Self.report(Self.totals(off: 1, on: 1, checkout: (0, 1), crashes: (0, 0)))
        #expect(early.analysis == nil)
        #expect(early.sampleRatio?.mismatch == false)
        #expect(early.decision.state == .keepCollecting)
        #expect(early.decision.text.hasPrefix("Keep collecting. No analysis yet: metrics[0].arms."))
        #expect(early.metrics.allSatisfy { $0.decision.state == .keepCollecting && $0.arms[1].comparison == nil })
    }

    @Test
    func benjaminiHochbergAsksMoreOfManyComparisons() throws {
        // Find a conversion count whose always-valid p-value alone is between α/3 and α.
        let metric = ExperimentResultsQuery.Metric(key: "checkout", event: "purchase", kind: .conversion, window: Self.day, covariate: false)
        let nulls = (1...2).map { ExperimentResultsQuery.Metric(key: "null\($0)", event: "e\($0)", kind: .conversion, window: Self.day, covariate: false) }
        func totals(_ converted: Double) -> ExperimentTotals {
            var metrics = ["checkout": ["off": Self.conversion(10_000, 500), "on": Self.conversion(10_000, converted)]]
            for null in nulls { metrics[null.key] = ["off": Self.conversion(10_000, 300), "on": Self.conversion(10_000, 300)] }
            return ExperimentTotals(units: ["off": 10_000, "on": 10_000], reassignedUnits: [:], metrics: metrics, daily: [], countedThrough: 0)
        }
        let alone = try #require(
            (501...800).lazy.map { ExperimentReport(query: Self.query(metrics: [metric]), totals: totals(Double($0)), settings: Self.settings()) }
                .first { report in
                    let p = report.metrics[0].arms[1].comparison?.sequential.pValue ?? 1
                    return p < 0.05 && p > 0.05 / 3 * 1.01
                })
        #expect(alone.decision.state == .significant)
        let converted = try #require(alone.data.metrics[0].arms["on"]?.sum)
        let three = ExperimentReport(query: Self.query(metrics: [metric] + nulls), totals: totals(converted), settings: Self.settings())
        let comparison = try #require(three.metrics[0].arms[1].comparison)
        #expect(comparison.sequential.pValue < 0.05)
        #expect(comparison.sequential.lower > 0)
        #expect(comparison.sequential.adjustedPValue > 0.05)
        #expect(three.comparisons == 3)
        #expect(three.decision.state == .keepCollecting)
        #expect(
            three.metrics[0].arms[1].decision?.text.contains("its always-valid interval excludes 0, but not after Benjamini–Hochberg across 3 comparisons") == true)
    }

    static func daily() -> [ExperimentTotals.Day] {
        (1...4).map { index in
            let units = 2_500 * index
            return ExperimentTotals.Day(
                day: start + Int64(index - 1) * day, units: ["off": units, "on": units],
                metrics: [
                    "checkout": ["off": conversion(Double(units), Double(units) * 0.05), "on": conversion(Double(units), Double(units) * 0.06)],
                    "crashes": ["off": count(Double(units), 100, 120), "on": count(Double(units), 100, 120)],
                ])
        } + [ExperimentTotals.Day(day: start + 4 * day, units: ["off": 1, "on": 0], metrics: [:])]
    }

    @Test
    func eachDayIsAnalysedForTheSequentialBoundOverTime() throws {
        let report = Self.report(Self.totals(daily: Self.daily()))
        #expect(report.days.count == 5)
        let checkout = report.days.prefix(4).compactMap { $0.intervals.first { $0.metric == "checkout" && $0.arm == "on" } }
        #expect(checkout.count == 4)
        // The always-valid interval narrows as units arrive, around the same difference.
        let widths = checkout.map { $0.upper - $0.lower }
        #expect(zip(widths, widths.dropFirst()).allSatisfy { $0 > $1 })
        #expect(checkout.allSatisfy { abs($0.estimate - 0.01) < 1e-12 && abs($0.controlMean - 0.05) < 1e-12 })
        // Each day's figures come from that day's data, as the engine gives them.
        let again = try StatisticsEngine.analyze(report.days[3].data)
        #expect(again.metrics[0].comparisons[0].sequential.lower == checkout[3].lower)
        // A day the engine cannot analyse says why and has no interval.
        #expect(report.days[4].intervals.isEmpty)
        #expect(report.days[4].problem?.hasPrefix("No analysis yet:") == true)
    }

    @Test
    func anArmTheStoreHasNoStatisticsForCountsItsUnitsWithNothingSummed() throws {
        var totals = Self.totals()
        totals.metrics["crashes"]?["on"] = nil
        let report = Self.report(totals)
        #expect(report.data.metrics[1].arms["on"] == ArmStatistics(units: 10_000, sum: 0, sumOfSquares: 0))
        #expect(report.analysis != nil)
    }

    // MARK: - Export

    @Test
    func theJSONExportReproducesEveryFigure() throws {
        let report = Self.report(Self.totals(checkout: (500, 700), daily: Self.daily()))
        let json = try report.json()
        let read = try ExperimentReport.decode(json: json)
        #expect(read == report)
        // The engine on the exported input gives the report's analysis again, figure for figure.
        let data = try JSONDecoder().decode(Exported.self, from: json).data
        #expect(try StatisticsEngine.analyze(data) == report.analysis)
        let text = try #require(String(data: json, encoding: .utf8))
        #expect(text.contains(#""data" : {"#))
        #expect(text.contains(#""state" : "significant""#))
    }

    @Test
    func theServersAnalysisEndpointGivesTheSameFiguresFromTheExport() async throws {
        let report = Self.report(Self.totals(checkout: (500, 700), crashes: (1000, 1400)))
        let data = try JSONDecoder().decode(Exported.self, from: report.json()).data
        let body = try #require(String(data: JSONEncoder().encode(data), encoding: .utf8))
        try await TestServer.with { server in
            let reply = try await server.request(.POST, "/admin/v1/statistics/analyze", token: server.adminToken, body: body)
            #expect(reply.status == 200, "\(reply.body)")
            let served = try JSONDecoder().decode(ExperimentAnalysis.self, from: Data(reply.body.utf8))
            #expect(served == report.analysis)
        }
    }

    struct Exported: Decodable {
        var data: ExperimentData
    }

    @Test
    func theCSVExportHasARowPerMetricAndArmWithItsInputsAndFigures() throws {
        let report = Self.report(Self.totals(checkout: (500, 700)))
        let lines = report.csv().split(separator: "\r\n", omittingEmptySubsequences: true).map(String.init)
        #expect(lines.count == 1 + 2 * 2)
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        #expect(header == ExperimentReport.csvColumns)
        func row(_ line: String) -> [String: String] {
            Dictionary(uniqueKeysWithValues: zip(header, line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)))
        }
        let control = row(lines[1])
        #expect(control["metric"] == "checkout" && control["arm"] == "off" && control["control"] == "true")
        #expect(control["units"] == "10000" && control["sum"] == "500" && control["sum_of_squares"] == "")
        #expect(control["difference"] == "" && control["decision"] == "")
        let on = row(lines[2])
        let comparison = try #require(report.metrics[0].arms[1].comparison)
        #expect(on["sum"] == "700")
        // Every figure with all its digits: read back, the same Double.
        #expect(Double(on["difference"]!) == comparison.absolute.estimate)
        #expect(Double(on["p_value"]!) == comparison.absolute.pValue)
        #expect(Double(on["sequential_lower"]!) == comparison.sequential.lower)
        #expect(Double(on["sequential_adjusted_p_value"]!) == comparison.sequential.adjustedPValue)
        #expect(Double(on["relative_lift"]!) == comparison.relative?.estimate)
        #expect(on["decision"] == "significant" && on["direction"] == "better")
        let crashes = row(lines[4])
        #expect(crashes["guardrail"] == "true" && crashes["sum_of_squares"] == "1212")
        // Re-analysing the CSV's inputs gives the figures in it.
        let data = ExperimentData(
            control: "off",
            metrics: [
                MetricData(
                    name: "checkout", kind: .conversion,
                    arms: [
                        "off": ArmStatistics(units: Double(control["units"]!)!, sum: Double(control["sum"]!)!),
                        "on": ArmStatistics(units: Double(on["units"]!)!, sum: Double(on["sum"]!)!),
                    ])
            ])
        #expect(try StatisticsEngine.analyze(data).metrics[0].comparisons[0].absolute == comparison.absolute)
    }

    @Test
    func csvNamesAreQuotedAndKeptFromBeingFormulas() {
        #expect(ExperimentReport.text("plain") == "plain")
        #expect(ExperimentReport.text("a,b") == "\"a,b\"")
        #expect(ExperimentReport.text("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(ExperimentReport.text("=HYPERLINK(1)") == "'=HYPERLINK(1)")
        #expect(ExperimentReport.text("-1+2,3") == "\"'-1+2,3\"")
        #expect(ExperimentReport.number(nil) == "")
        #expect(ExperimentReport.number(468) == "468")
        #expect(ExperimentReport.number(0.1 + 0.2) == "0.30000000000000004")
    }
}

extension ExperimentReportTests {
    /// A verdict reached at one look does not revert at a later one: the decision reads the
    /// running minimum of the adjusted always-valid p-value over the daily looks.
    @Test
    func aVerdictReachedOnceDoesNotRevert() throws {
        let analysis = try StatisticsEngine.analyze(ExperimentData(
            control: "off",
            metrics: [MetricData(name: "checkout", kind: .conversion, arms: [
                "off": ArmStatistics(units: 5000, sum: 500), "on": ArmStatistics(units: 5000, sum: 520),
            ])]))
        let comparison = try #require(analysis.metrics[0].comparisons.first)
        #expect(comparison.sequential.adjustedPValue > 0.05)
        func decide(lowest: Double?) -> ExperimentReport.Decision {
            ExperimentReport.armDecision(
                arm: "on", control: "off", metric: "checkout", comparison: comparison, guardrail: false, higherIsBetter: true,
                alpha: 0.05, mismatch: false, problem: nil, comparisons: 1, lowestEarlier: lowest)
        }
        #expect(decide(lowest: nil).state == .keepCollecting)
        #expect(decide(lowest: 0.5).state == .keepCollecting)
        let kept = decide(lowest: 0.01)
        #expect(kept.state == .significant && kept.direction == .better)
        #expect(kept.text.contains("p = 0.01"))
    }
}
