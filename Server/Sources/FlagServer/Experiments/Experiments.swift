import FlagEvaluation
import FlagServerModel
import Foundation

/// The experiment operations the admin API and the console share: metrics, experiments and their
/// lifecycle, over the server's ``ExperimentStore`` (`Server/Docs/Experiments.md`).
struct Experiments: Sendable {
    let admin: FlagAdmin
    let store: any ExperimentStore
    let now: @Sendable () -> Date

    /// Most experiments a listing returns.
    static let listLimit = 1000

    // MARK: Metrics

    func metrics() async throws(AdminError) -> [ExperimentMetric] {
        do { return try await store.experimentMetrics() } catch { throw AdminError(store: error) }
    }

    func metric(key: String) async throws(AdminError) -> ExperimentMetric {
        guard let metric = try await metrics().first(where: { $0.key == key }) else { throw .notFound("metric \"\(key)\" does not exist") }
        return metric
    }

    /// Stores a new metric (version 1, not archived).
    func createMetric(_ metric: ExperimentMetric, actor: String) async throws(AdminError) -> ExperimentMetric {
        let metric = stamped(metric, archived: false, version: 1, actor: actor)
        let problems = metric.problems
        guard problems.isEmpty else { throw .invalid(problems) }
        do { try await store.insertExperimentMetric(metric) } catch { throw AdminError(store: error) }
        return metric
    }

    /// Replaces metric `key` (its key stays, and whether it is archived: see ``archiveMetric(key:archived:actor:)``).
    func updateMetric(_ metric: ExperimentMetric, actor: String) async throws(AdminError) -> ExperimentMetric {
        let stored = try await self.metric(key: metric.key)
        let metric = stamped(metric, archived: stored.archived, version: stored.version + 1, actor: actor)
        let problems = metric.problems
        guard problems.isEmpty else { throw .invalid(problems) }
        do { try await store.updateExperimentMetric(metric) } catch { throw AdminError(store: error) }
        return metric
    }

    /// Deletes a metric no draft or running experiment uses.
    func deleteMetric(key: String) async throws(AdminError) {
        try await checkUnused(key)
        do { try await store.deleteExperimentMetric(key: key) } catch { throw AdminError(store: error) }
    }

    /// Archives metric `key` (see ``ExperimentMetric/archived``), or restores it when `archived`
    /// is `false`: a new version, by `actor`. A metric a draft or running experiment uses is not
    /// archived (409, naming the experiment); archiving an archived metric, or restoring one that
    /// is not, changes nothing and answers it as it is.
    func archiveMetric(key: String, archived: Bool = true, actor: String) async throws(AdminError) -> ExperimentMetric {
        let stored = try await self.metric(key: key)
        guard stored.archived != archived else { return stored }
        if archived { try await checkUnused(key) }
        let metric = stamped(stored, archived: archived, version: stored.version + 1, actor: actor)
        do { try await store.updateExperimentMetric(metric) } catch { throw AdminError(store: error) }
        return metric
    }

    /// `metric` as stored by a write of `actor`: `archived`, `version`, updated now.
    private func stamped(_ metric: ExperimentMetric, archived: Bool, version: Int, actor: String) -> ExperimentMetric {
        var metric = metric
        metric.archived = archived
        metric.version = version
        metric.updatedAt = now()
        metric.updatedBy = actor
        return metric
    }

    /// Refuses (409) when a draft or running experiment names metric `key`.
    private func checkUnused(_ key: String) async throws(AdminError) {
        let users: [Experiment]
        do { users = try await store.experiments(environment: nil, limit: Int.max / 2) } catch { throw AdminError(store: error) }
        if let user = users.first(where: { ($0.status == .draft || $0.status == .running) && $0.metrics.contains(key) }) {
            throw .conflict("metric \"\(key)\" is used by \(user.status.rawValue) experiment \"\(user.id)\"; remove it there first")
        }
    }

    // MARK: Experiments

    func experiments(environment: String) async throws(AdminError) -> [Experiment] {
        try await checkEnvironment(environment)
        do { return try await store.experiments(environment: environment, limit: Self.listLimit) } catch { throw AdminError(store: error) }
    }

