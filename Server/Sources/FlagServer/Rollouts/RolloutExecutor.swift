import FlagServerModel
public import Foundation
import Logging
import ServiceLifecycle

/// Acts on running rollout plans: every ``tickInterval`` it looks at each running plan and, when
/// the plan's evaluation interval has passed, evaluates its guardrails (a regression pauses or
/// rolls back the plan, as the plan says); otherwise, when the step's duration has passed, it
/// serves the next step (or finishes the plan when the next step is 100 %). A plan whose flag
/// has been switched off (by hand or the kill switch) is paused at its step instead, with the
/// reason in its history: an off flag serves `DISABLED` to every unit, so a step would measure
/// and change nothing.
///
/// **Several replicas.** A replica acts on a plan only under a lease it took by compare-and-set
/// on the plan's version (``RolloutPlan/lease``): two replicas ticking at once leave one acting
/// and the other skipping the plan. A replica that dies holding a lease leaves it to expire
/// (``leaseDuration``), unless it restarts on the same SQLite data directory, whose replica name is
/// kept beside the database (``ReplicaNameClaim``) so that the restart holds the lease as its own.
/// Replicas sharing a database with a ``RolloutLeadership`` (PostgreSQL) act only while they lead,
/// and the leader takes over whatever lease a plan still names, so a plan a killed replica was
/// acting on resumes at the next tick of the replica that leads after it. The next holder repeats
/// the last action, which writes the same settings (no new revision) if it had been committed.
public struct RolloutExecutor: Sendable {
    /// The plans and the write path the executor acts through.
    public let rollouts: Rollouts
    /// Names this replica in leases.
    public let replica: String
    /// How often running plans are looked at (each plan is evaluated at its own interval).
    public let tickInterval: Duration
    /// How long a lease holds if its replica stops.
    public let leaseDuration: TimeInterval
    /// Which of the replicas sharing the database acts; `nil`: every replica acts, under leases.
    public let leadership: (any RolloutLeadership)?
    let logger: Logger

    /// An executor ticking every `tickInterval`, its leases lasting `leaseDuration` seconds.
    public init(
        rollouts: Rollouts, replica: String = UUID().uuidString, tickInterval: Duration = .seconds(10), leaseDuration: TimeInterval = 120,
        leadership: (any RolloutLeadership)? = nil, logger: Logger = Logger(label: "flag-server.rollouts")
    ) {
        self.rollouts = rollouts
        self.replica = replica
        self.tickInterval = tickInterval
        self.leaseDuration = leaseDuration
        self.leadership = leadership
        self.logger = logger
    }

    /// Whether this replica may act now: always without a ``leadership``.
    private func leads() async -> Bool {
        guard let leadership else { return true }
        return await leadership.confirm()
    }

    /// What one tick did to one plan.
    public enum Outcome: Sendable, Hashable {
        /// Nothing due or not this replica's turn (`skipped`); guardrails evaluated and holding; stepped;
        /// finished at 100 %; paused or rolled back by a regression or a switched-off flag.
        case skipped, evaluated, stepped, finished, paused, rolledBack
    }

    /// Looks at every running plan once (the service calls it every ``tickInterval``; tests call
    /// it with their own clock).
    @discardableResult
    public func tick() async -> [String: Outcome] {
        // A replica that does not lead reads nothing: the leader acts on every plan.
        guard await leads() else { return [:] }
        let plans: [RolloutPlan]
        do { plans = try await rollouts.store.runningRolloutPlans() } catch {
            logger.warning("reading running rollout plans failed: \(error)")
            return [:]
        }
        var outcomes: [String: Outcome] = [:]
        for plan in plans {
            do { outcomes[plan.id] = try await act(on: plan) } catch {
                logger.warning("rollout plan \(plan.id) failed this tick: \(error)", metadata: ["flag": "\(plan.flag)"])
            }
        }
        return outcomes
    }

    /// Evaluates and steps one running plan, under a lease.
    func act(on stored: RolloutPlan) async throws(AdminError) -> Outcome {
        let time = rollouts.now()
        guard stored.status == .running, let index = stored.currentStep, stored.steps.indices.contains(index) else { return .skipped }
        let flagOff = await rollouts.isFlagOff(stored)
        let evaluationDue = stored.lastEvaluatedAt.map { time.timeIntervalSince($0) >= Double(stored.evaluationIntervalSeconds) } ?? true
        let stepDue = stored.stepStartedAt.map { time.timeIntervalSince($0) >= Double(stored.steps[index].durationSeconds) } ?? true
        guard flagOff || evaluationDue || stepDue else { return .skipped }
        if let lease = stored.lease, lease.holder != replica, lease.until > time {
            // Under a leadership, another holder's lease was left by a replica that no longer
            // leads (killed, or cut off from the database): the leader takes the plan over.
            guard leadership != nil else { return .skipped }
            logger.info("rollout plan \(stored.id): taking over the lease of \(lease.holder), which no longer leads", metadata: ["flag": "\(stored.flag)"])
        }
        guard await leads() else { return .skipped }
        var plan = stored
        plan.lease = .init(holder: replica, until: time.addingTimeInterval(leaseDuration))
        do { try await rollouts.save(&plan) } catch {
            if case .conflict = error { return .skipped }
            throw error
        }
        if flagOff { return try await holdWhileOff(&plan) }

        // A step is taken only on fresh evidence: the guardrails are evaluated first.
        let findings = try await evaluate(plan, since: plan.runStartedAt ?? time) + rollouts.metricFindings(plan)
        // The evaluation may have taken a while: a replica that lost the leadership meanwhile
        // writes nothing (its lease is left to the leader, which takes it over).
        guard await leads() else { return .skipped }
        plan.lastEvaluatedAt = time
        plan.recordEvaluation(at: time, step: index, findings: findings)
        if let regression = findings.first(where: \.regression) {
            return try await regressed(&plan, regression)
        }
        if stepDue {
            let next = index + 1
            if next < plan.steps.count {
                let percent = plan.steps[next].percent
                let finishing = percent >= 100
                let revision: Int?
                do {
                    revision = try await rollouts.serve(
                        plan, step: next, actor: Rollouts.serverActor, approval: .changeRequest("rollout:\(plan.id)"), whileOn: "stepping",
                        reason: "rollout \(plan.id): step \(next + 1) of \(plan.steps.count), \(Rollouts.percent(percent)) of units on "
                            + "\"\(plan.newVariant)\"" + (finishing ? " (finished)" : "") + "; guardrails held")
                } catch {
                    // Switched off between this tick's look and its write.
                    if case .conflict = error, await rollouts.isFlagOff(plan) { return try await holdWhileOff(&plan) }
                    throw error
                }
                plan.currentStep = next
                plan.stepStartedAt = time
                plan.status = finishing ? .finished : .running
                plan.record(.init(
                    action: finishing ? .finished : .stepped, actor: Rollouts.serverActor, time: time, step: next, percent: percent,
                    revision: revision))
                plan.lease = nil
                try await rollouts.save(&plan)
                if finishing { await rollouts.forgetMetricCounts(plan) }
                rollouts.notify(
                    finishing ? .rolloutFinished : .rolloutStepped, plan, actor: Rollouts.serverActor, revision: revision,
                    summary: "\(plan.flag): rollout " + (finishing ? "finished" : "at \(Rollouts.percent(percent))"))
                return finishing ? .finished : .stepped
            }
        }
        plan.lease = nil
        try await rollouts.save(&plan)
        return .evaluated
    }

