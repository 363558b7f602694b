import FlagServerModel
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

    /// The template named `name`; `nil` when there is none.
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
    /// Σ sᵤ²: the squares of each unit's sessions.
    public var sessionSquares: Double
    /// Σ eᵤ and Σ eᵤ²: each unit's numerator events.
    public var events: Double
    /// Σ eᵤ²: the squares of each unit's numerator events.
    public var eventSquares: Double
    /// Σ sᵤ·eᵤ.
    public var products: Double

    /// Sums as a store read them.
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

    /// The evidence a rate guardrail is judged on, in one query: over the tracked events of
    /// `environment` with `time >= stepStarts[0]` attributed to one of `variants` of `flag`, each
    /// unit's sessions (events named in `sessions`) and events named `name` per step (the last of
    /// `stepStarts`, ascending milliseconds since 1970, at or before the event's time) and variant,
    /// with the event source's app version and platform, summed per stratum and pair of cells as
    /// ``GuardrailMoments``. An event without a unit is a unit of its own. With `capAtSessions`, a
    /// unit's events in a cell count at most its sessions there (a crash ends a session).
    func guardrailMoments(
        environment: String, name: String, sessions: [String], flag: String, variants: [String], stepStarts: [Int64],
        capAtSessions: Bool
    ) async throws(StoreError) -> [GuardrailMoments]
}

/// One row of a rate guardrail's evidence by step and stratum (``RolloutEventCounting/guardrailMoments(environment:name:sessions:flag:variants:stepStarts:capAtSessions:)``):
/// over the units of one app version and platform that have events in two cells (a cell is a step
/// and a variant), the sums of each unit's sessions and events in the first cell and of their
/// products with the second cell's. A unit is an event's `unit` seen from one app version and
/// platform; the step of an event is the last step that started at or before its time. The cell
/// of step ``wholeRun`` sums a unit's cells of every step: its rows pair a variant with itself and
/// count the distinct units of the variant.
///
/// The rows with both cells equal give each cell's units, Σs, Σe, Σs², Σs·e and Σe²; the others
/// give the cross products that make the variance of a combination of steps robust to a unit
/// being in several steps (`Server/Docs/Rollouts.md`).
public struct GuardrailMoments: Sendable, Hashable, Codable {
    /// The step index standing for the whole run.
    public static let wholeRun = -1

    /// A step index (or ``wholeRun``) and a variant.
    public struct Cell: Sendable, Hashable, Codable {
        /// The step's index in the plan, or ``GuardrailMoments/wholeRun``.
        public var step: Int
        /// The variant served.
        public var variant: String

        /// The cell of `variant` in step `step` (or ``GuardrailMoments/wholeRun``).
        public init(step: Int, variant: String) {
            self.step = step
            self.variant = variant
        }
    }

    /// The stratum: the event source's app version and platform.
    public var appVersion: String
    /// The stratum's platform ("" when apps sent none).
    public var platform: String
    /// The cell the sums of single units are taken in.
    public var first: Cell
    /// The cell the products pair the first cell with (the first itself on the rows of one cell).
    public var second: Cell
    /// Units with events in both cells.
    public var units: Int
    /// Σ s₁ and Σ e₁: those units' sessions and events in the first cell.
    public var sessions: Double
    /// Σ e₁: those units' numerator events in the first cell.
    public var events: Double
    /// Σ s₁·s₂, Σ s₁·e₂, Σ e₁·s₂ and Σ e₁·e₂.
    public var sessionProducts: Double
    /// Σ s₁·e₂: sessions in the first cell times events in the second, per unit, summed.
    public var sessionEventProducts: Double
    /// Σ e₁·s₂: events in the first cell times sessions in the second, per unit, summed.
    public var eventSessionProducts: Double
    /// Σ e₁·e₂: events in the first cell times events in the second, per unit, summed.
    public var eventProducts: Double

    /// One row of sums as a store read it.
    public init(
        appVersion: String, platform: String, first: Cell, second: Cell, units: Int, sessions: Double, events: Double,
        sessionProducts: Double, sessionEventProducts: Double, eventSessionProducts: Double, eventProducts: Double
    ) {
        self.appVersion = appVersion
        self.platform = platform
        self.first = first
        self.second = second
        self.units = units
        self.sessions = sessions
        self.events = events
        self.sessionProducts = sessionProducts
        self.sessionEventProducts = sessionEventProducts
        self.eventSessionProducts = eventSessionProducts
        self.eventProducts = eventProducts
    }
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
