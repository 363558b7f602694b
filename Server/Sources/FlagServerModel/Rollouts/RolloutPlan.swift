public import Foundation

/// A progressive rollout of one flag in one environment: the flag serves ``newVariant`` to a
/// growing share of units (``steps``) and ``oldVariant`` to the rest, while ``guardrails``
/// compare the two; a regression pauses the rollout or rolls it back (``onRegression``). See
/// `Server/Docs/Rollouts.md`.
///
/// Stored as one JSON document; ``version`` makes every update compare-and-set.
public struct RolloutPlan: Sendable, Hashable, Codable {
    /// Where the plan is in its life.
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

        /// A step serving the new variant to `percent` % of units for `durationSeconds` seconds.
        public init(percent: Double, durationSeconds: Int) {
            self.percent = percent
            self.durationSeconds = durationSeconds
        }
    }

    /// The plan's identifier (`ro-` and 16 hexadecimal digits when made by the admin API).
    public var id: String
    /// The key of the flag being rolled out.
    public var flag: String
    /// The environment the plan runs in.
    public var environment: String
    /// The variant served before the rollout, and after a rollback.
    public var oldVariant: String
    /// The variant being rolled out.
    public var newVariant: String
    /// The shares served in order; the last is 100 %, which finishes the plan.
    public var steps: [Step]
    /// The metrics compared between the variants at each evaluation; none means the plan only steps.
    public var guardrails: [RolloutGuardrail]
    /// The sequential test's error rate: the chance that an A/A rollout is stopped, per guardrail.
    public var alpha: Double
    /// The fewest units each variant needs before a guardrail is evaluated;
    /// ``RolloutGuardrail/defaultMinimumUnits`` (100) when `nil`.
    public var minimumUnits: Int?
    /// How often the executor evaluates the guardrails of a running plan, in seconds.
    public var evaluationIntervalSeconds: Int
    /// What a guardrail's regression does to the plan.
    public var onRegression: RegressionAction
    /// Which units get the new variant again when the plan is started after a rollback.
    public var restart: Restart
    /// Hashed before the targeting key to bucket units; kept across steps, pauses and resumes, so
    /// a unit that got the new variant keeps it as the share grows.
    public var salt: String
    /// The template the plan was made from, if any.
    public var template: String?
    /// Where the plan is in its life.
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
    /// What happened to the plan, oldest first (the newest 500 entries).
    public var history: [HistoryEntry]
    /// The guardrails' numbers at each of the current run's evaluations (the newest
    /// ``maximumEvaluations``); `nil` before the first.
    public var evaluations: [GuardrailEvaluation]?
    /// When the plan was created.
    public var createdAt: Date
    /// When the plan last changed (the time of its newest history entry or edit).
    public var updatedAt: Date
    /// Bumped on every stored change: an update based on an older version is refused.
    public var version: Int

    /// A replica's claim on a plan, so that only one replica evaluates and steps it at a time.
    public struct Lease: Sendable, Hashable, Codable {
        /// The replica holding the lease (its identifier).
        public var holder: String
        /// When the lease lapses unless renewed; another replica may take it after this.
        public var until: Date

        /// A lease held by `holder` until `until`.
        package init(holder: String, until: Date) {
            self.holder = holder
            self.until = until
        }
    }

    /// One thing that happened to the plan.
    public struct HistoryEntry: Sendable, Hashable, Codable {
        /// What was done to the plan.
        public enum Action: String, Sendable, Hashable, Codable {
            /// What was done to the plan; `regression` is a guardrail's finding that paused or rolled back.
            case created, edited, started, stepped, paused, resumed, regression, finished
            /// The plan served the old variant to everyone (the rollback's JSON spelling is `rolled_back`).
            case rolledBack = "rolled_back"
        }
        /// What was done.
        public var action: Action
        /// Who did it: a token, a console user, or the server's rollout executor.
        public var actor: String
        /// When it was done.
        public var time: Date
        /// The step index and its share after the action.
        public var step: Int?
        /// The new variant's share after the action, in percent.
        public var percent: Double?
        /// The environment revision the action produced, when it wrote the flag.
        public var revision: Int?
        /// The comment given with the action, if any (pause and rollback take one).
        public var comment: String?
        /// The guardrail result that caused the action (a regression).
        public var finding: GuardrailFinding?

        /// An entry for `action` by `actor` at `time`; the other fields are `nil` unless they apply.
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

    /// A draft plan with one `created` history entry by `actor`, version 1, not yet started.
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

    /// Appends `entry` to the history (the newest `maximumHistory` kept); ``updatedAt`` is its time.
    package mutating func record(_ entry: HistoryEntry) {
        history.append(entry)
        if history.count > Self.maximumHistory { history.removeFirst(history.count - Self.maximumHistory) }
        updatedAt = entry.time
    }
}

/// What a team reuses across flags: steps, guardrails and rules, without a flag or environment.
public struct RolloutTemplate: Sendable, Hashable, Codable {
    /// A key (letters, digits, `.`, `_`, `-`).
    public var name: String
    /// What the template is for, shown in the console; `nil` when not given.
    public var description: String?
    /// The steps a plan made from the template takes.
    public var steps: [RolloutPlan.Step]
    /// The guardrails a plan made from the template watches.
    public var guardrails: [RolloutGuardrail]
    /// The sequential test's error rate per guardrail (0.05 by default).
    public var alpha: Double
    /// How often a plan's guardrails are evaluated, in seconds (300 by default).
    public var evaluationIntervalSeconds: Int
    /// What a regression does to a plan made from the template.
    public var onRegression: RolloutPlan.RegressionAction
    /// Which units get the new variant again when a plan is restarted after a rollback.
    public var restart: RolloutPlan.Restart
    /// When the template was created.
    public var createdAt: Date
    /// When the template last changed.
    public var updatedAt: Date
    /// Bumped on every stored change: an update based on an older version is refused.
    public var version: Int

    /// A template at version 1, created at `createdAt`.
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
    /// What a guardrail measures.
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

    /// What the guardrail measures.
    public var metric: Metric
    /// The custom event's name, for ``Metric/eventRate``.
    public var event: String?
    /// The stored experiment metric's key, for ``Metric/experimentMetric``.
    public var metricKey: String?
    /// The harm tolerated, in the rate's units (0.005: half a percentage point of sessions): a
    /// regression is a difference proven beyond it.
    public var tolerance: Double
    /// Which way of the difference is harmful.
    public var direction: Direction

    /// A guardrail on `metric`; `event` names the event for ``Metric/eventRate`` and `metricKey` the
    /// stored metric for ``Metric/experimentMetric``.
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

extension RolloutGuardrail {
    /// The fewest units each variant needs before a guardrail is evaluated, when the plan sets
    /// none (``RolloutPlan/minimumUnits``): below it the normal approximation behind the test does
    /// not hold, and a variance of zero (no crash yet on either side) would read as certainty.
    public static let defaultMinimumUnits = 100

    /// Sessions per unit are counted from these events: a session that ended cleanly sends
    /// `$session`, one that crashed `$crash` at the next launch (`FeatureFlagsEvents`).
    public static let sessionEvents = ["$session", crashEvent]

    /// The event a crashed session sends at the next launch: the crash rate's numerator.
    public static let crashEvent = "$crash"
}
