public import FlagEvaluation
public import Foundation

/// Something that happened on the server that people may want to hear of at once: a committed
/// change, a scheduled change that ran, a rollout step, a rollback, an approval.
///
/// Producers hand notifications to a ``NotificationSink``; what the sink does with them (signed
/// webhooks, a log) is its own business. A notification is sent after the fact it reports was
/// committed, never for a write that failed.
public struct ServerNotification: Sendable, Hashable, Codable {
    /// What happened. The raw value is the name receivers see (`flag.changed`, …).
    public struct Kind: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The name receivers see, such as `flag.changed`.
        public var rawValue: String
        /// A kind named `rawValue`; the server sends only the kinds declared here.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The kind's name, as receivers see it.
        public var description: String { rawValue }

        /// A committed write changed flags, segments or environments.
        public static let flagChanged = Kind(rawValue: "flag.changed")
        /// A flag was turned off through the break-glass kill switch, past any approval rule.
        public static let killSwitch = Kind(rawValue: "flag.kill_switch")
        /// A scheduled change was created (through the API, or by the scheduler for a due change request).
        public static let scheduleCreated = Kind(rawValue: "schedule.created")
        /// A scheduled change was edited.
        public static let scheduleUpdated = Kind(rawValue: "schedule.updated")
        /// A scheduled change was cancelled.
        public static let scheduleCancelled = Kind(rawValue: "schedule.cancelled")
        /// A scheduled change's time came and it was applied (the notification's revision is the new one).
        public static let scheduleRan = Kind(rawValue: "schedule.ran")
        /// A scheduled change was not applied: the flag left the revision it was based on.
        public static let scheduleHeld = Kind(rawValue: "schedule.held")
        /// A scheduled change's time passed while no server ran, and the rule said not to run it.
        public static let scheduleMissed = Kind(rawValue: "schedule.missed")
        /// A scheduled change was not applied: the write was refused (an approval rule, a change
        /// that is no longer valid).
        public static let scheduleFailed = Kind(rawValue: "schedule.failed")
        /// A rollout started (its first step) or took its next step.
        public static let rolloutStepped = Kind(rawValue: "rollout.stepped")
        /// A rollout was paused: by hand, by a guardrail that pauses, or because its flag was switched off.
        public static let rolloutPaused = Kind(rawValue: "rollout.paused")
        /// A rollout was rolled back, by hand or by a guardrail.
        public static let rolloutRolledBack = Kind(rawValue: "rollout.rolled_back")
        /// A rollout reached 100 %.
        public static let rolloutFinished = Kind(rawValue: "rollout.finished")
        /// A change request was opened.
        public static let changeRequestOpened = Kind(rawValue: "change_request.opened")
        /// A change request received an approval.
        public static let changeRequestApproved = Kind(rawValue: "change_request.approved")
        /// A change request was rejected.
        public static let changeRequestRejected = Kind(rawValue: "change_request.rejected")
        /// A change request was applied (the details carry the revision it produced).
        public static let changeRequestApplied = Kind(rawValue: "change_request.applied")
        /// An experiment started, its allocation recorded.
        public static let experimentStarted = Kind(rawValue: "experiment.started")
        /// An experiment stopped.
        public static let experimentStopped = Kind(rawValue: "experiment.stopped")
        /// An experiment was shipped with one arm, made the flag's default variant.
        public static let experimentShipped = Kind(rawValue: "experiment.shipped")
    }

    /// What happened.
    public var kind: Kind
    /// When it happened.
    public var time: Date
    /// Who did it: an admin token's name, a console user, or `scheduler` / `rollout` for the
    /// server's own actions.
    public var actor: String
    /// The environment it happened in; `nil` for facts of no environment (a webhook ping).
    public var environment: String?
    /// The flag it concerns, if any.
    public var flag: String?
    /// The environment revision the fact produced, when it produced one.
    public var revision: Int?
    /// One sentence for people: "checkout: rollout rolled back at 5 % (crash rate +2.1 points)".
    public var summary: String
    /// Machine-readable details of the kind (ids, numbers, bounds). Never holds a secret or a
    /// sensitive flag's values.
    public var details: [String: JSONValue]

    /// A notification of `kind` at `time` by `actor`.
    public init(
        kind: Kind, time: Date, actor: String, environment: String? = nil, flag: String? = nil, revision: Int? = nil,
        summary: String, details: [String: JSONValue] = [:]
    ) {
        self.kind = kind
        self.time = time
        self.actor = actor
        self.environment = environment
        self.flag = flag
        self.revision = revision
        self.summary = summary
        self.details = details
    }
}

/// Where notifications go. ``notify(_:)`` must return at once (queue the work): it is called on
/// the write path, and a slow or failed receiver must never slow a write.
public protocol NotificationSink: Sendable {
    /// Hands `notification` over for delivery; returns at once, without waiting for receivers.
    func notify(_ notification: ServerNotification)
}

/// The sink of a server with no receivers: notifications are dropped.
public struct DiscardingNotificationSink: NotificationSink {
    /// A sink that drops every notification.
    public init() {}
    /// Drops `notification`.
    public func notify(_ notification: ServerNotification) {}
}
