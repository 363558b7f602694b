import FlagServerModel

/// Results by segment for the admin API and the console (``ExperimentSegmentReport``).
extension Experiments {
    /// The report of experiment `id` (``report(id:environment:results:maximumAge:)``) with its
    /// results by segment when `segments` asks for them, read from `eventStore`'s stored units.
    ///
    /// The segments are read when asked for, from the units the latest count stored; the pooled
    /// figures may come from the background count (at most `maximumAge` old), so a segment's units
    /// can include a few the pooled figures do not count yet.
    func report(
        id: String, environment: String, results: ExperimentResultsCache, maximumAge: Duration,
        segments request: ExperimentSegmentRequest?, eventStore: (any FlagEventStore)?
    ) async throws(AdminError) -> ExperimentReport {
        var report = try await report(id: id, environment: environment, results: results, maximumAge: maximumAge)
        guard let request else { return report }
        guard let store = eventStore?.capabilities.experimentSegments else {
            throw .unavailable("this server's event store does not split experiment results by segment")
        }
        let experiment = try await self.experiment(id: id, environment: environment)
        let metrics = try await metrics()
        let query = experiment.resultsQuery(metrics: metrics)
        // A percentile cap is applied at the pooled threshold the report used.
        var thresholds: [String: Double] = [:]
        for metric in report.metrics { if let threshold = metric.cap?.threshold { thresholds[metric.key] = threshold } }
        let totals: ExperimentSegmentTotals
        do {
            totals = try await store.segmentTotals(query, request: request, thresholds: thresholds)
        } catch {
            throw AdminError(store: error)
        }
        report.segments = ExperimentSegmentReport(
            totals: totals, limit: request.limit, query: query, report: report, settings: experiment.reportSettings(metrics: metrics))
        return report
    }
}
