import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import Testing

/// The flag page's SVG chart: positions that follow the values and times, markers, text escaped.
struct InsightsChartTests {
    static let hour = FlagInsightsTests.hour
    static let start = FlagInsightsTests.start

    static func chart(
        _ rollups: [EvaluationRollup], hours: Int = 4, audit: [AuditEntry] = [], variants: [String] = ["on", "off"]
    ) throws -> InsightsChart {
        let range = try InsightsRange(from: start, to: start + Int64(hours) * hour, granularity: .hour)
        let insights = FlagInsights(
            environment: "production", flag: "checkout", variants: variants, range: range, rollups: rollups, unitCounts: [],
            lastEvaluated: nil, audit: audit)
        return InsightsChart(insights: insights, id: "chart")
    }

    /// The points of the polyline of `variant`.
    static func points(of variant: String, in svg: String) throws -> [(x: Double, y: Double)] {
        let marker = #"data-variant="\#(variant)" points=""#
        let range = try #require(svg.range(of: marker), "no line for \(variant) in \(svg)")
        return svg[range.upperBound...].prefix { $0 != "\"" }.split(separator: " ").map { pair in
            let numbers = pair.split(separator: ",").map { Double($0)! }
            return (numbers[0], numbers[1])
        }
    }

    @Test
    func pointsRiseWithTheValuesAndMoveRightWithTheBuckets() throws {
        let chart = try Self.chart([
            FlagInsightsTests.rollup(Self.start, "on", evaluations: 10),
            FlagInsightsTests.rollup(Self.start + Self.hour, "on", evaluations: 20),
            FlagInsightsTests.rollup(Self.start + 3 * Self.hour, "on", evaluations: 40),
            FlagInsightsTests.rollup(Self.start + 2 * Self.hour, "off", evaluations: 5),
        ])
        let svg = chart.svg
        let on = try Self.points(of: "on", in: svg)
        #expect(on.count == 4)
        // x: the middle of each bucket, evenly spaced over the plot.
        let width = InsightsChart.plotWidth / 4
        for (index, point) in on.enumerated() {
            #expect(abs(point.x - (InsightsChart.left + (Double(index) + 0.5) * width)) < 0.06)
        }
        // y: 40 is the top of a 0…40 scale; heights above the axis are proportional to the values.
        #expect(InsightsChart.scale(40) == (40, 10))
        let axis = InsightsChart.top + InsightsChart.plotHeight
        let heights = on.map { axis - $0.y }
        #expect(abs(heights[3] - InsightsChart.plotHeight) < 0.06)
        #expect(abs(heights[1] - 2 * heights[0]) < 0.2)
        #expect(abs(heights[3] - 4 * heights[0]) < 0.2)
        #expect(heights[2] == 0)
        let off = try Self.points(of: "off", in: svg)
        #expect(abs(axis - off[2].y - heights[0] / 2) < 0.2)
        // Each variant has its colour class.
        #expect(svg.contains(#"class="series series-0" data-variant="off""#))
        #expect(svg.contains(#"class="series series-1" data-variant="on""#))
    }

    @Test
    func theScaleIsARoundNumberAtOrAboveTheLargestValue() {
        #expect(InsightsChart.scale(0) == (4, 1))
        #expect(InsightsChart.scale(3) == (4, 1))
        #expect(InsightsChart.scale(7) == (8, 2))
        #expect(InsightsChart.scale(10) == (20, 5))
        #expect(InsightsChart.scale(1234) == (2000, 500))
        for value in [1, 9, 99, 101, 4_999, 123_456, 9_999_999] {
            let (top, step) = InsightsChart.scale(value)
            #expect(top >= value && top == 4 * step, "\(value)")
        }
    }

    @Test
    func revisionsAreMarkedAtTheirTimeWithTheirNumberAndWords() throws {
        let audit = [
            FlagInsightsTests.entry(7, at: Self.start + 2 * Self.hour, enabled: true, wasEnabled: false),
            FlagInsightsTests.entry(8, at: Self.start + 3 * Self.hour, enabled: false, wasEnabled: true, revertedTo: 2),
        ]
        let svg = try Self.chart([FlagInsightsTests.rollup(Self.start, "on", evaluations: 1)], audit: audit).svg
        // At 02:00 of a 00:00–04:00 range: the middle of the plot.
        let middle = (InsightsChart.left + InsightsChart.plotWidth / 2).svg
        #expect(svg.contains(#"<g class="marker" data-revisions="7">"#))
        #expect(svg.contains(#"<line x1="\#(middle)" x2="\#(middle)""#))
        #expect(svg.contains(">r7</text>"))
        #expect(svg.contains("<title>r7, 20 Nov 02:00 UTC, ana: turned checkout on in production: serves on</title>"))
        #expect(svg.contains(#"<g class="marker revert" data-revisions="8">"#))
        // In the description for screen readers too.
        #expect(svg.contains("Changes marked: r7 at 20 Nov 02:00, turned checkout on in production: serves on; r8 at 20 Nov 03:00"))
    }

