import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOHTTP1
import Testing

/// ``RolloutAttributionCounting`` on every event store (SQLite in memory and in a file,
/// PostgreSQL): the sessions and crashes since a time, and those without a variant of the flag.
struct RolloutAttributionCountingTests {
    typealias Compatibility = FlagEventStoreCompatibilityTests

    static func tracked(_ name: String, _ variants: [String: String], at time: Int64, unit: String? = "u1") -> EventBatch.Tracked {
        EventBatch.Tracked(name: name, unit: unit, variants: variants, time: time)
    }

    @Test(arguments: StoreKind.allCases)
    func sessionsAndCrashesWithoutAVariantOfTheFlagAreCountedApart(_ kind: StoreKind) async throws {
        try await Compatibility.with(kind) { store, _ in
            let counting = try #require(store as? any RolloutAttributionCounting)
            let t0 = Compatibility.t0
            _ = try await store.ingest([
                Compatibility.batch("1", tracked: [
                    Self.tracked("$session", ["checkout": "on", "search.v2": "a"], at: t0),
                    Self.tracked("$session", ["checkout": "off"], at: t0 + 1),
                    Self.tracked("$crash", ["checkout": "on"], at: t0 + 2),
                    // Without a variant of checkout: another flag's only, none at all, an empty name.
                    Self.tracked("$session", ["search.v2": "b"], at: t0 + 3),
                    Self.tracked("$crash", [:], at: t0 + 4, unit: nil),
                    Self.tracked("$session", ["checkout": ""], at: t0 + 5),
                    // Not session health: not counted.
                    Self.tracked("$error", [:], at: t0 + 6),
                    Self.tracked("purchase", [:], at: t0 + 7),
                    // Before the run started: not counted.
                    Self.tracked("$crash", [:], at: t0 - 1),
                ]),
                Compatibility.batch("2", environment: "staging", tracked: [Self.tracked("$crash", [:], at: t0)]),
            ])
            let counts = try await counting.attributionCounts(
                environment: "prod", flag: "checkout", sessions: RolloutGuardrail.sessionEvents, crash: "$crash", since: t0)
            #expect(counts == RolloutAttributionCounts(sessions: 6, crashes: 2, sessionsWithoutVariant: 3, crashesWithoutVariant: 1))
            // A flag with a dot in its key is one path member.
            let search = try await counting.attributionCounts(
                environment: "prod", flag: "search.v2", sessions: RolloutGuardrail.sessionEvents, crash: "$crash", since: t0)
            #expect(search == RolloutAttributionCounts(sessions: 6, crashes: 2, sessionsWithoutVariant: 4, crashesWithoutVariant: 2))
            let later = try await counting.attributionCounts(
                environment: "prod", flag: "checkout", sessions: ["$session"], crash: "$crash", since: t0 + 3)
            #expect(later == RolloutAttributionCounts(sessions: 2, crashes: 1, sessionsWithoutVariant: 2, crashesWithoutVariant: 1))
            let none = try await counting.attributionCounts(
                environment: "qa", flag: "checkout", sessions: RolloutGuardrail.sessionEvents, crash: "$crash", since: t0)
            #expect(none == .zero)
        }
    }
}
