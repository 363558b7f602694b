import FlagStatistics

extension ConsoleRoutes {
    /// The template values of a percentile metric's comparison on the results page: a sentence
    /// saying what is compared, the note, and one row per arm with its inputs and figures.
    static func percentileContext(_ percentile: ExperimentReport.PercentileReport, metric: ExperimentReport.MetricReport, control: String)
        -> [String: Any]
    {
        let label = "p\(ReportFormat.number(percentile.percentile * 100))"
        func value(_ number: Double?) -> String { number.map(ReportFormat.number) ?? "—" }
        var context: [String: Any] = [
            "label": label,
            "statement":
                "Compared by the \(label) of each unit's value (the \(ReportFormat.number(percentile.percentile * 100))th percentile, "
                + "numpy's linear definition): the difference from \(control) with its distribution-free interval; this decides the metric. "
                + "The mean above is shown for reference.",
            "rows": percentile.arms.map { arm -> [String: Any] in
                let decision = metric.arms.first { $0.arm == arm.arm }?.decision
                var row: [String: Any] = [
                    "arm": arm.arm, "control": arm.arm == control, "units": ReportFormat.integer(arm.units),
                    "values": ReportFormat.integer(arm.values), "quantile": value(arm.quantile), "standardError": value(arm.standardError),
                    "decisionWords": decision?.state.words ?? "", "decisionClass": decision.map(decisionClass) ?? "",
                ]
                if let difference = arm.difference, let lower = arm.lower, let upper = arm.upper {
                    row["comparison"] = [
                        "difference": ReportFormat.number(difference),
                        "interval": "[\(ReportFormat.number(lower)), \(ReportFormat.number(upper))]",
                        "pValue": arm.pValue.map(ReportFormat.pValue) ?? "—", "adjustedPValue": arm.adjustedPValue.map(ReportFormat.pValue) ?? "—",
                    ]
                } else if arm.arm != control {
                    row["problem"] = arm.problem ?? "no comparison yet"
                }
                return row
            },
        ]
        if let note = percentile.note { context["note"] = note }
        return context
    }
}
