public import Foundation

/// A progressive rollout of one flag in one environment: the flag serves ``newVariant`` to a
/// growing share of units (``steps``) and ``oldVariant`` to the rest, while ``guardrails``
/// compare the two; a regression pauses the rollout or rolls it back (``onRegression``). See
/// `Server/Docs/Rollouts.md`.
///
/// Stored as one JSON document; ``version`` makes every update compare-and-set.
public struct RolloutPlan: Sendable, Hashable, Codable {
    public enum Status: String, Sendable, Hashable, Codable, CaseIterable {
        /// Created, never started (or not started again after a rollback).
        case draft
        /// Serving the current step; the executor evaluates and steps it.
        case running
        /// Holding the current step's split; neither stepped nor evaluated until resumed.
        case paused
        /// Serving the old variant to everyone after a rollback; may be started again.
        case rolledBack = "rolled_back"
        /// Serving the new variant to everyone; final.
        case finished
    }

    /// What a regression does.
    public enum RegressionAction: String, Sendable, Hashable, Codable, CaseIterable {
        /// Holds the current split (no new units get the new variant) until someone resumes.
        case pause
        /// Serves the old variant to everyone.
        case rollback
    }

    /// Which units get the new variant when a rolled-back plan is started again.
    public enum Restart: String, Sendable, Hashable, Codable, CaseIterable {
        /// The same salt: the units that had the new variant get it again first.
        case sameUnits = "same_units"
        /// A new salt: another random set of units.
        case newUnits = "new_units"
    }

    /// One step: the new variant's share and how long it is held before the next step.
    public struct Step: Sendable, Hashable, Codable {
        /// The share of units served the new variant, in percent (0 < percent ≤ 100, at most two
        /// decimals: the split is written in basis points).
        public var percent: Double
        /// Seconds the step is held (when its guardrails hold) before the next step. The last step
        /// (100 %) finishes the plan when it is reached, so its duration is not used.
        public var durationSeconds: Int

        public init(percent: Double, durationSeconds: Int) {
            self.percent = percent
            self.durationSeconds = durationSeconds
        }
    }

    public var id: String
    public var flag: String
    public var environment: String
    /// The variant served before the rollout, and after a rollback.
    public var oldVariant: String
    /// The variant being rolled out.
    public var newVariant: String
    public var steps: [Step]
    public var guardrails: [RolloutGuardrail]
    /// The sequential test's error rate: the chance that an A/A rollout is stopped, per guardrail.
    public var alpha: Double
    /// The fewest units each variant needs before a guardrail is evaluated;
    /// ``RolloutGuardrail/defaultMinimumUnits`` (100) when `nil`.
    public var minimumUnits: Int?
    /// How often the executor evaluates the guardrails of a running plan, in seconds.
    public var evaluationIntervalSeconds: Int
    public var onRegression: RegressionAction
    public var restart: Restart
    /// Hashed before the targeting key to bucket units; kept across steps, pauses and resumes, so
    /// a unit that got the new variant keeps it as the share grows.
    public var salt: String
    /// The template the plan was made from, if any.
    public var template: String?
    public var status: Status
    /// The index in ``steps`` being served (`nil` before the first start).
    public var currentStep: Int?
    /// When the current step started serving (the step's duration counts from here; a pause
    /// stops the count, a resume restarts it).
    public var stepStartedAt: Date?
    /// When the current run started: guardrails count the events since then.
    public var runStartedAt: Date?
    /// When the guardrails were last evaluated.
    public var lastEvaluatedAt: Date?
    /// The replica acting on the plan, and until when (a lease taken by compare-and-set, so that
    /// one replica steps a plan at a time).
    public var lease: Lease?
    public var history: [HistoryEntry]
    /// The guardrails' numbers at each of the current run's evaluations (the newest
    /// ``maximumEvaluations``); `nil` before the first.
    public var evaluations: [GuardrailEvaluation]?
    public var createdAt: Date
    public var updatedAt: Date
    /// Bumped on every stored change: an update based on an older version is refused.
    public var version: Int

    public struct Lease: Sendable, Hashable, Codable {
        public var holder: String
        public var until: Date
    }

    /// One thing that happened to the plan.
    public struct HistoryEntry: Sendable, Hashable, Codable {
        public enum Action: String, Sendable, Hashable, Codable {
            case created, edited, started, stepped, paused, resumed, regression, finished
            case rolledBack = "rolled_back"
        }
        public var action: Action
        public var actor: String
        public var time: Date
        /// The step index and its share after the action.
        public var step: Int?
        public var percent: Double?
        /// The environment revision the action produced, when it wrote the flag.
        public var revision: Int?
        public var comment: String?
        /// The guardrail result that caused the action (a regression).
        public var finding: GuardrailFinding?

        public init(
            action: Action, actor: String, time: Date, step: Int? = nil, percent: Double? = nil, revision: Int? = nil,
            comment: String? = nil, finding: GuardrailFinding? = nil
        ) {
            self.action = action
            self.actor = actor
            self.time = time
            self.step = step
            self.percent = percent
            self.revision = revision
            self.comment = comment
            self.finding = finding
        }
    }

