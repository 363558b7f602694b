import FlagServerModel
import FlagStatistics
import Foundation
import Hummingbird

/// The console's results page of an experiment (`experiment-report.mustache`): its status and
/// hypothesis, the decision, units per arm against the allocation with the sample ratio check, per
/// metric the lift and sequential charts and a table of every figure with its inputs, the
/// Benjamini–Hochberg statement and the export links. The route that serves it comes with the
/// experiments themselves; this renders an ``ExperimentReport`` however it was built.
extension ConsoleRoutes {
    /// The page for `report`, with the header of `visitor`; `exportBase` is the path the export
    /// links add `.json` and `.csv` to.
    func experimentReportPage(_ report: ExperimentReport, visitor: Visitor?, exportBase: String) -> Response {
        renderer.page(
            "experiment-report",
            layout(visitor, title: "Experiment \(report.experiment)", section: "flags")
                .merging(Self.experimentReportContext(report, exportBase: exportBase)) { $1 })
    }

    /// The template values of `report` (every text escaped by the template; the charts are SVG
    /// whose texts ``ExperimentCharts`` escaped).
    static func experimentReportContext(_ report: ExperimentReport, exportBase: String) -> [String: Any] {
        var context: [String: Any] = [
            "experiment": report.experiment, "flag": report.flag, "environment": report.environment,
            "flagHref": "/console/flags/\(escaped(report.flag))?environment=\(escaped(report.environment))",
            "status": report.status, "control": report.control,
            "countedThrough": shortTime(Date(timeIntervalSince1970: Double(report.countedThrough) / 1000)),
            "started": shortTime(Date(timeIntervalSince1970: Double(report.start) / 1000)),
            "decisionWords": report.decision.state.words, "decisionText": report.decision.text,
            "decisionClass": decisionClass(report.decision), "decisionState": report.decision.state.rawValue,
            "alpha": ReportFormat.number(report.alpha),
            "unitsChart": AllocationChart(report: report, id: "units-chart").svg,
            "exportJSON": exportBase + ".json", "exportCSV": exportBase + ".csv",
            "bhStatement": bhStatement(report), "correctionName": (report.correction ?? .bh).name,
            "methods": report.analysis?.methods ?? [], "hasMethods": report.analysis != nil,
        ]
        if !report.hypothesis.isEmpty { context["hypothesis"] = report.hypothesis }
        if let ended = report.end { context["ended"] = shortTime(Date(timeIntervalSince1970: Double(ended) / 1000)) }
        if let problem = report.problem { context["problem"] = problem }
        let totalUnits = report.units.reduce(0) { $0 + $1.units }
        context["totalUnits"] = ReportFormat.integer(totalUnits)
        context["units"] = report.units.map { arm -> [String: Any] in
            [
                "arm": arm.arm, "control": arm.arm == report.control, "units": ReportFormat.integer(arm.units),
                "share": ReportFormat.percent(arm.observedShare), "planned": ReportFormat.percent(arm.plannedShare),
                "expected": report.sampleRatio?.expected[arm.arm].map { ReportFormat.number($0) } ?? "—",
                "reassigned": ReportFormat.integer(arm.reassigned),
            ]
        }
        let reassigned = report.units.reduce(0) { $0 + $1.reassigned }
        if reassigned > 0 {
            context["reassignedNote"] =
                "\(ReportFormat.integer(reassigned)) unit(s) were later served another arm than their first; they stay counted in their first arm only. Many reassignments point to an allocation changed while the experiment ran, or to units that share a targeting key."
        }
        if let check = report.sampleRatio {
            context["srmText"] =
                "Sample ratio check: χ² = \(ReportFormat.number(check.chiSquared)) with \(ReportFormat.number(check.degreesOfFreedom)) degree(s) of freedom, p = \(ReportFormat.pValue(check.pValue)); a p-value below \(ReportFormat.number(check.threshold)) is a mismatch."
            if check.mismatch { context["srmWarning"] = report.decision.text }
        } else {
            context["srmText"] = "No sample ratio check yet: no units have been counted."
        }
        context["metrics"] = report.metrics.enumerated().map { index, metric in metricContext(report, metric, index: index) }
        context.merge(experimentSegmentContext(report, exportBase: exportBase)) { $1 }
        return context
    }

    static func decisionClass(_ decision: ExperimentReport.Decision) -> String {
        switch decision.state {
        case .keepCollecting: "neutral"
        case .significant: decision.direction == .worse ? "worse" : decision.direction == .better ? "better" : "mixed"
        case .guardrailHarmed, .sampleRatioMismatch: "worse"
        }
    }

    static func bhStatement(_ report: ExperimentReport) -> String {
        let count = report.comparisons
        let correction = report.correction ?? .bh
        let controls =
            switch correction {
            case .bh, .dunnett:
                "which keeps the expected share of false discoveries among the significant results at or below α = \(ReportFormat.number(report.alpha))"
            case .holm:
                "which keeps the chance of any false finding among them at or below α = \(ReportFormat.number(report.alpha)), whatever their dependence"
            }
        return "\(count) comparison\(count == 1 ? "" : "s") (\(report.metrics.count) metric\(report.metrics.count == 1 ? "" : "s") × \(max(0, report.arms.count - 1)) arm\(report.arms.count == 2 ? "" : "s") against \(report.control)) "
            + "are judged together: every p-value is adjusted by \(correction.name) across all \(count), \(controls) (the experiment's correction). "
            + "A result is significant when its adjusted always-valid p-value is at most α; the fixed-horizon p-values are shown, adjusted the same way, for those who analyse once at a planned end."
    }

