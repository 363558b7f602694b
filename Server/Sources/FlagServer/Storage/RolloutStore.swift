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

/// A rate guardrail's evidence for one variant, summed over its units (an event's `unit`, the
/// assignment unit): the unit, not the session, is the independent draw, so a user whose sessions
/// all crash counts as one draw, not as many (`Server/Docs/Rollouts.md`).
public struct UnitRateSums: Sendable, Hashable, Codable {
    /// Units with at least one session or event.
    public var units: Int
    /// Σ sᵤ and Σ sᵤ²: each unit's sessions.
    public var sessions: Double
    public var sessionSquares: Double
    /// Σ eᵤ and Σ eᵤ²: each unit's numerator events.
    public var events: Double
    public var eventSquares: Double
    /// Σ sᵤ·eᵤ.
    public var products: Double

    public init(units: Int, sessions: Double, sessionSquares: Double, events: Double, eventSquares: Double, products: Double) {
        self.units = units
        self.sessions = sessions
        self.sessionSquares = sessionSquares
        self.events = events
        self.eventSquares = eventSquares
        self.products = products
    }

    /// `sessions` sessions each of its own unit, `events` of them with one event: the sums of
    /// independent sessions (for tests and simulations that model sessions, not users).
    public static func independentSessions(sessions: Int, events: Int) -> UnitRateSums {
        let e = Double(min(events, sessions))
        return UnitRateSums(
            units: sessions, sessions: Double(sessions), sessionSquares: Double(sessions), events: e, eventSquares: e, products: e)
    }
}

/// Tracked events attributed to a flag's variants and summed per unit, for rollout guardrails.
/// Both event stores implement it (`…+Rollouts.swift`).
public protocol RolloutEventCounting: Sendable {
    /// Per variant of `flag` (read from each event's `variants`), over the tracked events of
    /// `environment` with `time >= since` (milliseconds since 1970): per unit, its sessions (events
    /// named in `sessions`) and its events named `name`, summed as ``UnitRateSums``. An event
    /// without a unit is a unit of its own; events without a variant of `flag` are not counted.
    /// With `capAtSessions`, a unit's events count at most its sessions (a crash ends a session).
    func unitRatesByVariant(
        environment: String, name: String, sessions: [String], flag: String, since: Int64, capAtSessions: Bool
    ) async throws(StoreError) -> [String: UnitRateSums]
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
