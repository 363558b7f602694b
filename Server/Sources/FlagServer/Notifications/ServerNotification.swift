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
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A committed write changed flags, segments or environments.
        public static let flagChanged = Kind(rawValue: "flag.changed")
        /// A flag was turned off through the break-glass kill switch, past any approval rule.
        public static let killSwitch = Kind(rawValue: "flag.kill_switch")
        public static let scheduleCreated = Kind(rawValue: "schedule.created")
        public static let scheduleUpdated = Kind(rawValue: "schedule.updated")
        public static let scheduleCancelled = Kind(rawValue: "schedule.cancelled")
        public static let scheduleRan = Kind(rawValue: "schedule.ran")
        /// A scheduled change was not applied: the flag left the revision it was based on.
        public static let scheduleHeld = Kind(rawValue: "schedule.held")
        /// A scheduled change's time passed while no server ran, and the rule said not to run it.
        public static let scheduleMissed = Kind(rawValue: "schedule.missed")
        /// A scheduled change was not applied: the write was refused (an approval rule, a change
        /// that is no longer valid).
        public static let scheduleFailed = Kind(rawValue: "schedule.failed")
        public static let rolloutStepped = Kind(rawValue: "rollout.stepped")
        public static let rolloutPaused = Kind(rawValue: "rollout.paused")
        public static let rolloutRolledBack = Kind(rawValue: "rollout.rolled_back")
        public static let rolloutFinished = Kind(rawValue: "rollout.finished")
        public static let changeRequestOpened = Kind(rawValue: "change_request.opened")
        public static let changeRequestApproved = Kind(rawValue: "change_request.approved")
        public static let changeRequestRejected = Kind(rawValue: "change_request.rejected")
        public static let changeRequestApplied = Kind(rawValue: "change_request.applied")
        public static let experimentStarted = Kind(rawValue: "experiment.started")
        public static let experimentStopped = Kind(rawValue: "experiment.stopped")
        public static let experimentShipped = Kind(rawValue: "experiment.shipped")
    }

    public var kind: Kind
    /// When it happened.
    public var time: Date
    /// Who did it: an admin token's name, a console user, or `scheduler` / `rollout` for the
    /// server's own actions.
    public var actor: String
    public var environment: String?
    public var flag: String?
    /// The environment revision the fact produced, when it produced one.
    public var revision: Int?
    /// One sentence for people: "checkout: rollout rolled back at 5 % (crash rate +2.1 points)".
    public var summary: String
    /// Machine-readable details of the kind (ids, numbers, bounds). Never holds a secret or a
    /// sensitive flag's values.
    public var details: [String: JSONValue]

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
    func notify(_ notification: ServerNotification)
}

/// The sink of a server with no receivers: notifications are dropped.
public struct DiscardingNotificationSink: NotificationSink {
    public init() {}
    public func notify(_ notification: ServerNotification) {}
}
