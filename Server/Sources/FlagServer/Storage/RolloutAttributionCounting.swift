import FlagServerModel
import Foundation

/// The session-health events of a flag's rollout and how many of them a guardrail could not count
/// because they name no variant of the flag (issue 39: attribution the plan page reports). Both
/// event stores implement it (`…+Attribution.swift`).
public protocol RolloutAttributionCounting: Sendable {
    /// Over the tracked events of `environment` with `time >= since` (milliseconds since 1970):
    /// how many are named in `sessions` and how many are named `crash`, in total and among those
    /// whose `variants` name no variant of `flag` (no entry for it, or an empty name).
    func attributionCounts(
        environment: String, flag: String, sessions: [String], crash: String, since: Int64
    ) async throws(StoreError) -> RolloutAttributionCounts
}

/// Sessions and crashes since a time, and those among them without a variant of the flag.
public struct RolloutAttributionCounts: Sendable, Hashable, Codable {
    /// Session-health events (a clean session's `$session` and a crashed one's `$crash`).
    public var sessions: Int
    /// `$crash` events (each is also one of ``sessions``).
    public var crashes: Int
    /// Of ``sessions``, those that named no variant of the flag.
    public var sessionsWithoutVariant: Int
    /// Of ``crashes``, those that named no variant of the flag.
    public var crashesWithoutVariant: Int

    /// Counts as a store read them.
    public init(sessions: Int, crashes: Int, sessionsWithoutVariant: Int, crashesWithoutVariant: Int) {
        self.sessions = sessions
        self.crashes = crashes
        self.sessionsWithoutVariant = sessionsWithoutVariant
        self.crashesWithoutVariant = crashesWithoutVariant
    }

    /// No events: what a plan that never started reports.
    public static let zero = RolloutAttributionCounts(sessions: 0, crashes: 0, sessionsWithoutVariant: 0, crashesWithoutVariant: 0)
}

/// What the plan page and `GET …/rollouts/{id}/attribution` report about a plan's evidence: the
/// sessions and crashes its guardrails could read since its run started, and those that came
/// without a variant of its flag (counted by no guardrail).
public struct RolloutAttribution: Sendable, Hashable, Encodable {
    /// The plan's id.
    public var plan: String
    /// The key of the plan's flag.
    public var flag: String
    /// The plan's environment.
    public var environment: String
    /// When the plan's current run started; absent before its first start (then every count is 0).
    public var since: Date?
    /// Session-health events since the run started (a clean session's `$session` and a crashed one's `$crash`).
    public var sessions: Int
    /// `$crash` events since the run started (each is also one of ``sessions``).
    public var crashes: Int
    /// Of ``sessions``, those that named no variant of the flag, which no guardrail counts.
    public var sessionsWithoutVariant: Int
    /// Of ``crashes``, those that named no variant of the flag, which no guardrail counts.
    public var crashesWithoutVariant: Int

    /// The attribution of `plan` from the counts read since its run started.
    public init(plan: RolloutPlan, counts: RolloutAttributionCounts) {
        self.plan = plan.id
        flag = plan.flag
        environment = plan.environment
        since = plan.runStartedAt
        sessions = counts.sessions
        crashes = counts.crashes
        sessionsWithoutVariant = counts.sessionsWithoutVariant
        crashesWithoutVariant = counts.crashesWithoutVariant
    }

    /// Counts `plan`'s events in `events` since its run started (none before it started).
    public static func read(_ plan: RolloutPlan, from events: any RolloutAttributionCounting) async throws(StoreError) -> RolloutAttribution {
        guard let started = plan.runStartedAt else { return RolloutAttribution(plan: plan, counts: .zero) }
        let counts = try await events.attributionCounts(
            environment: plan.environment, flag: plan.flag, sessions: RolloutGuardrail.sessionEvents, crash: RolloutGuardrail.crashEvent,
            since: Int64((started.timeIntervalSince1970 * 1000).rounded(.down)))
        return RolloutAttribution(plan: plan, counts: counts)
    }
}
