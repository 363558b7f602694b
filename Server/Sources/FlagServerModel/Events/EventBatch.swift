public import FlagEvaluation
import Foundation

/// One batch of events an app sent to the ingestion endpoint, as the server stores it: the wire
/// format of the library's `FlagEventBatch` (version 1, described in FeatureFlagsEvents' "Events"
/// article), checked and bounded, with the environment of the client token that sent it and the
/// time it arrived.
///
/// Times are milliseconds since 1970 (UTC), as on the wire.
public struct EventBatch: Sendable, Hashable {
    /// The id the device chose when it formed the batch; the same on every retry. A store counts a
    /// batch id once per environment.
    public var id: String
    /// The environment of the client token the batch came with.
    public var environment: String
    /// When the server accepted it (milliseconds since 1970).
    public var receivedAt: Int64
    /// The app every event of the batch came from.
    public var source: EventSource
    /// Events the device dropped since its previous batch.
    public var dropped: DroppedEvents
    /// The exposures of the batch, in the order sent.
    public var exposures: [Exposure]
    /// The evaluation summaries of the batch, in the order sent.
    public var summaries: [Summary]
    /// The tracked events of the batch, in the order sent.
    public var tracked: [Tracked]

    /// A batch with the id the device chose, as accepted at `receivedAt` (milliseconds since 1970).
    public init(
        id: String, environment: String, receivedAt: Int64, source: EventSource, dropped: DroppedEvents = DroppedEvents(),
        exposures: [Exposure] = [], summaries: [Summary] = [], tracked: [Tracked] = []
    ) {
        self.id = id
        self.environment = environment
        self.receivedAt = receivedAt
        self.source = source
        self.dropped = dropped
        self.exposures = exposures
        self.summaries = summaries
        self.tracked = tracked
    }

    /// Exposures, summaries and tracked events together.
    public var eventCount: Int { exposures.count + summaries.count + tracked.count }

    /// The app a batch came from.
    public struct EventSource: Sendable, Hashable {
        /// The app's version as it reports it (`CFBundleShortVersionString`); "" when it sent none.
        public var appVersion: String
        /// `debug`, `alpha`, `internal`, `release`; "" when it sent none.
        public var buildConfiguration: String
        /// `iOS`, `macOS`, `tvOS`, `watchOS`, `visionOS`, `Linux`…; "" when it sent none.
        public var platform: String

        /// The app that sent a batch.
        public init(appVersion: String, buildConfiguration: String, platform: String) {
            self.appVersion = appVersion
            self.buildConfiguration = buildConfiguration
            self.platform = platform
        }
    }

    /// What the device dropped (its queue was full) before this batch.
    public struct DroppedEvents: Sendable, Hashable {
        /// Exposures dropped.
        public var exposures: Int
        /// Evaluation summaries dropped.
        public var summaries: Int
        /// Tracked events dropped.
        public var tracked: Int

        /// Counts of events dropped on the device; zero where none were.
        public init(exposures: Int = 0, summaries: Int = 0, tracked: Int = 0) {
            self.exposures = exposures
            self.summaries = summaries
            self.tracked = tracked
        }
    }

    /// A unit was served a flag's variant: the first read in a session of that flag, variant and
    /// unit on the device.
    public struct Exposure: Sendable, Hashable {
        /// The flag's key.
        public var flag: String
        /// "" for a value served without a variant name.
        public var variant: String
        /// Absent for a flag marked sensitive, and whenever the device left it out.
        public var value: JSONValue?
        /// OpenFeature's reason (`TARGETING_MATCH`, `SPLIT`, `STATIC`, `DEFAULT`…).
        public var reason: String
        /// The `ETag` of the response the value came from.
        public var revision: String?
        /// The targeting key it was served to; nil for an anonymous context.
        public var unit: String?
        /// When it was served (milliseconds since 1970).
        public var time: Int64

        /// An exposure of `flag`'s `variant` to `unit` at `time` (milliseconds since 1970).
        public init(
            flag: String, variant: String, value: JSONValue? = nil, reason: String, revision: String? = nil, unit: String?,
            time: Int64
        ) {
            self.flag = flag
            self.variant = variant
            self.value = value
            self.reason = reason
            self.revision = revision
            self.unit = unit
            self.time = time
        }
    }

    /// Reads of one flag with one variant and reason between `start` and `end`, counted on the
    /// device.
    public struct Summary: Sendable, Hashable {
        /// The flag's key.
        public var flag: String
        /// "" for reads of a local value (code default, build configuration, override).
        public var variant: String
        /// OpenFeature's reason the reads gave (`TARGETING_MATCH`, `STATIC`, `DEFAULT`…).
        public var reason: String
        /// How many reads the summary counts (at least 1).
        public var count: Int
        /// The first read's time (milliseconds since 1970).
        public var start: Int64
        /// The last read's time (milliseconds since 1970), not before ``start``.
        public var end: Int64

        /// A summary of `count` reads of `flag` with `variant` and `reason` between `start` and `end`.
        public init(flag: String, variant: String, reason: String, count: Int, start: Int64, end: Int64) {
            self.flag = flag
            self.variant = variant
            self.reason = reason
            self.count = count
            self.start = start
            self.end = end
        }
    }

    /// An event the app tracked (`track(_:value:attributes:)`).
    public struct Tracked: Sendable, Hashable {
        /// The event's name (`purchase`, or a reserved `$session`, `$crash`, `$error`).
        public var name: String
        /// The event's number (an amount, a duration), if the app gave one.
        public var value: Double?
        /// Attributes the app attached to the event.
        public var attributes: [String: JSONValue]
        /// The targeting key of the unit it happened to; `nil` for an anonymous context.
        public var unit: String?
        /// The variants the unit was exposed to in its session, by flag key.
        public var variants: [String: String]
        /// When it happened (milliseconds since 1970).
        public var time: Int64

        /// A tracked event named `name` of `unit` at `time` (milliseconds since 1970).
        public init(
            name: String, value: Double? = nil, attributes: [String: JSONValue] = [:], unit: String?,
            variants: [String: String] = [:], time: Int64
        ) {
            self.name = name
            self.value = value
            self.attributes = attributes
            self.unit = unit
            self.variants = variants
            self.time = time
        }
    }
}

extension EventBatch {
    /// The tracked events of the SDK's session health monitor: the evidence of crash- and
    /// error-rate guardrails, which a batch sent with `Flag-Event-Priority: health` carries alone.
    public static let sessionHealthEventNames: Set<String> = ["$session", "$crash", "$error"]

    /// What keeps the batch from being session health events alone (exposures, summaries, another
    /// tracked event's name), or `nil` when it is.
    package var notSessionHealth: String? {
        if !exposures.isEmpty { return "\(exposures.count) exposures" }
        if !summaries.isEmpty { return "\(summaries.count) evaluation summaries" }
        if let other = tracked.first(where: { !Self.sessionHealthEventNames.contains($0.name) }) {
            return "a tracked event named \"\(other.name.prefix(64))\""
        }
        return nil
    }
}