    /// The sentence saying how a metric's values were capped and how many units of each arm were.
    static func capText(_ cap: ExperimentReport.CapReport, arms: [String]) -> String {
        let counts = arms.map { arm in
            let count = cap.cappedUnits[arm] ?? 0
            return "\(count) \(count == 1 ? "unit" : "units") in \(arm)"
        }.joined(separator: ", ")
        if let percentile = cap.percentile {
            let share = ReportFormat.number(percentile * 100)
            guard let threshold = cap.threshold else {
                return "Each unit's value is capped at the \(share)th percentile of all units' values; no unit is counted yet."
            }
            return "Each unit's value is capped at \(ReportFormat.number(threshold)), the \(share)th percentile of all units' values (arms pooled): \(counts) above it."
        }
        return "Each unit's value is capped at \(ReportFormat.number(cap.threshold ?? cap.value ?? 0)): \(counts) above it."
    }

    static func metricContext(_ report: ExperimentReport, _ metric: ExperimentReport.MetricReport, index: Int) -> [String: Any] {
        let kind =
            switch metric.kind {
            case .conversion: "Share of units that sent"
            case .mean: "Mean value per unit of"
            case .count: "Events per unit of"
            case .ratio: "Ratio per unit of"
            }
        var context: [String: Any] = [
            "anchor": "m\(index)", "key": metric.key, "name": metric.name, "event": metric.event, "kindWords": kind,
            "guardrail": metric.guardrail, "direction": metric.higherIsBetter ? "higher is better" : "lower is better",
            "decisionWords": metric.decision.state.words, "decisionText": metric.decision.text,
            "decisionClass": decisionClass(metric.decision), "decisionState": metric.decision.state.rawValue,
            "liftChart": LiftChart(report: report, metric: metric, id: "lift-m\(index)").svg,
            "liftTitle": LiftChart(report: report, metric: metric, id: "lift-m\(index)").title,
            "hasCovariate": metric.arms.contains { $0.statistics.covariateSum != nil },
        ]
        if !report.days.isEmpty {
            let chart = SequentialChart(report: report, metric: metric, id: "sequential-m\(index)")
            context["sequentialChart"] = chart.svg
            context["sequentialTitle"] = chart.title
        }
        if let cuped = metric.cuped {
            context["cuped"] =
                "CUPED applied: θ = \(ReportFormat.number(cuped.theta)), pooled pre-exposure mean \(ReportFormat.number(cuped.covariateMean)), \(ReportFormat.percent(cuped.varianceReduction)) of the variance of the means removed."
        }
        if let cap = metric.cap { context["capText"] = capText(cap, arms: report.arms) }
        if let percentile = metric.percentile { context["percentile"] = percentileContext(percentile, metric: metric, control: report.control) }
        func interval(_ lower: Double, _ upper: Double, _ format: (Double) -> String) -> String {
            "[\(format(lower)), \(format(upper))]"
        }
        context["rows"] = metric.arms.map { arm -> [String: Any] in
            let s = arm.statistics
            var row: [String: Any] = [
                "arm": arm.arm, "control": arm.arm == report.control, "units": ExperimentReport.number(s.units),
                "sum": ExperimentReport.number(s.sum), "sumOfSquares": ExperimentReport.number(s.sumOfSquares).isEmpty ? "—" : ExperimentReport.number(s.sumOfSquares),
                "covariateSum": ExperimentReport.number(s.covariateSum), "covariateSumOfSquares": ExperimentReport.number(s.covariateSumOfSquares),
                "sumOfProducts": ExperimentReport.number(s.sumOfProducts),
                "mean": arm.mean.map { ReportFormat.number($0) } ?? "—",
            ]
            if let c = arm.comparison {
                row["comparison"] = [
                    "difference": ReportFormat.number(c.absolute.estimate),
                    "differenceInterval": interval(c.absolute.lower, c.absolute.upper, ReportFormat.number),
                    "pValue": ReportFormat.pValue(c.absolute.pValue), "adjustedPValue": ReportFormat.pValue(c.adjustedPValue),
                    "relative": c.relative.map { ReportFormat.change($0.estimate) } ?? "—",
                    "relativeInterval": c.relative.map { interval($0.lower, $0.upper, ReportFormat.change) } ?? "",
                    "sequentialInterval": interval(c.sequential.lower, c.sequential.upper, ReportFormat.number),
                    "sequentialPValue": ReportFormat.pValue(c.sequential.pValue),
                    "sequentialAdjustedPValue": ReportFormat.pValue(c.sequential.adjustedPValue),
                    "chance": ReportFormat.percent(c.bayesian.chanceToBeatControl),
                    "expectedLoss": ReportFormat.number(c.bayesian.expectedLoss),
                ] as [String: Any]
            }
            if let decision = arm.decision {
                row["decisionWords"] = decision.state == .significant ? "Significant, \(decision.direction?.rawValue ?? "")" : decision.state.words
                row["decisionClass"] = decisionClass(decision)
            }
            return row
        }
        return context
    }
}
