@testable import FlagServer
@testable import FlagServerModel
import FlagStatistics
import Foundation
import Testing

/// The console's results page rendered from hand-built reports: every decision state, the
/// sample ratio warning, the charts and tables, the statement and the export links, text escaped.
struct ExperimentReportPageTests {
    static func render(_ report: ExperimentReport) async throws -> String {
        let renderer = try await ConsoleRenderer.load()
        let context = ConsoleRoutes.experimentReportContext(report, exportBase: "/console/experiments/exp-1/export")
            .merging(["title": "Experiment \(report.experiment)"]) { $1 }
        return renderer.html("experiment-report", context)
    }

    static func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    @Test
    func aSignificantExperimentShowsItsDecisionChartsNumbersAndExports() async throws {
        let report = ExperimentReportTests.report(ExperimentReportTests.totals(checkout: (500, 700), daily: ExperimentReportTests.daily()))
        let page = try await Self.render(report)
        #expect(page.contains(#"<h1 id="experiment-heading">Experiment exp-1</h1>"#))
        #expect(page.contains(#"<a href="/console/flags/checkout?environment=production">checkout</a> in production"#))
        #expect(page.contains(#"<span id="experiment-status">Running since 20 Nov</span>"#))
        #expect(page.contains("<strong>Hypothesis:</strong> The one-page checkout sells more."))
        #expect(page.contains(#"<section class="decision better" id="experiment-decision" data-state="significant""#))
        #expect(page.contains(#"<h2 id="experiment-decision-heading">Significant</h2>"#))
        // Units against the allocation, no warning.
        #expect(!page.contains("srm-warning"))
        #expect(page.contains(#"<svg class="chart allocation-chart" "#))
        #expect(page.contains("<tr><th scope=\"row\">on</th><td>10,000</td><td>50\u{00A0}%</td><td>50\u{00A0}%</td><td>10,000</td><td>3</td></tr>"))
        #expect(page.contains(#"id="reassigned-note""#))
        // Per metric: both charts, the table with the inputs, the decision line.
        #expect(Self.count(#"<svg class="chart lift-chart""#, in: page) == 2)
        #expect(Self.count(#"<svg class="chart sequential-chart""#, in: page) == 2)
        #expect(page.contains(#"<h3 class="chart-heading">Relative lift of Checkout conversion against off, with intervals at α = 0.05</h3>"#))
        #expect(page.contains(#"<h3 class="chart-heading">Always-valid interval of the difference in Crashes per user from off, at the end of each day</h3>"#))
        #expect(page.contains(#"<p class="decision-line better" data-state="significant"><strong>Significant.</strong> on is better than off on Checkout conversion"#))
        #expect(page.contains(#"<h2 id="metric-m1-heading">Crashes per user <span class="tag guardrail">guardrail</span></h2>"#))
        let comparison = try #require(report.metrics[0].arms[1].comparison)
        #expect(page.contains("<tr data-arm=\"on\"><th scope=\"row\">on</th><td>10000</td><td>700</td><td>—</td><td>0.07</td>"))
        #expect(page.contains("<td>\(ReportFormat.number(comparison.absolute.estimate)) [\(ReportFormat.number(comparison.absolute.lower)), \(ReportFormat.number(comparison.absolute.upper))]</td>"))
        #expect(page.contains("<td>[\(ReportFormat.number(comparison.sequential.lower)), \(ReportFormat.number(comparison.sequential.upper))]</td>"))
        #expect(page.contains("<td class=\"better\">Significant, better</td>"))
        #expect(page.contains("<td colspan=\"7\" class=\"hint\">the control</td>"))
        // The Benjamini–Hochberg statement, the methods and the exports.
        #expect(page.contains("2 comparisons (2 metrics × 1 arm against off) are judged together: every p-value is adjusted by Benjamini–Hochberg across all 2"))
        #expect(page.contains(#"<ul id="methods"><li>Absolute difference: Welch"#))
        #expect(page.contains(#"<a class="button" href="/console/experiments/exp-1/export.json" id="export-json">JSON</a>"#))
        #expect(page.contains(#"<a class="button" href="/console/experiments/exp-1/export.csv" id="export-csv">CSV</a>"#))
    }

    @Test
    func everyDecisionStateIsShownInWordsAndClass() async throws {
        let cases: [(ExperimentTotals, String, String, String)] = [
            (ExperimentReportTests.totals(), "neutral", "keep-collecting", "Keep collecting"),
            (ExperimentReportTests.totals(checkout: (700, 500)), "worse", "significant", "Significant"),
            (ExperimentReportTests.totals(checkout: (500, 700), crashes: (1000, 1400)), "worse", "guardrail-harmed", "Guardrail harmed"),
            (ExperimentReportTests.totals(off: 10_000, on: 9_000, checkout: (500, 700)), "worse", "sample-ratio-mismatch", "Sample ratio mismatch — no decision"),
        ]
        for (totals, tone, state, words) in cases {
            let report = ExperimentReportTests.report(totals)
            let page = try await Self.render(report)
            #expect(page.contains(#"<section class="decision \#(tone)" id="experiment-decision" data-state="\#(state)""#), "\(state)")
            #expect(page.contains(#"<h2 id="experiment-decision-heading">\#(words)</h2>"#), "\(state)")
            #expect(page.contains(#"id="srm-warning""#) == (state == "sample-ratio-mismatch"), "\(state)")
        }
        let mismatch = try await Self.render(ExperimentReportTests.report(ExperimentReportTests.totals(off: 10_000, on: 9_000, checkout: (500, 700))))
        #expect(mismatch.contains(#"<svg class="chart allocation-chart mismatch" "#))
        #expect(Self.count(#"data-state="sample-ratio-mismatch""#, in: mismatch) == 3)
        #expect(mismatch.contains("<td class=\"worse\">Sample ratio mismatch — no decision</td>"))
    }

    @Test
    func aReportWithoutAnAnalysisSaysWhy() async throws {
        let report = ExperimentReportTests.report(ExperimentReportTests.totals(off: 1, on: 1, checkout: (0, 1), crashes: (0, 0)))
        let page = try await Self.render(report)
        #expect(page.contains(#"<p class="note" id="experiment-problem" role="note">No analysis yet: metrics[0].arms."#))
        #expect(page.contains("<td colspan=\"7\" class=\"hint\">no analysis yet</td>"))
        #expect(!page.contains(#"id="methods""#))
        #expect(!page.contains("sequential-chart"))
        #expect(page.contains("No analysis yet."))
    }

    @Test
    func everyTextIsEscaped() async throws {
        let query = ExperimentReportTests.query(arms: ["off", "\"><img src=x>"])
        var totals = ExperimentReportTests.totals()
        totals.units = ["off": 10_000, "\"><img src=x>": 10_000]
        for key in totals.metrics.keys { totals.metrics[key]!["\"><img src=x>"] = totals.metrics[key]!["on"] }
        var settings = ExperimentReportTests.settings(allocation: ["off": 1, "\"><img src=x>": 1])
        settings.hypothesis = "<script>alert(1)</script>"
        settings.status = "Running <b>now</b>"
        settings.metrics["checkout"]?.name = "Checkout <i>&</i>"
        let report = ExperimentReport(query: query, totals: totals, settings: settings)
        let page = try await Self.render(report)
        #expect(!page.contains("<script>alert"))
        #expect(!page.contains("<img src=x>"))
        #expect(!page.contains("<b>now</b>"))
        #expect(!page.contains("<i>&</i>"))
        #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(page.contains("Checkout &lt;i&gt;&amp;&lt;/i&gt;"))
    }
}
