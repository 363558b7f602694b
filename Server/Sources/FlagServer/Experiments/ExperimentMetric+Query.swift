import FlagServerModel

// A metric as the event stores count it and as the report shows it: their types are in this
// module, the metric is a model type (FlagServerModel).
extension ExperimentMetric {
    /// The metric as an event store counts it.
    public var queryMetric: ExperimentResultsQuery.Metric {
        ExperimentResultsQuery.Metric(
            key: key, event: event, kind: kind, window: Int64(windowHours) * 3_600_000, covariate: cuped, cap: cap?.queryCap,
            percentile: percentile, ratio: ratio)
    }

    /// How the results page names and judges it.
    public var reportSettings: ExperimentReport.MetricSettings {
        ExperimentReport.MetricSettings(name: name, higherIsBetter: higherIsBetter, guardrail: guardrail)
    }
}

extension MetricCap {
    /// The cap as a results query takes it (a valid cap).
    var queryCap: ExperimentResultsQuery.Cap? {
        if let value { return .value(value) }
        if let percentile { return .percentile(percentile) }
        return nil
    }
}
