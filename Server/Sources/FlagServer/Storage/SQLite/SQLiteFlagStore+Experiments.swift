import FlagServerModel
import Foundation
import SQLiteNIO

extension SQLiteFlagStore: ExperimentStore {
    /// Every metric, by key.
    public func experimentMetrics() async throws(StoreError) -> [ExperimentMetric] {
        let documents = try await run {
            try await connection.query("SELECT document FROM experiment_metrics ORDER BY key").map { $0.column("document")?.string ?? "" }
        }
        var metrics: [ExperimentMetric] = []
        for document in documents { metrics.append(try ExperimentDocument.decode(ExperimentMetric.self, document)) }
        return metrics
    }

    /// Adds `metric`, in a transaction that refuses an existing key.
    public func insertExperimentMetric(_ metric: ExperimentMetric) async throws(StoreError) {
        let document = try ExperimentDocument.encode(metric, "metric \(metric.key)")
        try await run {
            try await transaction {
                let existing = try await connection.query("SELECT key FROM experiment_metrics WHERE key = ?", [.text(metric.key)])
                guard existing.isEmpty else { throw StoreError.conflict("metric \"\(metric.key)\" exists already") }
                _ = try await connection.query(
                    "INSERT INTO experiment_metrics (key, version, document) VALUES (?, ?, ?)",
                    [.text(metric.key), .integer(metric.version), .text(document)])
            }
        }
    }

    /// Replaces the metric when the stored version is one less than `metric`'s (compare-and-set).
    public func updateExperimentMetric(_ metric: ExperimentMetric) async throws(StoreError) {
        let document = try ExperimentDocument.encode(metric, "metric \(metric.key)")
        try await run {
            try await transaction {
                let rows = try await connection.query("SELECT version FROM experiment_metrics WHERE key = ?", [.text(metric.key)])
                guard let stored = rows.first?.column("version")?.integer else { throw StoreError.notFound("metric \"\(metric.key)\"") }
                guard stored == metric.version - 1 else { throw StoreError.conflict("metric \"\(metric.key)\" changed meanwhile; read it again") }
                _ = try await connection.query(
                    "UPDATE experiment_metrics SET version = ?, document = ? WHERE key = ?",
                    [.integer(metric.version), .text(document), .text(metric.key)])
            }
        }
    }

    /// Deletes the metric; throws ``StoreError/notFound(_:)`` when there is none.
    public func deleteExperimentMetric(key: String) async throws(StoreError) {
        try await run {
            try await transaction {
                let rows = try await connection.query("SELECT key FROM experiment_metrics WHERE key = ?", [.text(key)])
                guard !rows.isEmpty else { throw StoreError.notFound("metric \"\(key)\"") }
                _ = try await connection.query("DELETE FROM experiment_metrics WHERE key = ?", [.text(key)])
            }
        }
    }

    /// Adds `experiment`, in a transaction that refuses an existing id.
    public func insertExperiment(_ experiment: Experiment) async throws(StoreError) {
        let document = try ExperimentDocument.encode(experiment, "experiment \(experiment.id)")
        try await run {
            try await transaction {
                let existing = try await connection.query("SELECT id FROM experiments WHERE id = ?", [.text(experiment.id)])
                guard existing.isEmpty else { throw StoreError.conflict("experiment \"\(experiment.id)\" exists already") }
                _ = try await connection.query(
                    "INSERT INTO experiments (id, environment, flag, status, created_at, version, document) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [
                        .text(experiment.id), .text(experiment.environment), .text(experiment.flag), .text(experiment.status.rawValue),
                        .float(experiment.createdAt.timeIntervalSince1970), .integer(experiment.version), .text(document),
                    ])
            }
        }
    }

    /// The experiment `id`; `nil` when there is none.
    public func experiment(id: String) async throws(StoreError) -> Experiment? {
        let document = try await run {
            try await connection.query("SELECT document FROM experiments WHERE id = ?", [.text(id)]).first?.column("document")?.string
        }
        return try document.map { stored throws(StoreError) in try ExperimentDocument.decode(Experiment.self, stored) }
    }

    /// The newest `limit` experiments, of `environment` only when given, newest first.
    public func experiments(environment: String?, limit: Int) async throws(StoreError) -> [Experiment] {
        let documents = try await run {
            if let environment {
                return try await connection.query(
                    "SELECT document FROM experiments WHERE environment = ? ORDER BY created_at DESC, id DESC LIMIT ?",
                    [.text(environment), .integer(limit)]
                ).map { $0.column("document")?.string ?? "" }
            }
            return try await connection.query(
                "SELECT document FROM experiments ORDER BY created_at DESC, id DESC LIMIT ?", [.integer(limit)]
            ).map { $0.column("document")?.string ?? "" }
        }
        var experiments: [Experiment] = []
        for document in documents { experiments.append(try ExperimentDocument.decode(Experiment.self, document)) }
        return experiments
    }

    /// Every running experiment, by id.
    public func runningExperiments() async throws(StoreError) -> [Experiment] {
        let documents = try await run {
            try await connection.query(
                "SELECT document FROM experiments WHERE status = ? ORDER BY id", [.text(Experiment.Status.running.rawValue)]
            ).map { $0.column("document")?.string ?? "" }
        }
        var experiments: [Experiment] = []
        for document in documents { experiments.append(try ExperimentDocument.decode(Experiment.self, document)) }
        return experiments
    }

    /// Replaces the experiment when the stored version is one less than `experiment`'s (compare-and-set).
    public func updateExperiment(_ experiment: Experiment) async throws(StoreError) {
        let document = try ExperimentDocument.encode(experiment, "experiment \(experiment.id)")
        try await run {
            try await transaction {
                let rows = try await connection.query("SELECT version FROM experiments WHERE id = ?", [.text(experiment.id)])
                guard let stored = rows.first?.column("version")?.integer else { throw StoreError.notFound("experiment \"\(experiment.id)\"") }
                guard stored == experiment.version - 1 else {
                    throw StoreError.conflict("experiment \"\(experiment.id)\" changed meanwhile; read it again")
                }
                _ = try await connection.query(
                    "UPDATE experiments SET status = ?, version = ?, document = ? WHERE id = ?",
                    [.text(experiment.status.rawValue), .integer(experiment.version), .text(document), .text(experiment.id)])
            }
        }
    }

    /// Deletes the experiment; throws ``StoreError/notFound(_:)`` when there is none.
    public func deleteExperiment(id: String) async throws(StoreError) {
        try await run {
            try await transaction {
                let rows = try await connection.query("SELECT id FROM experiments WHERE id = ?", [.text(id)])
                guard !rows.isEmpty else { throw StoreError.notFound("experiment \"\(id)\"") }
                _ = try await connection.query("DELETE FROM experiments WHERE id = ?", [.text(id)])
            }
        }
    }
}
