import FlagServerModel
import FlagStatistics
import Foundation

// What the event stores and the report need of an experiment: their types are in this module,
// the experiment is a model type (FlagServerModel).
extension Experiment {
    /// What an event store needs to count the experiment's results, with the experiment's
    /// metrics among `metrics` (in the experiment's order; unknown keys are left out).
    public func resultsQuery(metrics known: [ExperimentMetric]) -> ExperimentResultsQuery {
        let byKey = Dictionary(known.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        return ExperimentResultsQuery(
            experiment: id, environment: environment, flag: flag, arms: arms,
            start: Int64(((startedAt ?? createdAt).timeIntervalSince1970 * 1000).rounded(.down)),
            end: endedAt.map { Int64(($0.timeIntervalSince1970 * 1000).rounded(.down)) },
            metrics: metrics.compactMap { byKey[$0]?.queryMetric })
    }

    /// How the report judges and shows the experiment.
    public func reportSettings(metrics known: [ExperimentMetric]) -> ExperimentReport.Settings {
        var settings: [String: ExperimentReport.MetricSettings] = [:]
        for metric in known where metrics.contains(metric.key) { settings[metric.key] = metric.reportSettings }
        let shares = armShares
        let words: String
        switch status {
        case .draft: words = "Draft"
        case .running: words = "Running"
        case .stopped: words = "Stopped"
        case .shipped: words = "Shipped" + (shippedArm.map { " (\($0))" } ?? "")
        }
        return ExperimentReport.Settings(
            control: control, allocation: shares.isEmpty ? Dictionary(uniqueKeysWithValues: arms.map { ($0, 1.0) }) : shares,
            alpha: alpha, status: words, hypothesis: hypothesis, metrics: settings, correction: correction ?? .bh)
    }
}
