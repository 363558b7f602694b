import Foundation

/// Where rollout plans and templates are kept (see `Server/Docs/Rollouts.md`). The schema is
/// created by ``FlagStore/migrate()`` (migration 9). Each plan and template is one JSON document
/// with a version: every update is compare-and-set, so two replicas acting on one plan leave one
/// update and one conflict. Both flag stores (SQLite, PostgreSQL) implement it and pass
/// `RolloutStoreCompatibilityTests`.
public protocol RolloutStore: Sendable {
    /// Stores a new plan.
    ///
    /// - Throws: ``StoreError/conflict(_:)`` if one with its id exists.
    func insertRolloutPlan(_ plan: RolloutPlan) async throws(StoreError)

    /// The plan `id`, if it exists.
    func rolloutPlan(id: String) async throws(StoreError) -> RolloutPlan?

    /// The plans of `environment` (of one flag, or of all), newest first, at most `limit`.
    func rolloutPlans(environment: String, flag: String?, limit: Int) async throws(StoreError) -> [RolloutPlan]

    /// Every plan whose status is `running` (what the executor acts on).
    func runningRolloutPlans() async throws(StoreError) -> [RolloutPlan]

    /// Replaces a plan with `plan`, whose ``RolloutPlan/version`` is one more than the stored one's.
    ///
    /// - Throws: ``StoreError/conflict(_:)`` when the stored version is another (someone changed
    ///   it meanwhile); ``StoreError/notFound(_:)`` when there is none.
    func updateRolloutPlan(_ plan: RolloutPlan) async throws(StoreError)

    /// Deletes the plan `id`; `false` if there was none.
    func deleteRolloutPlan(id: String) async throws(StoreError) -> Bool

    /// Every template, by name.
    func rolloutTemplates() async throws(StoreError) -> [RolloutTemplate]

    func rolloutTemplate(name: String) async throws(StoreError) -> RolloutTemplate?

    /// Stores `template`: a new one when its version is 1, else compare-and-set on the version.
    ///
    /// - Throws: ``StoreError/conflict(_:)`` when a new one's name is taken or the stored
    ///   version is not one less; ``StoreError/notFound(_:)`` when an update finds none.
    func putRolloutTemplate(_ template: RolloutTemplate) async throws(StoreError)

    /// Deletes the template `name`; `false` if there was none.
    func deleteRolloutTemplate(name: String) async throws(StoreError) -> Bool
}

/// Counts of tracked events attributed to a flag's variants, for rollout guardrails. Both event
/// stores implement it (`…+Rollouts.swift`).
public protocol RolloutEventCounting: Sendable {
    /// Per variant of `flag` (read from each event's `variants`): how many tracked events of
    /// `environment` named `name` have `time >= since` (milliseconds since 1970). Events without a
    /// variant of `flag` are not counted.
    func trackedCountsByVariant(environment: String, name: String, flag: String, since: Int64) async throws(StoreError) -> [String: Int]
}

extension RolloutPlan {
    func stored() throws(StoreError) -> String { try RolloutDocuments.encode(self, "rollout plan \(id)") }
    init(stored: String) throws(StoreError) { self = try RolloutDocuments.decode(stored, "rollout plan") }
}

extension RolloutTemplate {
    func stored() throws(StoreError) -> String { try RolloutDocuments.encode(self, "rollout template \(name)") }
    init(stored: String) throws(StoreError) { self = try RolloutDocuments.decode(stored, "rollout template") }
}

enum RolloutDocuments {
    static func encode(_ value: some Encodable, _ what: String) throws(StoreError) -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        do { return String(decoding: try encoder.encode(value), as: UTF8.self) } catch {
            throw .database("\(what) does not encode: \(error)")
        }
    }

    static func decode<T: Decodable>(_ text: String, _ what: String) throws(StoreError) -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        do { return try decoder.decode(T.self, from: Data(text.utf8)) } catch {
            throw .database("a stored \(what) does not decode: \(error)")
        }
    }
}
