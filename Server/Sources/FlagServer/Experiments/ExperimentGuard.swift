import FlagServerModel

/// Keeps a running experiment's allocation as it was at its start: a write that would change the
/// fractional split's variants or weights, its bucketing value, the segment condition in front of
/// it (or a segment that condition refers to), or the values of the split's variants is refused,
/// whatever path it takes (admin API, console, import, revert, change requests), because units
/// would move between arms mid-experiment and the results would mix two allocations.
///
/// Turning the flag off (the kill switch), metadata, other flags and other environments pass.
enum ExperimentGuard {
    /// Why the state `after` cannot be committed while `running` run, or `nil` when it can.
    /// Only the experiments whose flag or environment `delta` touched are checked; `exempting`
    /// is the experiment whose own action the write is.
    static func refusal(_ running: [Experiment], after: ServerState, changedBy delta: StateDelta, exempting: String?) -> String? {
        for experiment in running where experiment.id != exempting {
            let environment = experiment.environment
            let touched = delta.flags.contains(experiment.flag) || delta.settings[environment]?.contains(experiment.flag) == true
                || !(delta.segments[environment] ?? []).isEmpty || delta.environments.contains(environment)
            guard touched, let recorded = experiment.allocation else { continue }
            let next = ExperimentAllocation.current(flag: experiment.flag, environment: environment, in: after)
            guard next != recorded else { continue }
            let what = (next?.differences(from: recorded) ?? recorded.differences(from: nil)).joined(separator: ", ")
            return "experiment \"\(experiment.id)\" is running on flag \"\(experiment.flag)\" in environment \"\(environment)\","
                + " and this change alters its allocation (\(what.isEmpty ? "the fractional split" : what)): stop the experiment first"
                + " (POST /admin/v1/environments/\(environment)/experiments/\(experiment.id)/stop), or ship it;"
                + " to measure the new allocation, restart as a new experiment after the change"
        }
        return nil
    }
}

extension FlagAdmin {
    /// Refuses a write that would change a running experiment's allocation (``ExperimentGuard``).
    /// The running experiments are read from the store on every write that touches flags,
    /// settings or segments, so an experiment started on another replica holds here at once.
    func checkExperiments(_ after: ServerState, changedBy delta: StateDelta, exempting: String?) async throws(AdminError) {
        guard let experiments = store.capabilities.experiments,
            !delta.flags.isEmpty || !delta.settings.isEmpty || !delta.segments.isEmpty || !delta.environments.isEmpty
        else { return }
        let running: [Experiment]
        do { running = try await experiments.runningExperiments() } catch { throw AdminError(store: error) }
        if let message = ExperimentGuard.refusal(running, after: after, changedBy: delta, exempting: exempting) {
            throw .conflict(message)
        }
    }
}
