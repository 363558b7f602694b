import FlagServerModel
import PostgresNIO

extension PostgresEventMigrations {
    /// Each stored experiment unit's segment: the app version and platform of the batch that
    /// carried its first exposure. Units stored before have neither (`NULL`): their segment is
    /// "unknown" until an earlier first exposure of theirs arrives.
    static let experimentSegments = [
        "ALTER TABLE flag_event_experiment_units ADD COLUMN app_version TEXT, ADD COLUMN platform TEXT"
    ]
}

/// Results by segment in the shared event store: the experiment's stored units read in one
/// statement (one snapshot, so a concurrent update is seen whole or not at all) and summed per
/// segment.
extension PostgresFlagEventStore: ExperimentSegmentStore {
    /// Reads every stored unit of `query.experiment` in one statement (one snapshot: a concurrent update
    /// is seen whole or not at all) and sums them per segment of `request.dimension`, capping as the
    /// totals did (`thresholds`: each percentile cap's pooled threshold).
    public func segmentTotals(
        _ query: ExperimentResultsQuery, request: ExperimentSegmentRequest, thresholds: [String: Double]
    ) async throws(StoreError) -> ExperimentSegmentTotals {
        let counter = ExperimentResultsCounter(query)
        let units = try await run { [logger] in
            try await client.withConnection { connection in
                try await PostgresExperimentSource(connection: connection, counter: counter, logger: logger).allUnits()
            }
        }
        return counter.segmentTotals(units, request: request, thresholds: thresholds)
    }
}