    func experiment(id: String, environment: String) async throws(AdminError) -> Experiment {
        try await checkEnvironment(environment)
        let found: Experiment?
        do { found = try await store.experiment(id: id) } catch { throw AdminError(store: error) }
        guard let found, found.environment == environment else {
            throw .notFound("experiment \"\(id)\" does not exist in environment \"\(environment)\"")
        }
        return found
    }

    func checkEnvironment(_ environment: String) async throws(AdminError) {
        guard await admin.state.environments[environment] != nil else { throw .notFound("environment \"\(environment)\" does not exist") }
    }

    /// The metrics by key.
    func metricsByKey() async throws(AdminError) -> [String: ExperimentMetric] {
        Dictionary(try await metrics().map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Stores a new draft.
    func create(_ experiment: Experiment) async throws(AdminError) -> Experiment {
        try await checkEnvironment(experiment.environment)
        let problems = experiment.problems(in: await admin.state, metrics: try await metricsByKey())
        guard problems.isEmpty else { throw .invalid(problems) }
        do { try await store.insertExperiment(experiment) } catch { throw AdminError(store: error) }
        return experiment
    }

    /// Changes a draft's definition with `edit`.
    func update(
        id: String, environment: String, actor: String, _ edit: @Sendable (inout Experiment) -> Void
    ) async throws(AdminError) -> Experiment {
        var experiment = try await self.experiment(id: id, environment: environment)
        guard experiment.status == .draft else {
            throw .conflict("experiment \"\(id)\" is \(experiment.status.rawValue); only a draft's definition changes")
        }
        edit(&experiment)
        experiment.id = id
        experiment.environment = environment
        let problems = experiment.problems(in: await admin.state, metrics: try await metricsByKey())
        guard problems.isEmpty else { throw .invalid(problems) }
        experiment.record(now(), actor, "updated")
        do { try await store.updateExperiment(experiment) } catch { throw AdminError(store: error) }
        return experiment
    }

    /// Deletes a draft or a stopped experiment (a running one is stopped first; a shipped one
    /// stays as the record of the decision).
    func delete(id: String, environment: String) async throws(AdminError) {
        let experiment = try await self.experiment(id: id, environment: environment)
        guard experiment.status == .draft || experiment.status == .stopped else {
            throw .conflict("experiment \"\(id)\" is \(experiment.status.rawValue); only a draft or a stopped experiment is deleted")
        }
        do { try await store.deleteExperiment(id: id) } catch { throw AdminError(store: error) }
    }

    /// Starts a draft, recording the flag's current allocation in its environment.
    func start(id: String, environment: String, actor: String) async throws(AdminError) -> Experiment {
        var experiment = try await self.experiment(id: id, environment: environment)
        let state = await admin.state
        let problems = experiment.problems(in: state, metrics: try await metricsByKey())
        guard problems.isEmpty else { throw .invalid(problems) }
        let allocation = ExperimentAllocation.current(flag: experiment.flag, environment: environment, in: state)
        try experiment.start(allocation: allocation, at: now(), by: actor)
        do { try await store.updateExperiment(experiment) } catch { throw AdminError(store: error) }
        announce(.experimentStarted, experiment, actor: actor, revision: nil, summary: "started (arms \(experiment.arms.joined(separator: ", ")))")
        return experiment
    }

    func stop(id: String, environment: String, actor: String, note: String?) async throws(AdminError) -> Experiment {
        var experiment = try await self.experiment(id: id, environment: environment)
        try experiment.stop(at: now(), by: actor, note: note)
        do { try await store.updateExperiment(experiment) } catch { throw AdminError(store: error) }
        announce(.experimentStopped, experiment, actor: actor, revision: nil, summary: "stopped" + (note.map { " (\($0))" } ?? ""))
        return experiment
    }

    /// Announces a step of `experiment`'s lifecycle (`experiment.started`, `.stopped`,
    /// `.shipped`), once the store holds it: the notification never reports a step that failed.
    private func announce(
        _ kind: ServerNotification.Kind, _ experiment: Experiment, actor: String, revision: Int?, summary: String
    ) {
        var details: [String: JSONValue] = [
            "experiment": .string(experiment.id), "status": .string(experiment.status.rawValue),
            "control": .string(experiment.control), "arms": .array(experiment.arms.map(JSONValue.string)),
        ]
        if let arm = experiment.shippedArm { details["arm"] = .string(arm) }
        admin.notifications.notify(ServerNotification(
            kind: kind, time: now(), actor: actor, environment: experiment.environment, flag: experiment.flag, revision: revision,
            summary: "\(experiment.flag): experiment \"\(experiment.id)\" \(summary)", details: details))
    }

    /// Makes `arm` the flag's default in the experiment's environment, as an audited revision (the
    /// serving rule's fractional split replaced by the arm), then ends the experiment as shipped.
    func ship(id: String, environment: String, arm: String, actor: String, reason: String?) async throws(AdminError) -> (Experiment, [String: Int]) {
        var experiment = try await self.experiment(id: id, environment: environment)
        var ended = experiment
        try ended.ship(arm: arm, at: now(), by: actor, note: reason)
        let flag = experiment.flag
        let revisions = try await admin.write(
            actor: actor, reason: reason ?? "ship experiment \"\(id)\": arm \"\(arm)\"", exempting: id
        ) { state throws(AdminError) in
            guard let settings = state.environments[environment]?.settings[flag] else {
                throw .notFound("flag \"\(flag)\" does not exist in environment \"\(environment)\"")
            }
            return [.putSettings(environment: environment, flag: flag, Self.shipped(arm, settings))]
        }
        experiment = ended
        if let revision = revisions[environment], let last = experiment.history.indices.last {
            experiment.history[last].note = (experiment.history[last].note ?? "") + " (revision \(revision))"
        }
        do { try await store.updateExperiment(experiment) } catch { throw AdminError(store: error) }
        announce(
            .experimentShipped, experiment, actor: actor, revision: revisions[environment],
            summary: "shipped with arm \"\(arm)\"" + (reason.map { " (\($0))" } ?? ""))
        return (experiment, revisions)
    }

    /// `settings` with `arm` as the default and the fractional split replaced by `arm`: the whole
    /// rule when it was the split (targeting removed), else the `if` branch that held it.
    static func shipped(_ arm: String, _ settings: FlagSettings) -> FlagSettings {
        var settings = settings
        settings.defaultVariant = arm
        switch settings.targeting {
        case .object(let members)? where members["fractional"] != nil && members.count == 1:
            settings.targeting = nil
        case .object(let members)?:
            if case .array(var branches)? = members["if"], branches.count >= 2, branches[1]["fractional"] != nil {
                branches[1] = .string(arm)
                var rule = members
                rule["if"] = .array(branches)
                settings.targeting = .object(rule)
            }
        default: break
        }
        return settings
    }

    // MARK: Results

    /// The report of experiment `id`: its totals from `results` (the ones counted in the
    /// background when at most `maximumAge` old, else counted now), analysed.
    func report(
        id: String, environment: String, results: ExperimentResultsCache, maximumAge: Duration
    ) async throws(AdminError) -> ExperimentReport {
        let experiment = try await self.experiment(id: id, environment: environment)
        let metrics = try await metrics()
        let query = experiment.resultsQuery(metrics: metrics)
        let totals: ExperimentTotals
        do { totals = try await results.totals(for: query, maximumAge: maximumAge) } catch { throw AdminError(store: error) }
        return ExperimentReport(query: query, totals: totals, settings: experiment.reportSettings(metrics: metrics))
    }

    /// The results queries of every running experiment, in every environment (what
    /// ``ExperimentResultsRefreshService`` counts).
    func runningResultsQueries() async throws(AdminError) -> [ExperimentResultsQuery] {
        let metrics = try await metrics()
        let all: [Experiment]
        do { all = try await store.experiments(environment: nil, limit: Self.listLimit) } catch { throw AdminError(store: error) }
        return all.filter { $0.status == .running }.map { $0.resultsQuery(metrics: metrics) }
    }
}
