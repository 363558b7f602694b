import FeatureFlags
import Foundation

/// One request body of event delivery: exposures, evaluation summaries and tracked events of
/// one app (``source``), with an id the server uses to count a batch once however often it is
/// sent. The wire format the flag server's ingestion endpoint reads; see the "Events" article.
///
/// Times are milliseconds since 1970 (UTC). Members without a value are left out.
public struct FlagEventBatch: Sendable, Hashable, Codable {
    /// The format's version: 1.
    public var version: Int
    /// A UUID chosen when the batch is formed and kept across every retry and relaunch.
    public var batchId: String
    /// The app every event of the batch came from.
    public var source: FlagEventSource
    /// Events dropped on the device since the previous batch, when any were.
    public var dropped: FlagEventDropCounts?
    /// The exposures, in the order recorded.
    public var exposures: [Exposure]
    /// The evaluation summaries.
    public var summaries: [Summary]
    /// The tracked events, in the order recorded.
    public var events: [Tracked]

    /// A unit was served a flag's value (the first read of each flag, variant and unit in a
    /// session).
    public struct Exposure: Sendable, Hashable, Codable {
        /// The flag's key.
        public var flag: String
        /// The variant served, when the server named one.
        public var variant: String?
        /// Left out for sensitive flags.
        public var value: FlagValue?
        /// Why the value was chosen, in OpenFeature's vocabulary (`TARGETING_MATCH`, `SPLIT`, …).
        public var reason: String
        /// The server's revision of the flags the value came from, when it said.
        public var revision: String?
        /// The evaluation context's targeting key the value was served for.
        public var unit: String?
        /// When the flag was first read (milliseconds since 1970).
        public var time: Int64
    }

    /// Reads of one flag with one variant and reason between `start` and `end`.
    public struct Summary: Sendable, Hashable, Codable {
        /// The flag's key.
        public var flag: String
        /// The variant read; `nil` for a local value (code default, build default, override).
        public var variant: String?
        /// Why the reads had their value, in OpenFeature's vocabulary.
        public var reason: String
        /// How many reads the summary counts (at least 1).
        public var count: Int
        /// The first read's time (milliseconds since 1970).
        public var start: Int64
        /// The last read's time (milliseconds since 1970).
        public var end: Int64
    }

    /// An event the app tracked.
    public struct Tracked: Sendable, Hashable, Codable {
        /// The event's name (`purchase`, or a reserved `$session`, `$crash`, `$error`).
        public var name: String
        /// The event's number (a price, a duration), if the app gave one.
        public var value: Double?
        /// The attributes the recorder kept.
        public var attributes: [String: FlagValue]
        /// The targeting key of the values in effect when it was tracked; `nil` for an anonymous context.
        public var unit: String?
        /// The variants the unit was exposed to, by flag key.
        public var variants: [String: String]
        /// When it was tracked (milliseconds since 1970).
        public var time: Int64
    }

    /// The batch of `events` (all from `source`).
    public init(batchId: String, source: FlagEventSource, dropped: FlagEventDropCounts, events: [FlagEvent]) {
        self.version = 1
        self.batchId = batchId
        self.source = source
        self.dropped = dropped.isEmpty ? nil : dropped
        exposures = []
        summaries = []
        self.events = []
        for event in events {
            switch event {
            case .exposure(let exposure):
                exposures.append(
                    Exposure(
                        flag: exposure.flag, variant: exposure.variant, value: exposure.value,
                        reason: exposure.reason.rawValue, revision: exposure.revision, unit: exposure.unit,
                        time: Self.milliseconds(exposure.time)))
            case .summary(let summary):
                summaries.append(
                    Summary(
                        flag: summary.flag, variant: summary.variant, reason: summary.reason.rawValue,
                        count: summary.count, start: Self.milliseconds(summary.start), end: Self.milliseconds(summary.end)))
            case .tracked(let tracked):
                self.events.append(
                    Tracked(
                        name: tracked.name, value: tracked.value, attributes: tracked.attributes, unit: tracked.unit,
                        variants: tracked.variants, time: Self.milliseconds(tracked.time)))
            }
        }
    }

    /// The number of exposures, summaries and tracked events.
    public var eventCount: Int { exposures.count + summaries.count + events.count }

    /// The body to send: compact JSON with sorted keys.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}

extension FlagEventBatch {
    /// The session health monitor's events (`$session`, `$crash`, `$error`): the evidence of a
    /// guarded rollout's crash- and error-rate guardrails.
    public static let sessionHealthEventNames: Set<String> = [
        SessionHealthMonitor.sessionEventName, SessionHealthMonitor.crashEventName, SessionHealthMonitor.errorEventName,
    ]

    /// Whether the batch holds session health events and nothing else (no exposures, summaries,
    /// other tracked events): delivery sends such a batch with `Flag-Event-Priority: health`.
    public var isSessionHealthOnly: Bool {
        exposures.isEmpty && summaries.isEmpty && !events.isEmpty
            && events.allSatisfy { Self.sessionHealthEventNames.contains($0.name) }
    }
}
