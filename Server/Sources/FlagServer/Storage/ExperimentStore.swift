import FlagServerModel
import Foundation

/// Where experiments and their metrics are kept (see `Server/Docs/Experiments.md`). The schema is
/// created by ``FlagStore/migrate()`` (migration 6). Both flag stores implement it and pass
/// `ExperimentStoreCompatibilityTests`.
public protocol ExperimentStore: Sendable {
    /// Every metric, by key.
    func experimentMetrics() async throws(StoreError) -> [ExperimentMetric]

    /// Stores a new metric.
    ///
    /// - Throws: ``StoreError/conflict(_:)`` if one with its key exists.
    func insertExperimentMetric(_ metric: ExperimentMetric) async throws(StoreError)

    /// Replaces a metric with `metric`, whose ``ExperimentMetric/version`` is one more than the
    /// stored one's.
    ///
    /// - Throws: ``StoreError/conflict(_:)`` when the stored version is another;
    ///   ``StoreError/notFound(_:)`` when there is none.
    func updateExperimentMetric(_ metric: ExperimentMetric) async throws(StoreError)

    /// - Throws: ``StoreError/notFound(_:)`` when there is none.
    func deleteExperimentMetric(key: String) async throws(StoreError)

    /// Stores a new experiment.
    ///
    /// - Throws: ``StoreError/conflict(_:)`` if one with its id exists.
    func insertExperiment(_ experiment: Experiment) async throws(StoreError)

    /// The experiment with `id`; `nil` when there is none.
    func experiment(id: String) async throws(StoreError) -> Experiment?

    /// The experiments of `environment` (every environment when `nil`), newest first, at most `limit`.
    func experiments(environment: String?, limit: Int) async throws(StoreError) -> [Experiment]

    /// Every running experiment (what the allocation guard reads on each write).
    func runningExperiments() async throws(StoreError) -> [Experiment]

    /// Replaces an experiment with `experiment`, whose ``Experiment/version`` is one more than the
    /// stored one's.
    ///
    /// - Throws: ``StoreError/conflict(_:)`` when the stored version is another;
    ///   ``StoreError/notFound(_:)`` when there is none.
    func updateExperiment(_ experiment: Experiment) async throws(StoreError)

    /// - Throws: ``StoreError/notFound(_:)`` when there is none.
    func deleteExperiment(id: String) async throws(StoreError)
}

/// One JSON document per stored metric or experiment.
enum ExperimentDocument {
    static func encode(_ value: some Encodable, _ what: String) throws(StoreError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        do { return String(decoding: try encoder.encode(value), as: UTF8.self) } catch {
            throw .database("\(what) does not encode: \(error)")
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, _ stored: String) throws(StoreError) -> T {
        do { return try JSONDecoder().decode(T.self, from: Data(stored.utf8)) } catch {
            throw .database("a stored \(T.self) does not decode: \(error)")
        }
    }
}