    @Test
    func closeChangesShareAMarkerAndLabelsThatWouldOverlapUseTheSecondRow() throws {
        let minute: Int64 = 60_000
        // Over 4 hours a minute is about 3.8 units: 01:00 and 01:01 share a marker; 01:05's label
        // would overlap theirs and goes on the second row; 01:08 finds room on neither.
        let audit = [(1, 60), (2, 61), (3, 65), (4, 68)].map { revision, minutes in
            FlagInsightsTests.entry(revision, at: Self.start + Int64(minutes) * minute, enabled: revision % 2 == 1, wasEnabled: revision % 2 == 0)
        }
        let svg = try Self.chart([], audit: audit).svg
        let first = (InsightsChart.top - 10).svg
        let second = (InsightsChart.top - 10 - InsightsChart.labelRow).svg
        #expect(svg.contains(#"<g class="marker" data-revisions="1 2">"#))
        #expect(svg.contains(#"y="\#(first)" text-anchor="middle">r1–r2<"#))
        #expect(svg.contains("<title>r1, 20 Nov 01:00 UTC, ana: turned checkout on in production: serves on; r2, 20 Nov 01:01 UTC, ana: turned checkout off in production</title>"))
        #expect(svg.contains(#"y="\#(second)" text-anchor="middle">r3<"#))
        // No room on either row: the marker stays, its label is left to the list below the chart.
        #expect(svg.contains(#"data-revisions="4">"#))
        #expect(!svg.contains(">r4</text>"))
    }

    @Test
    func aLabelAtTheEdgeStaysInsideTheChart() throws {
        let svg = try Self.chart([], audit: [FlagInsightsTests.entry(9, at: Self.start, enabled: true, wasEnabled: false)]).svg
        // The line at the range's start; its label ("r9", 2 characters) moved right to fit.
        #expect(svg.contains(#"<line x1="\#(InsightsChart.left.svg)" x2="\#(InsightsChart.left.svg)""#))
        #expect(svg.contains(#"<text x="\#((InsightsChart.left + 12).svg)" y="\#((InsightsChart.top - 10).svg)" text-anchor="middle">r9</text>"#))
    }

    @Test
    func everyTextIsEscaped() throws {
        let hostile = #"<script>alert("x")</script>&'"#
        let chart = try Self.chart([FlagInsightsTests.rollup(Self.start, hostile, evaluations: 3)], variants: ["on"])
        let svg = chart.svg
        #expect(!svg.contains("<script>"))
        #expect(svg.contains(#"data-variant="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;""#))
        #expect(svg.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;: 3 evaluations"))
        let entry = AuditEntry(
            environment: "production", revision: 4, time: InsightsRange.date(Self.start + Self.hour), actor: "<img src=x>",
            reason: nil, subject: .flag, key: "checkout", before: nil, after: nil)
        let marked = try Self.chart([], audit: [entry]).svg
        #expect(!marked.contains("<img"))
        #expect(marked.contains("&lt;img src=x&gt;"))
    }

    @Test
    func theTitleAndDescriptionLabelTheImage() throws {
        let chart = try Self.chart([
            FlagInsightsTests.rollup(Self.start, "on", evaluations: 1200), FlagInsightsTests.rollup(Self.start + Self.hour, "on", evaluations: 34),
        ])
        let svg = chart.svg
        #expect(svg.hasPrefix(#"<svg class="chart" viewBox="0 0 1000 320" role="img" aria-labelledby="chart-title chart-desc""#))
        #expect(svg.contains(#"<title id="chart-title">Evaluations of checkout in production per hour, 20 Nov 00:00 to 20 Nov 04:00</title>"#))
        #expect(svg.contains(#"<desc id="chart-desc">on: 1,234 evaluations (at most 1,200 in one hour).</desc>"#))
        // A variant never evaluated draws no line; one bucket draws a dot.
        #expect(!svg.contains(#"data-variant="off""#))
        let dot = try Self.chart([FlagInsightsTests.rollup(Self.start, "on", evaluations: 2)], hours: 1).svg
        #expect(dot.contains(#"<circle class="series series-1" data-variant="on""#))
        // Axis labels: the y scale's ticks and the buckets' times.
        #expect(svg.contains(">2,000</text>"))
        #expect(svg.contains(">20 Nov 00:00</text>"))
    }

    @Test
    func numbersReadWell() {
        #expect(InsightsChart.number(0) == "0")
        #expect(InsightsChart.number(999) == "999")
        #expect(InsightsChart.number(1000) == "1,000")
        #expect(InsightsChart.number(-1_234_567) == "-1,234,567")
        #expect(InsightsChart.compact(95_000) == "95,000")
        #expect(InsightsChart.compact(250_000) == "250k")
        #expect(InsightsChart.compact(12_500_000) == "12.5M")
        #expect(InsightsChart.label(InsightsRange.date(Self.start + 13 * Self.hour), hourly: false) == "20 Nov")
        #expect(InsightsChart.label(InsightsRange.date(Self.start + 13 * Self.hour), hourly: true) == "20 Nov 13:00")
        #expect(InsightsChart.seriesClass(7) == "series-1 dashed")
    }
}
