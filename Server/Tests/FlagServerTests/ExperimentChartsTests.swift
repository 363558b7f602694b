@testable import FlagServer
import FlagStatistics
import Foundation
import Testing

/// The results page's SVG charts: numbers placed where the scales put them, decisions in words
/// and classes, text escaped.
struct ExperimentChartsTests {
    /// The value of `attribute` in the first element after `marker`.
    static func attribute(_ attribute: String, after marker: String, in svg: String) throws -> Double {
        let start = try #require(svg.range(of: marker), "no \(marker) in \(svg)")
        let rest = svg[start.lowerBound...]
        let range = try #require(rest.range(of: " \(attribute)=\""))
        return try #require(Double(rest[range.upperBound...].prefix { $0 != "\"" }))
    }

    static func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    @Test
    func scalesAreRoundAndHoldZero() {
        let scale = ExperimentCharts.scale(0.013, 0.087)
        #expect(scale.lower == 0 && scale.upper >= 0.087 && scale.step == 0.025)
        let both = ExperimentCharts.scale(-0.031, 0.052)
        #expect(abs(both.lower + 0.05) < 1e-12 && abs(both.upper - 0.075) < 1e-12 && abs(both.step - 0.025) < 1e-12)
        #expect(ExperimentCharts.ticks(both).contains(0))
        #expect(ExperimentCharts.scale(0, 0) == (-1, 1, 0.5))
    }

