/// What ``SessionHealthMonitor/start(delivering:)`` found and did.
public struct SessionHealthReport: Sendable, Hashable {
    /// A session an earlier launch left a marker of.
    public struct PreviousSession: Sendable, Hashable {
        /// How it was found.
        public enum Outcome: String, Sendable, Hashable {
            /// It did not end cleanly: reported as `$crash` with its units and variants.
            case crashed
            /// Its end was recorded in the marker (the end could not be queued then): `$session`.
            case endedCleanly
            /// The marker could not be read (corrupt, oversized, out of bounds): `$crash` without
            /// variants.
            case unreadable
        }

        /// Its id; `nil` when an unreadable marker's file name names none.
        public var id: String?
        /// How the session was found.
        public var outcome: Outcome
        /// The units its events are attributed to.
        public var units: Int
        /// Whether this launch queued its report; `false` when a launch killed after queuing it
        /// and before removing the marker already had.
        public var queued: Bool

        /// A previous session as the monitor found it.
        public init(id: String?, outcome: Outcome, units: Int, queued: Bool) {
            self.id = id
            self.outcome = outcome
            self.units = units
            self.queued = queued
        }
    }

    /// The session running now, whose marker was written.
    public var session: String?
    /// The sessions reported, oldest marker name first.
    public var previous: [PreviousSession]
    /// What went wrong (a report that could not be queued stays for the next launch).
    public var problems: [String]
}
