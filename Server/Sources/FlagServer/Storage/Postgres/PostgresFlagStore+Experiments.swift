import FlagServerModel
import Foundation
import Logging
import PostgresNIO

extension PostgresFlagStore: ExperimentStore {
    /// The `document` column of every row `query` returns.
    private func documents(_ query: PostgresQuery) async throws(StoreError) -> [String] {
        try await run { [logger] in
            try await client.withConnection { connection in
                var documents: [String] = []
                for try await document in try await connection.query(query, logger: logger).decode(String.self) {
                    documents.append(document)
                }
                return documents
            }
        }
    }

    /// Runs `query`, which returns a row when it changed something; `false` when it returned none.
    private func changed(_ query: PostgresQuery) async throws(StoreError) -> Bool {
        try await run { [logger] in
            try await client.withConnection { connection in
                var changed = false
                for try await _ in try await connection.query(query, logger: logger) { changed = true }
                return changed
            }
        }
    }

    /// Every metric, by key.
    public func experimentMetrics() async throws(StoreError) -> [ExperimentMetric] {
        var metrics: [ExperimentMetric] = []
        for document in try await documents("SELECT document FROM experiment_metrics ORDER BY key") {
            metrics.append(try ExperimentDocument.decode(ExperimentMetric.self, document))
        }
        return metrics
    }

    /// Adds `metric`; an existing key is refused (``StoreError/conflict(_:)``).
    public func insertExperimentMetric(_ metric: ExperimentMetric) async throws(StoreError) {
        let document = try ExperimentDocument.encode(metric, "metric \(metric.key)")
        let inserted = try await changed(
            """
            INSERT INTO experiment_metrics (key, version, document) VALUES (\(metric.key), \(metric.version), \(document))
            ON CONFLICT (key) DO NOTHING RETURNING key
            """)
        guard inserted else { throw .conflict("metric \"\(metric.key)\" exists already") }
    }

    /// Replaces the metric in one statement conditioned on the stored version being one less than `metric`'s.
    public func updateExperimentMetric(_ metric: ExperimentMetric) async throws(StoreError) {
        let document = try ExperimentDocument.encode(metric, "metric \(metric.key)")
        // Compare-and-set on the version.
        let updated = try await changed(
            """
            UPDATE experiment_metrics SET version = \(metric.version), document = \(document)
            WHERE key = \(metric.key) AND version = \(metric.version - 1) RETURNING key
            """)
        guard !updated else { return }
        let exists = try await changed("SELECT key FROM experiment_metrics WHERE key = \(metric.key)")
        throw exists ? .conflict("metric \"\(metric.key)\" changed meanwhile; read it again") : .notFound("metric \"\(metric.key)\"")
    }

    /// Deletes the metric; throws ``StoreError/notFound(_:)`` when there is none.
    public func deleteExperimentMetric(key: String) async throws(StoreError) {
        guard try await changed("DELETE FROM experiment_metrics WHERE key = \(key) RETURNING key") else {
            throw .notFound("metric \"\(key)\"")
        }
    }

    /// Adds `experiment`; an existing id is refused (``StoreError/conflict(_:)``).
    public func insertExperiment(_ experiment: Experiment) async throws(StoreError) {
        let document = try ExperimentDocument.encode(experiment, "experiment \(experiment.id)")
        let inserted = try await changed(
            """
            INSERT INTO experiments (id, environment, flag, status, created_at, version, document)
            VALUES (\(experiment.id), \(experiment.environment), \(experiment.flag), \(experiment.status.rawValue),
                    \(experiment.createdAt.timeIntervalSince1970), \(experiment.version), \(document))
            ON CONFLICT (id) DO NOTHING RETURNING id
            """)
        guard inserted else { throw .conflict("experiment \"\(experiment.id)\" exists already") }
    }

    /// The experiment `id`; `nil` when there is none.
    public func experiment(id: String) async throws(StoreError) -> Experiment? {
        try await documents("SELECT document FROM experiments WHERE id = \(id)").first.map { stored throws(StoreError) in
            try ExperimentDocument.decode(Experiment.self, stored)
        }
    }

    /// The newest `limit` experiments, of `environment` only when given, newest first.
    public func experiments(environment: String?, limit: Int) async throws(StoreError) -> [Experiment] {
        let stored: [String]
        if let environment {
            stored = try await documents(
                "SELECT document FROM experiments WHERE environment = \(environment) ORDER BY created_at DESC, id DESC LIMIT \(limit)")
        } else {
            stored = try await documents("SELECT document FROM experiments ORDER BY created_at DESC, id DESC LIMIT \(limit)")
        }
        var experiments: [Experiment] = []
        for document in stored { experiments.append(try ExperimentDocument.decode(Experiment.self, document)) }
        return experiments
    }

    /// Every running experiment, by id.
    public func runningExperiments() async throws(StoreError) -> [Experiment] {
        var experiments: [Experiment] = []
        let running = Experiment.Status.running.rawValue
        for document in try await documents("SELECT document FROM experiments WHERE status = \(running) ORDER BY id") {
            experiments.append(try ExperimentDocument.decode(Experiment.self, document))
        }
        return experiments
    }

    /// Replaces the experiment in one statement conditioned on the stored version being one less than `experiment`'s.
    public func updateExperiment(_ experiment: Experiment) async throws(StoreError) {
        let document = try ExperimentDocument.encode(experiment, "experiment \(experiment.id)")
        let updated = try await changed(
            """
            UPDATE experiments SET status = \(experiment.status.rawValue), version = \(experiment.version), document = \(document)
            WHERE id = \(experiment.id) AND version = \(experiment.version - 1) RETURNING id
            """)
        guard !updated else { return }
        let exists = try await changed("SELECT id FROM experiments WHERE id = \(experiment.id)")
        throw exists
            ? .conflict("experiment \"\(experiment.id)\" changed meanwhile; read it again") : .notFound("experiment \"\(experiment.id)\"")
    }

    /// Deletes the experiment; throws ``StoreError/notFound(_:)`` when there is none.
    public func deleteExperiment(id: String) async throws(StoreError) {
        guard try await changed("DELETE FROM experiments WHERE id = \(id) RETURNING id") else { throw .notFound("experiment \"\(id)\"") }
    }
}