    @Test
    func theLiftChartPlacesEachArmsLiftAndIntervalsOnTheScaleWithAZeroLine() throws {
        let report = ExperimentReportTests.report(ExperimentReportTests.totals(checkout: (500, 700), crashes: (1000, 1400)))
        let metric = report.metrics[0]
        let chart = LiftChart(report: report, metric: metric, id: "lift-checkout")
        let svg = chart.svg
        let comparison = try #require(metric.arms[1].comparison)
        let relative = try #require(comparison.relative)
        #expect(abs(relative.estimate - 0.4) < 1e-12)
        #expect(svg.hasPrefix(#"<svg class="chart lift-chart" viewBox="0 0 1000 136" role="img" aria-labelledby="lift-checkout-title lift-checkout-desc""#))
        #expect(svg.contains("<title id=\"lift-checkout-title\">Relative lift of Checkout conversion against off, with intervals at α = 0.05</title>"))
        // The zero line and the estimate where the scale puts them.
        let zero = try Self.attribute("x1", after: #"<line class="zero""#, in: svg)
        #expect(abs(zero - chart.x(0)) < 0.06)
        let scale = chart.scale
        #expect(abs(chart.x(scale.lower) - LiftChart.left) < 1e-9)
        #expect(abs(chart.x(scale.upper) - (ExperimentCharts.width - LiftChart.right)) < 1e-9)
        let cx = try Self.attribute("cx", after: #"<circle class="estimate""#, in: svg)
        #expect(abs(cx - chart.x(relative.estimate)) < 0.06)
        #expect(cx > zero)
        let lower = try Self.attribute("x1", after: #"<line class="interval fixed""#, in: svg)
        #expect(abs(lower - chart.x(relative.lower)) < 0.06)
        // The always-valid interval relative to the control's mean: it excludes 0 as the test does.
        let sequentialLower = try Self.attribute("x1", after: #"<line class="interval sequential""#, in: svg)
        #expect(abs(sequentialLower - chart.x(comparison.sequential.lower / 0.05)) < 0.06)
        #expect(sequentialLower > zero)
        // Significant: coloured and said.
        #expect(svg.contains(#"<g class="arm better" data-arm="on">"#))
        #expect(svg.contains(">+40 % · significant, better</text>".replacingOccurrences(of: " %", with: "\u{00A0}%")))
        #expect(chart.summary.hasPrefix("on: +40\u{00A0}%, interval "))

        // A harmed guardrail: coloured as worse and said in words.
        let guardrail = LiftChart(report: report, metric: report.metrics[1], id: "lift-crashes").svg
        #expect(guardrail.contains(#"<g class="arm worse guardrail" data-arm="on">"#))
        #expect(guardrail.contains("guardrail harmed · guardrail</text>"))
        #expect(guardrail.contains("Relative lift of Crashes per user (guardrail) against off"))
        // Nothing significant: neutral, and said.
        let flat = ExperimentReportTests.report(ExperimentReportTests.totals())
        #expect(LiftChart(report: flat, metric: flat.metrics[0], id: "l").svg.contains(#"<g class="arm neutral" data-arm="on">"#))
        #expect(LiftChart(report: flat, metric: flat.metrics[0], id: "l").svg.contains("not significant: keep collecting</text>"))
    }

    @Test
    func chartTextIsEscaped() throws {
        let query = ExperimentReportTests.query(arms: ["off", "<b>on</b>"])
        var totals = ExperimentReportTests.totals()
        totals.units = ["off": 10_000, "<b>on</b>": 10_000]
        for key in totals.metrics.keys { totals.metrics[key]!["<b>on</b>"] = totals.metrics[key]!["on"] }
        var settings = ExperimentReportTests.settings(allocation: ["off": 1, "<b>on</b>": 1])
        settings.metrics["checkout"]?.name = "Checkout & \"pay\""
        let report = ExperimentReport(query: query, totals: totals, settings: settings)
        #expect(report.analysis != nil)
        for svg in [
            LiftChart(report: report, metric: report.metrics[0], id: "a").svg, SequentialChart(report: report, metric: report.metrics[0], id: "b").svg,
            AllocationChart(report: report, id: "c").svg,
        ] {
            #expect(!svg.contains("<b>"))
            #expect(svg.contains("&lt;b&gt;on&lt;/b&gt;"))
        }
        #expect(LiftChart(report: report, metric: report.metrics[0], id: "a").svg.contains("Checkout &amp; &quot;pay&quot;"))
    }

    @Test
    func theSequentialChartDrawsEachDaysIntervalNarrowingAroundTheZeroLine() throws {
        let report = ExperimentReportTests.report(ExperimentReportTests.totals(daily: ExperimentReportTests.daily()))
        let chart = SequentialChart(report: report, metric: report.metrics[0], id: "seq")
        let svg = chart.svg
        // Four days analysed, the fifth had too few units.
        #expect(Self.count(#"<line class="interval"#, in: svg) == 4)
        #expect(Self.count(#"<circle class="estimate""#, in: svg) == 4)
        #expect(chart.summary.contains("1 day(s) had too few units for an analysis."))
        let zero = try Self.attribute("y1", after: #"<line class="zero""#, in: svg)
        #expect(abs(zero - chart.y(0)) < 0.06)
        var heights: [Double] = []
        for day in 0..<4 {
            let interval = try #require(report.days[day].intervals.first { $0.metric == "checkout" })
            let marker = #"data-day="\#(day)" x1=""#
            let x = try Self.attribute("x1", after: marker, in: svg)
            #expect(abs(x - chart.x(day: day, arm: 0)) < 0.06)
            let y1 = try Self.attribute("y1", after: marker, in: svg)
            let y2 = try Self.attribute("y2", after: marker, in: svg)
            #expect(abs(y1 - chart.y(interval.lower)) < 0.06)
            #expect(abs(y2 - chart.y(interval.upper)) < 0.06)
            heights.append(y1 - y2)
        }
        #expect(zip(heights, heights.dropFirst()).allSatisfy { $0 > $1 })
        // Days move right; the labels are the days.
        #expect(chart.x(day: 1, arm: 0) > chart.x(day: 0, arm: 0))
        #expect(svg.contains(">20 Nov</text>"))
        #expect(chart.title == "Always-valid interval of the difference in Checkout conversion from off, at the end of each day")
    }

    @Test
    func theAllocationChartDrawsObservedSharesAgainstThePlannedOnes() throws {
        let report = ExperimentReportTests.report(ExperimentReportTests.totals(off: 10_000, on: 9_000))
        let chart = AllocationChart(report: report, id: "units")
        let svg = chart.svg
        #expect(svg.contains(#"class="chart allocation-chart mismatch""#))
        let on = try #require(svg.range(of: #"data-arm="on""#))
        let rest = String(svg[on.lowerBound...])
        let width = try Self.attribute("width", after: #"<rect class="observed""#, in: rest)
        #expect(abs(width - 9_000.0 / 19_000 * AllocationChart.plotWidth) < 0.06)
        let planned = try Self.attribute("x1", after: #"<line class="planned""#, in: rest)
        #expect(abs(planned - (AllocationChart.left + 0.5 * AllocationChart.plotWidth)) < 0.06)
        #expect(rest.contains("9,000 · 47.4\u{00A0}% (planned 50\u{00A0}%)"))
        #expect(chart.summary.contains("Sample ratio mismatch: p = "))
        let even = AllocationChart(report: ExperimentReportTests.report(ExperimentReportTests.totals()), id: "u")
        #expect(!even.svg.contains("mismatch"))
        #expect(even.summary.contains("The split matches the allocation"))
    }
}
