import Foundation
import Logging

/// Records what the app's flags did: exposures (the first read of a flag's remote value by each
/// unit in a session), counts of every read (evaluation summaries) and the events the app tracks.
/// Delivery (`FlagEventDelivery` in FeatureFlagsEvents) drains it on an interval into a queue on
/// disk; hooks see each event as it is recorded.
///
/// ```swift
/// let recorder = FlagEventRecorder(.init(
///     source: FlagEventSource(buildConfiguration: .current),   // app version, OS… read once
///     allowedAttributes: ["plan", "screen"]))
/// let flags = FeatureFlagManager<AppFlag>(FlagSetup(
///     buildConfiguration: .current, remoteProvider: loader, eventRecorder: recorder))
/// flags.track("checkout", value: 42.5, attributes: ["plan": "pro"])
/// ```
///
/// A check with recording on stays a read: it loads one more word, counts in a row of counters
/// its thread rarely shares, and only the first read of a newly published remote value takes the
/// recorder's lock. The recorder keeps at most ``Configuration/maximumBufferedEvents`` exposures
/// and tracked events between drains; beyond that it drops new ones and counts them
/// (``FlagEventDrain/dropped``). Summaries are one entry per flag, variant and reason and are never
/// dropped.
public final class FlagEventRecorder: Sendable {
    /// What to record and how much to keep.
    public struct Configuration: Sendable {
        /// The app the events come from.
        public var source: FlagEventSource
        /// The attribute names ``FlagEventRecorder/track(_:value:attributes:unit:)`` keeps; the
        /// others are left out (and logged once per name), so nothing the app did not choose
        /// leaves the device.
        public var allowedAttributes: Set<String>
        /// The most exposures and tracked events kept between two drains (1,000).
        public var maximumBufferedEvents: Int
        /// When this many events are waiting, the recorder asks delivery to drain early (200).
        public var flushThreshold: Int
        /// The most flag, variant and unit combinations remembered to recognise repeated
        /// exposures (100,000). When full, the memory starts over: an exposure already sent may be
        /// sent again (the server counts a unit once per variant anyway), and the variants
        /// attributed to tracked events are kept for the current unit only.
        public var maximumRememberedExposures: Int
        /// Receive every event as it is recorded.
        public var hooks: [any FlagEventHook]
        /// The clock events are stamped with.
        public var now: @Sendable () -> Date
        /// Where dropped attributes and over-long names are reported.
        public var logger: Logger

        /// A configuration with the defaults documented on each member.
        public init(
            source: FlagEventSource, allowedAttributes: Set<String> = [], maximumBufferedEvents: Int = 1_000,
            flushThreshold: Int = 200, maximumRememberedExposures: Int = 100_000, hooks: [any FlagEventHook] = [],
            now: @escaping @Sendable () -> Date = Date.init,
            logger: Logger = Logger(label: "feature-flags.events")
        ) {
            self.source = source
            self.allowedAttributes = allowedAttributes
            self.maximumBufferedEvents = maximumBufferedEvents
            self.flushThreshold = flushThreshold
            self.maximumRememberedExposures = max(1, maximumRememberedExposures)
            self.hooks = hooks
            self.now = now
            self.logger = logger
        }
    }

    /// The longest event name ``track(_:value:attributes:unit:)`` accepts, in UTF-8 bytes.
    public static let maximumNameLength = 256
    /// The longest attribute value kept, as JSON text in UTF-8 bytes.
    public static let maximumAttributeLength = 1_024

    /// What the recorder records and how much it keeps.
    public let configuration: Configuration

    struct ExposureKey: Hashable {
        var flag: String
        var variant: String?
        var unit: String?
    }

    struct SummaryKey: Hashable {
        var flag: String
        var variant: String?
        var reason: FlagReason
    }

    struct State {
        var exposed: Set<ExposureKey> = []
        var variantsByUnit: [String?: [String: String]] = [:]
        var buffered: [FlagEvent] = []
        var dropped = FlagEventDropCounts()
        var counts: [SummaryKey: Int] = [:]
        var intervalStart: Date
        var harvesters: [ObjectIdentifier: @Sendable () -> Void] = [:]
        var rearmers: [ObjectIdentifier: @Sendable () -> Void] = [:]
        var wake: (@Sendable () -> Void)?
        var woke = false
        var warnedAttributes: Set<String> = []
    }

    private let state: Locked<State>

    /// A recorder with `configuration`, empty until the first read or track.
    public init(_ configuration: Configuration) {
        self.configuration = configuration
        state = Locked(State(intervalStart: configuration.now()))
    }