    /// Pauses `plan` (held under this replica's lease) because its flag is off: it neither steps
    /// nor evaluates until someone switches the flag on and resumes it.
    private func holdWhileOff(_ plan: inout RolloutPlan) async throws(AdminError) -> Outcome {
        let reason = "held: flag \"\(plan.flag)\" was switched off in \"\(plan.environment)\", so every unit is served DISABLED; "
            + "switch it on, then resume"
        plan.status = .paused
        plan.lease = nil
        plan.record(.init(
            action: .paused, actor: Rollouts.serverActor, time: rollouts.now(), step: plan.currentStep, percent: plan.currentPercent,
            comment: reason))
        try await rollouts.save(&plan)
        rollouts.notify(
            .rolloutPaused, plan, actor: Rollouts.serverActor, revision: nil,
            summary: "\(plan.flag): rollout paused at \(Rollouts.percent(plan.currentPercent)) (the flag is off)")
        logger.info("rollout plan \(plan.id) paused: its flag is off", metadata: ["flag": "\(plan.flag)"])
        return .paused
    }

    /// Pauses or rolls back `plan` for `finding`, as the plan says.
    private func regressed(_ plan: inout RolloutPlan, _ finding: GuardrailFinding) async throws(AdminError) -> Outcome {
        plan.record(.init(
            action: .regression, actor: Rollouts.serverActor, time: rollouts.now(), step: plan.currentStep, percent: plan.currentPercent,
            comment: finding.summary, finding: finding))
        switch plan.onRegression {
        case .rollback:
            _ = try await rollouts.rollBack(&plan, actor: Rollouts.serverActor, comment: nil, finding: finding)
            return .rolledBack
        case .pause:
            plan.status = .paused
            plan.lease = nil
            plan.record(.init(
                action: .paused, actor: Rollouts.serverActor, time: rollouts.now(), step: plan.currentStep, percent: plan.currentPercent,
                comment: "regression: " + finding.summary, finding: finding))
            try await rollouts.save(&plan)
            rollouts.notify(
                .rolloutPaused, plan, actor: Rollouts.serverActor, revision: nil,
                summary: "\(plan.flag): rollout paused at \(Rollouts.percent(plan.currentPercent)) (regression: \(finding.summary))",
                finding: finding)
            return .paused
        }
    }

    /// Each rate guardrail's findings from the events since `since`, step by step and stratum by
    /// stratum (``RolloutGuardrail/findings(moments:oldVariant:newVariant:alpha:minimumUnits:)``):
    /// the pooled look, then each platform and app version with enough units. None without an
    /// event store or while a variant has too few units.
    func evaluate(_ plan: RolloutPlan, since: Date) async throws(AdminError) -> [GuardrailFinding] {
        let rates = plan.guardrails.filter { $0.metric != .experimentMetric }
        guard let events = rollouts.events, !rates.isEmpty else { return [] }
        let starts = plan.stepStarts(since: since).map(RolloutPlan.milliseconds)
        do {
            var findings: [GuardrailFinding] = []
            for guardrail in rates {
                let moments = try await events.guardrailMoments(
                    environment: plan.environment, name: guardrail.numeratorEvent, sessions: RolloutGuardrail.sessionEvents,
                    flag: plan.flag, variants: [plan.oldVariant, plan.newVariant], stepStarts: starts,
                    capAtSessions: guardrail.metric == .crashRate)
                findings += guardrail.findings(
                    moments: moments, oldVariant: plan.oldVariant, newVariant: plan.newVariant, alpha: plan.alpha,
                    minimumUnits: plan.minimumUnits ?? RolloutGuardrail.defaultMinimumUnits)
            }
            return findings
        } catch {
            throw AdminError(store: error)
        }
    }
}

/// Runs ``RolloutExecutor/tick()`` every tick interval until a graceful shutdown.
struct RolloutExecutorService: Service {
    let executor: RolloutExecutor

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await executor.tick()
                do { try await Task.sleep(for: executor.tickInterval) } catch { break }
            }
        }
    }
}
