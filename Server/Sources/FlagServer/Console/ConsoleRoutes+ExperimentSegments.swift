import FlagStatistics

/// The "Results by segment" section of an experiment's results page: links that ask for the units
/// split by app version or by platform, and per metric a table of each segment's arms.
extension ConsoleRoutes {
    /// The section's template values for `report`; `exportBase` is the path the export links add
    /// `.json` and `.csv` to.
    static func experimentSegmentContext(_ report: ExperimentReport, exportBase: String) -> [String: Any] {
        guard let segments = report.segments else { return [:] }
        let dimension = segments.dimension
        let query = "?segment=\(dimension.rawValue)&segments=\(segments.limit)"
        let other =
            segments.otherValues == 0
            ? ""
            : " The \(segments.otherValues) smaller \(dimension.words)s are pooled as \"other\"."
        let family = segments.comparisons
        let statement =
            "Each unit counts in the \(dimension.words) of its first exposure, for good (a unit that upgrades stays in its first segment). "
            + "Each segment is analysed like the whole experiment; an arm with fewer than \(ReportFormat.number(segments.minimumUnitsPerArm)) units in a segment gets no verdict there. "
            + "The \(family) always-valid p-value\(family == 1 ? " is" : "s of every segment, metric and arm are") adjusted together by \(segments.correction.name). "
            + "A segment's verdict is read at this look only; the pooled results above decide the experiment.\(other)"
        var context: [String: Any] = [
            "segmentDimension": dimension.rawValue, "segmentHeading": "By \(dimension.words)", "segmentStatement": statement,
            "segmentExportJSON": exportBase + ".json" + query, "segmentExportCSV": exportBase + ".csv" + query,
            "segmentDimensionWords": dimension.words,
        ]
        var tables: [[String: Any]] = []
        for (index, metric) in report.metrics.enumerated() {
            var rows: [[String: Any]] = []
            for segment in segments.segments {
                guard let figures = segment.metrics.first(where: { $0.key == metric.key }) else { continue }
                for arm in figures.arms {
                    var row: [String: Any] = [
                        "segment": segment.key, "segmentKind": segment.kind.rawValue, "arm": arm.arm, "control": arm.arm == report.control,
                        "units": ExperimentReport.number(arm.statistics.units), "mean": arm.mean.map { ReportFormat.number($0) } ?? "—",
                    ]
                    if let c = arm.comparison {
                        row["difference"] = ReportFormat.number(c.absolute.estimate)
                        row["interval"] = "[\(ReportFormat.number(c.sequential.lower)), \(ReportFormat.number(c.sequential.upper))]"
                        row["pValue"] = ReportFormat.pValue(c.sequential.pValue)
                        row["adjustedPValue"] = ReportFormat.pValue(c.sequential.adjustedPValue)
                    } else {
                        row["missing"] = arm.arm == report.control ? "the control" : (arm.notEnoughData ?? segment.problem ?? "no analysis yet")
                    }
                    if let decision = arm.decision {
                        row["decisionWords"] =
                            decision.state == .significant ? "Significant, \(decision.direction?.rawValue ?? "")" : decision.state.words
                        row["decisionClass"] = decisionClass(decision)
                        row["decisionState"] = decision.state.rawValue
                    }
                    rows.append(row)
                }
            }
            tables.append(["anchor": "m\(index)", "key": metric.key, "name": metric.name, "rows": rows])
        }
        context["segmentTables"] = tables
        return context
    }
}