    // MARK: - Recording

    /// Records that `unit` was served a flag's remote value, unless this flag, variant and unit
    /// were already recorded in this session (since the recorder was made or the latest
    /// ``beginSession()``). Called by the flags on the first read of each published remote value;
    /// apps with reads of their own (a provider outside the manager) may call it directly.
    public func recordExposure(
        flag: String, variant: String?, value: FlagValue, isSensitive: Bool, reason: FlagReason, revision: String?,
        unit: String?
    ) {
        let key = ExposureKey(flag: flag, variant: variant, unit: unit)
        let exposure = FlagExposure(
            flag: flag, variant: variant, value: isSensitive ? nil : value, reason: reason, revision: revision, unit: unit,
            time: configuration.now(), source: configuration.source)
        let (recorded, wake) = state.withLock { state -> (Bool, (@Sendable () -> Void)?) in
            guard !state.exposed.contains(key) else { return (false, nil) }
            if state.exposed.count >= configuration.maximumRememberedExposures {
                // Bounded memory: start over, keeping the current unit's variants for attribution.
                state.exposed = []
                state.variantsByUnit = state.variantsByUnit.filter { $0.key == unit }
            }
            state.exposed.insert(key)
            if let variant { state.variantsByUnit[unit, default: [:]][flag] = variant }
            return (true, Self.buffer(.exposure(exposure), in: &state, configuration: configuration))
        }
        guard recorded else { return }
        for hook in configuration.hooks { hook.didExpose(exposure) }
        wake?()
    }

    /// Records an event the app tracked, attributed to `unit` and to the variants it was exposed
    /// to in this session. Attributes not in ``Configuration/allowedAttributes`` are left out, and
    /// so are values longer than ``maximumAttributeLength``; a name that is empty, longer than
    /// ``maximumNameLength`` or beginning with `$` (reserved for the library's own events:
    /// `$session`, `$crash`, `$error` of FeatureFlagsEvents' session health monitor) is
    /// refused, logged and counted as dropped.
    ///
    /// Apps call ``FeatureFlagManager/track(_:value:attributes:)``, which passes the unit of the
    /// remote values in effect.
    public func track(_ name: String, value: Double? = nil, attributes: [String: FlagValue] = [:], unit: String?) {
        guard !name.isEmpty, name.utf8.count <= Self.maximumNameLength, value?.isFinite ?? true, !name.hasPrefix("$") else {
            let shown =
                name.isEmpty
                ? "an empty name" : name.hasPrefix("$") ? "the reserved name '\(name.prefix(64))'" : "a name of \(name.utf8.count) bytes"
            configuration.logger.warning(
                "Dropped a tracked event with \(value?.isFinite == false ? "a value that is not finite" : shown): names are 1 to \(Self.maximumNameLength) bytes, not beginning with '$' (the library's own events, such as session health's '$crash'), and values finite numbers.")
            state.withLock { $0.dropped.tracked += 1 }
            return
        }
        var kept: [String: FlagValue] = [:]
        var refused: [String] = []
        for (key, attribute) in attributes {
            if configuration.allowedAttributes.contains(key), attribute.jsonString.utf8.count <= Self.maximumAttributeLength {
                kept[key] = attribute
            } else {
                refused.append(key)
            }
        }
        let time = configuration.now()
        let (event, wake, newlyRefused) = state.withLock { state in
            let event = TrackedFlagEvent(
                name: name, value: value, attributes: kept, unit: unit, variants: state.variantsByUnit[unit] ?? [:],
                time: time, source: configuration.source)
            let wake = Self.buffer(.tracked(event), in: &state, configuration: configuration)
            let newlyRefused = refused.filter { state.warnedAttributes.insert($0).inserted }
            return (event, wake, newlyRefused)
        }
        for key in newlyRefused.sorted() {
            configuration.logger.warning(
                "Left the attribute '\(key)' out of tracked events: it is not in the recorder's allowed attributes, or its value is longer than \(Self.maximumAttributeLength) bytes.")
        }
        for hook in configuration.hooks { hook.didTrack(event) }
        wake?()
    }

    /// Begins a new session of the app (a return to the foreground, say): the exposures of the
    /// previous one are forgotten, so the next read of each remote value in the flags that
    /// record here is an exposure again, and tracked events carry the variants of this session
    /// only. FeatureFlagsEvents' `SessionHealthMonitor` calls it when it begins a session, so
    /// that a session's variants reach its marker however long the process has run.
    ///
    /// Costs a lock and one store per remote flag; checks keep counting meanwhile.
    public func beginSession() {
        let rearmers = state.withLock { state in
            state.exposed = []
            state.variantsByUnit = [:]
            return Array(state.rearmers.values)
        }
        for rearm in rearmers { rearm() }
    }

