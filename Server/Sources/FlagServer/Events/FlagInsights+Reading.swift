import FlagServerModel
import Foundation

extension FlagInsights {
    /// The most audit entries of the flag read for its revisions in the range.
    static let auditLimit = 1000

    /// Reads the insights of `flag` in `environment` over `range` from `events` (rollups, unit
    /// counts, last evaluated, session health) and `store` (the flag's audit entries, values of sensitive flags
    /// redacted), for the admin API and the console alike.
    static func read(
        flag: FlagRecord, environment: String, range: InsightsRange, events: any FlagEventStore, store: any FlagStore,
        flags: [String: FlagRecord], splitLimit: Int = defaultSplitLimit
    ) async throws(StoreError) -> FlagInsights {
        let rollups = try await events.rollups(
            environment: environment, flag: flag.key, granularity: range.granularity, from: range.from, to: range.to)
        let days = range.days
        let unitCounts = try await events.unitCounts(
            environment: environment, flag: flag.key, from: days.first ?? range.from,
            to: (days.last ?? range.from) + RollupGranularity.day.milliseconds)
        let lastEvaluated = try await events.lastEvaluated(environment: environment)[flag.key]
        let health = try await events.capabilities.sessionHealth?.sessionHealth(
            environment: environment, flag: flag.key, sessions: RolloutGuardrail.sessionEvents, crash: RolloutGuardrail.crashEvent,
            from: range.from, to: range.to, limit: sessionHealthLimit + 1)
        let audit = try await store.audit(environment: environment, key: flag.key, limit: auditLimit)
        // Newest first: complete unless the read stopped at its limit while still inside the range.
        let complete = audit.count < auditLimit || audit.last.map { InsightsRange.milliseconds($0.time) < range.from } ?? true
        return FlagInsights(
            environment: environment, flag: flag.key, variants: flag.variants.keys, range: range, rollups: rollups,
            unitCounts: unitCounts, lastEvaluated: lastEvaluated,
            audit: audit.map { AuditRedaction.redacted($0, flags: flags) }, auditComplete: complete, splitLimit: splitLimit,
            sessionHealth: health)
    }
}