    public init(
        id: String, flag: String, environment: String, oldVariant: String, newVariant: String, steps: [Step],
        guardrails: [RolloutGuardrail], alpha: Double = 0.05, evaluationIntervalSeconds: Int = 300,
        onRegression: RegressionAction = .rollback, restart: Restart = .sameUnits, salt: String, template: String? = nil,
        createdAt: Date, actor: String
    ) {
        self.id = id
        self.flag = flag
        self.environment = environment
        self.oldVariant = oldVariant
        self.newVariant = newVariant
        self.steps = steps
        self.guardrails = guardrails
        self.alpha = alpha
        self.evaluationIntervalSeconds = evaluationIntervalSeconds
        self.onRegression = onRegression
        self.restart = restart
        self.salt = salt
        self.template = template
        self.status = .draft
        self.history = [HistoryEntry(action: .created, actor: actor, time: createdAt)]
        self.createdAt = createdAt
        self.updatedAt = createdAt
        self.version = 1
    }

    /// The share the new variant is served to now (0 unless running or paused).
    public var currentPercent: Double {
        guard status == .running || status == .paused, let currentStep, steps.indices.contains(currentStep) else {
            return status == .finished ? 100 : 0
        }
        return steps[currentStep].percent
    }

    /// The longest history kept: older entries are dropped (the flag's audit keeps every write).
    static let maximumHistory = 500

    mutating func record(_ entry: HistoryEntry) {
        history.append(entry)
        if history.count > Self.maximumHistory { history.removeFirst(history.count - Self.maximumHistory) }
        updatedAt = entry.time
    }
}

/// What a team reuses across flags: steps, guardrails and rules, without a flag or environment.
public struct RolloutTemplate: Sendable, Hashable, Codable {
    /// A key (letters, digits, `.`, `_`, `-`).
    public var name: String
    public var description: String?
    public var steps: [RolloutPlan.Step]
    public var guardrails: [RolloutGuardrail]
    public var alpha: Double
    public var evaluationIntervalSeconds: Int
    public var onRegression: RolloutPlan.RegressionAction
    public var restart: RolloutPlan.Restart
    public var createdAt: Date
    public var updatedAt: Date
    public var version: Int

    public init(
        name: String, description: String? = nil, steps: [RolloutPlan.Step], guardrails: [RolloutGuardrail], alpha: Double = 0.05,
        evaluationIntervalSeconds: Int = 300, onRegression: RolloutPlan.RegressionAction = .rollback,
        restart: RolloutPlan.Restart = .sameUnits, createdAt: Date
    ) {
        self.name = name
        self.description = description
        self.steps = steps
        self.guardrails = guardrails
        self.alpha = alpha
        self.evaluationIntervalSeconds = evaluationIntervalSeconds
        self.onRegression = onRegression
        self.restart = restart
        self.createdAt = createdAt
        self.updatedAt = createdAt
        self.version = 1
    }

    /// A draft plan of this template for one flag in one environment.
    public func plan(
        id: String, flag: String, environment: String, oldVariant: String, newVariant: String, salt: String, at time: Date,
        actor: String
    ) -> RolloutPlan {
        RolloutPlan(
            id: id, flag: flag, environment: environment, oldVariant: oldVariant, newVariant: newVariant, steps: steps,
            guardrails: guardrails, alpha: alpha, evaluationIntervalSeconds: evaluationIntervalSeconds, onRegression: onRegression,
            restart: restart, salt: salt, template: name, createdAt: time, actor: actor)
    }
}

/// A metric watched during a rollout: the new variant's rate against the old one's.
public struct RolloutGuardrail: Sendable, Hashable, Codable {
    public enum Metric: String, Sendable, Hashable, Codable, CaseIterable {
        /// `$crash` events per `$session` (a session that did not end cleanly, reported at the
        /// next launch with the variants it was served).
        case crashRate = "crash_rate"
        /// `$error` events per `$session`.
        case errorRate = "error_rate"
        /// Tracked events named ``RolloutGuardrail/event`` per `$session`.
        case eventRate = "event_rate"
        /// The stored experiment metric ``RolloutGuardrail/metricKey`` (conversion, mean or
        /// count), per unit (an exposure's targeting key), counted as experiments count it
        /// (`RolloutGuardrail+Metric.swift`).
        case experimentMetric = "experiment_metric"
    }

    /// Which way is harmful.
    public enum Direction: String, Sendable, Hashable, Codable, CaseIterable {
        /// More is worse (crashes, errors).
        case increase
        /// Less is worse (a conversion event).
        case decrease
    }

    public var metric: Metric
    /// The custom event's name, for ``Metric/eventRate``.
    public var event: String?
    /// The stored experiment metric's key, for ``Metric/experimentMetric``.
    public var metricKey: String?
    /// The harm tolerated, in the rate's units (0.005: half a percentage point of sessions): a
    /// regression is a difference proven beyond it.
    public var tolerance: Double
    public var direction: Direction

    public init(
        metric: Metric, event: String? = nil, metricKey: String? = nil, tolerance: Double = 0, direction: Direction = .increase
    ) {
        self.metric = metric
        self.event = event
        self.metricKey = metricKey
        self.tolerance = tolerance
        self.direction = direction
    }

    /// The tracked event counted per trial.
    public var numeratorEvent: String {
        switch metric {
        case .crashRate: RolloutGuardrail.crashEvent
        case .errorRate: "$error"
        case .eventRate: event ?? ""
        case .experimentMetric: ""
        }
    }

    /// The tracked event that counts trials.
    public static let denominatorEvent = "$session"

    /// A short name for messages: `crash rate`, `event rate of "purchase"`.
    public var name: String {
        switch metric {
        case .crashRate: "crash rate"
        case .errorRate: "error rate"
        case .eventRate: "event rate of \"\(event ?? "")\""
        case .experimentMetric: "metric \"\(metricKey ?? "")\""
        }
    }
}
