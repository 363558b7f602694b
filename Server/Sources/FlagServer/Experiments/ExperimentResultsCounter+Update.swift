/// What ``ExperimentResultsCounter/update(state:through:source:)`` reads from a store: raw rows
/// by insertion order (the batch sequence), and the experiment's stored units.
protocol ExperimentResultsSource: Sendable {
    /// Qualifying-candidate exposures (the query's environment and flag, a unit) of the batches in
    /// `after + 1 ... through`, in arrival order.
    func exposures(after: Int64, through: Int64) async throws -> [ExperimentResultsCounter.Exposure]
    /// Tracked events of the query's environment with a unit and one of the metrics' names, of
    /// the batches in `after + 1 ... through`.
    func events(after: Int64, through: Int64) async throws -> [ExperimentResultsCounter.Event]
    /// The same, of the batches up to `through`, of the units `units` only.
    func events(of units: [String], through: Int64) async throws -> [ExperimentResultsCounter.Event]
    /// The stored units among `units`.
    func units(_ units: [String]) async throws -> [String: ExperimentResultsCounter.Unit]
    /// Every stored unit of the experiment (read when a metric has a percentile cap).
    func allUnits() async throws -> [ExperimentResultsCounter.Unit]
    /// Arm → at most `limit` of its stored units, those with the lowest
    /// ``ExperimentResultsCounter/sampleKey(of:)`` (read when a metric is a percentile metric).
    func samples(limit: Int) async throws -> [String: [ExperimentResultsCounter.Unit]]
}

extension ExperimentResultsCounter {
    /// What one update changes: the new state, the units to write, and whether the stored units
    /// must all be deleted first (the query changed: everything is recounted).
    struct Update: Sendable {
        var state: State
        var changed: [String: Unit]
        var restarted: Bool
    }

    /// Counts the batches after `state`'s watermark through `through`: the units with new
    /// exposures are (re)assigned, those new or whose first exposure moved get their values
    /// recounted from the events received before, the new events are added to the units they
    /// belong to, and each touched unit's contribution moves the sums by its delta.
    ///
    /// A `state` of another query (or none) starts over from watermark 0.
    func update(state stored: State?, through: Int64, source: some ExperimentResultsSource) async throws -> Update {
        let restarted = stored?.query != Self.key(of: query)
        var state = restarted ? emptyState() : stored ?? emptyState()
        guard through > state.watermark else { return Update(state: state, changed: [:], restarted: restarted) }
        let exposures = try await source.exposures(after: state.watermark, through: through)
        let events = try await source.events(after: state.watermark, through: through)
        var touched = Set<String>()
        for exposure in exposures where qualifies(exposure) { touched.insert(exposure.unit) }
        for event in events where metricsByEvent[event.name] != nil { touched.insert(event.unit) }
        let before = restarted || touched.isEmpty ? [:] : try await source.units(touched.sorted())
        var units = before
        let recount = assign(exposures, to: &units)
        if state.watermark > 0, !recount.isEmpty {
            add(try await source.events(of: recount.sorted(), through: state.watermark), to: &units, only: recount)
        }
        add(events, to: &units)
        var changed: [String: Unit] = [:]
        for key in touched {
            guard let new = units[key], new != before[key] else { continue }
            apply(old: before[key], new: new, to: &state.cohorts)
            changed[key] = new
        }
        state.watermark = through
        return Update(state: state, changed: changed, restarted: restarted)
    }
}
