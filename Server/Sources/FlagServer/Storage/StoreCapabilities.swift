/// The stores a backend provides beside its flags, listed by the backend itself.
///
/// Features that need more than flags (approvals, experiments, rollouts, schedules, webhooks,
/// console accounts, replication) read their store here once: `admin.store.capabilities.rollouts`.
/// A feature whose store is `nil` is off on that backend (its routes answer 404 and say so). Both
/// shipped backends, ``SQLiteFlagStore`` and ``PostgresFlagStore``, provide every store; a store
/// written for tests provides none unless it lists some.
public struct StoreCapabilities: Sendable {
    /// Change requests and approval rules.
    public var approvals: (any ApprovalStore)?
    /// Experiments and their metrics.
    public var experiments: (any ExperimentStore)?
    /// Rollout plans and the executor's leases.
    public var rollouts: (any RolloutStore)?
    /// Scheduled changes.
    public var schedules: (any ScheduleStore)?
    /// Webhook endpoints and their outbox.
    public var webhooks: (any WebhookStore)?
    /// Console users, their sessions and sign-in records.
    public var consoleAccounts: (any ConsoleAccountStore)?
    /// Commits announced to the other replicas sharing the database.
    public var replicated: (any ReplicatedFlagStore)?

    /// Capabilities with the given stores; `nil` (the default) leaves a feature off.
    public init(
        approvals: (any ApprovalStore)? = nil, experiments: (any ExperimentStore)? = nil, rollouts: (any RolloutStore)? = nil,
        schedules: (any ScheduleStore)? = nil, webhooks: (any WebhookStore)? = nil,
        consoleAccounts: (any ConsoleAccountStore)? = nil, replicated: (any ReplicatedFlagStore)? = nil
    ) {
        self.approvals = approvals
        self.experiments = experiments
        self.rollouts = rollouts
        self.schedules = schedules
        self.webhooks = webhooks
        self.consoleAccounts = consoleAccounts
        self.replicated = replicated
    }

    /// Every feature's store, all provided by `store` (what both shipped backends provide), and
    /// `replicated` when the store is shared by replicas.
    public static func all<Store>(_ store: Store, replicated: (any ReplicatedFlagStore)? = nil) -> StoreCapabilities
    where Store: ApprovalStore & ExperimentStore & RolloutStore & ScheduleStore & WebhookStore & ConsoleAccountStore {
        StoreCapabilities(
            approvals: store, experiments: store, rollouts: store, schedules: store, webhooks: store, consoleAccounts: store,
            replicated: replicated)
    }
}

extension FlagStore {
    /// None: a store provides only flags unless it lists more.
    public var capabilities: StoreCapabilities { StoreCapabilities() }
}

extension ReplicatedFlagStore {
    /// Replication only: a replicated store provides it by what it is.
    public var capabilities: StoreCapabilities { StoreCapabilities(replicated: self) }
}

/// The readings an event store provides beside ingestion and insights, listed by the store itself.
public struct EventStoreCapabilities: Sendable {
    /// Experiment results counted incrementally per unit (experiments and metric guardrails).
    public var experimentResults: (any ExperimentResultsStore)?
    /// Sessions and crashes per variant (session health on insights).
    public var sessionHealth: (any SessionHealthCounting)?
    /// The counts rollout guardrails compare (`nil`: no guardrail is evaluated).
    public var rolloutEvents: (any RolloutEventCounting)?
    /// Health events with and without a variant (a rollout's attribution).
    public var rolloutAttribution: (any RolloutAttributionCounting)?
    /// Experiment results split by the units' app version or platform.
    public var experimentSegments: (any ExperimentSegmentStore)?

    /// Capabilities with the given readings; `nil` (the default) leaves a reading off.
    public init(
        experimentResults: (any ExperimentResultsStore)? = nil, sessionHealth: (any SessionHealthCounting)? = nil,
        rolloutEvents: (any RolloutEventCounting)? = nil, rolloutAttribution: (any RolloutAttributionCounting)? = nil,
        experimentSegments: (any ExperimentSegmentStore)? = nil
    ) {
        self.experimentResults = experimentResults
        self.sessionHealth = sessionHealth
        self.rolloutEvents = rolloutEvents
        self.rolloutAttribution = rolloutAttribution
        self.experimentSegments = experimentSegments
    }

    /// Every reading, all provided by `store` (what both shipped event stores provide).
    public static func all<Store>(_ store: Store) -> EventStoreCapabilities
    where Store: ExperimentResultsStore & SessionHealthCounting & RolloutEventCounting & RolloutAttributionCounting & ExperimentSegmentStore {
        EventStoreCapabilities(
            experimentResults: store, sessionHealth: store, rolloutEvents: store, rolloutAttribution: store, experimentSegments: store)
    }
}

extension FlagEventStore {
    /// None: an event store provides only ingestion and insights unless it lists more.
    public var capabilities: EventStoreCapabilities { EventStoreCapabilities() }
}