    /// Adds read counts, one per flag, variant and reason (from the flags' counters).
    func addCounts(_ counts: [(flag: String, variant: String?, reason: FlagReason, count: Int)]) {
        guard !counts.isEmpty else { return }
        state.withLock { state in
            for entry in counts {
                state.counts[SummaryKey(flag: entry.flag, variant: entry.variant, reason: entry.reason), default: 0] +=
                    entry.count
            }
        }
    }

    private static func buffer(
        _ event: FlagEvent, in state: inout State, configuration: Configuration
    ) -> (@Sendable () -> Void)? {
        guard state.buffered.count < configuration.maximumBufferedEvents else {
            switch event {
            case .exposure: state.dropped.exposures += 1
            case .tracked: state.dropped.tracked += 1
            case .summary: state.dropped.summaries += 1
            }
            return nil
        }
        state.buffered.append(event)
        guard state.buffered.count >= configuration.flushThreshold, !state.woke else { return nil }
        state.woke = true
        return state.wake
    }

    // MARK: - Draining

    /// Everything recorded since the previous drain: exposures and tracked events in the order
    /// they were recorded, then one summary per flag, variant and reason read since then (sorted
    /// by flag), and what was dropped.
    public func drain() -> FlagEventDrain {
        let harvesters = state.withLock { Array($0.harvesters.values) }
        for harvest in harvesters { harvest() }
        let end = configuration.now()
        let (events, summaries, dropped) = state.withLock { state in
            let summaries = state.counts.map { key, count in
                FlagEvaluationSummary(
                    flag: key.flag, variant: key.variant, reason: key.reason, count: count, start: state.intervalStart,
                    end: end, source: configuration.source)
            }.sorted { ($0.flag, $0.variant ?? "", $0.reason.rawValue) < ($1.flag, $1.variant ?? "", $1.reason.rawValue) }
            defer {
                state.buffered = []
                state.counts = [:]
                state.dropped = FlagEventDropCounts()
                state.intervalStart = end
                state.woke = false
            }
            return (state.buffered, summaries, state.dropped)
        }
        if !summaries.isEmpty {
            for hook in configuration.hooks { hook.didSummarize(summaries) }
        }
        return FlagEventDrain(events: events + summaries.map(FlagEvent.summary), dropped: dropped)
    }

    /// Whether exposures or tracked events wait to be drained.
    public var hasBufferedEvents: Bool { state.withLock { !$0.buffered.isEmpty } }

    /// Calls `wake` (from any thread) when ``Configuration/flushThreshold`` events are waiting:
    /// delivery's cue to drain before its interval is up. Replaces the previous handler.
    public func onFlushThreshold(_ wake: @escaping @Sendable () -> Void) {
        state.withLock { $0.wake = wake }
    }

    /// The variants `unit` was exposed to in this session, by flag key.
    public func exposedVariants(of unit: String?) -> [String: String] {
        state.withLock { $0.variantsByUnit[unit] ?? [:] }
    }

    /// Lets the flags add their read counts at every drain and record exposures again at every
    /// ``beginSession()`` (called when they are configured).
    func attach(_ owner: some FlagExposureRearming, harvest: @escaping @Sendable () -> Void) {
        state.withLock {
            $0.harvesters[ObjectIdentifier(owner)] = harvest
            $0.rearmers[ObjectIdentifier(owner)] = { [weak owner] in owner?.rearmExposures() }
        }
    }

    func detach(_ owner: AnyObject) {
        state.withLock {
            _ = $0.harvesters.removeValue(forKey: ObjectIdentifier(owner))
            _ = $0.rearmers.removeValue(forKey: ObjectIdentifier(owner))
        }
    }
}

/// What one ``FlagEventRecorder/drain()`` returns.
public struct FlagEventDrain: Sendable, Hashable {
    /// Exposures and tracked events in the order recorded, then summaries.
    public var events: [FlagEvent]
    /// What the recorder had to drop since the previous drain.
    public var dropped: FlagEventDropCounts

    /// A drain of `events` with what was `dropped` before them.
    public init(events: [FlagEvent], dropped: FlagEventDropCounts) {
        self.events = events
        self.dropped = dropped
    }
}

/// Flags that record into a ``FlagEventRecorder`` (the engine): at a new session, the next read of
/// each remote value goes out of line to record its exposure again.
protocol FlagExposureRearming: AnyObject, Sendable {
    func rearmExposures()
}
