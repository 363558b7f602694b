import FlagServerModel
import SQLiteNIO

extension SQLiteEventMigrations {
    /// Each stored experiment unit's segment: the app version and platform of the batch that
    /// carried its first exposure. Units stored before have neither (`NULL`): their segment is
    /// "unknown" until an earlier first exposure of theirs arrives.
    static let experimentSegments = [
        "ALTER TABLE flag_event_experiment_units ADD COLUMN app_version TEXT",
        "ALTER TABLE flag_event_experiment_units ADD COLUMN platform TEXT",
    ]
}

/// Results by segment in the embedded event store: the experiment's stored units read once, on the
/// store's connection, and summed per segment.
extension SQLiteFlagEventStore: ExperimentSegmentStore {
    /// Reads every stored unit of `query.experiment` once, on the store's connection, and sums them per
    /// segment of `request.dimension`, capping as the totals did (`thresholds`: each percentile cap's
    /// pooled threshold).
    public func segmentTotals(
        _ query: ExperimentResultsQuery, request: ExperimentSegmentRequest, thresholds: [String: Double]
    ) async throws(StoreError) -> ExperimentSegmentTotals {
        let counter = ExperimentResultsCounter(query)
        let units = try await run {
            try await SQLiteExperimentSource(connection: connection, counter: counter).allUnits()
        }
        return counter.segmentTotals(units, request: request, thresholds: thresholds)
    }
}
