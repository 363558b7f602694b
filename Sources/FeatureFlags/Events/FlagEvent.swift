import Foundation

/// Where events come from: the app's version, its build configuration and its platform, and
/// the rest of the ``AppContext`` (build number, OS version, device class, locale). Every event
/// carries the source it was recorded under, so events queued before an app update are reported
/// with the version that recorded them.
///
/// ```swift
/// let source = FlagEventSource(buildConfiguration: .release)   // the app context, read once
/// ```
public struct FlagEventSource: Sendable, Hashable, Codable {
    /// The app's version (`CFBundleShortVersionString` on Apple platforms), `""` when unknown.
    public var appVersion: String
    /// The build configuration the app runs as (`debug`, `alpha`, `internal`, `release`).
    public var buildConfiguration: String
    /// The platform (`iOS`, `macOS`, `Linux`…): the app context's OS name.
    public var platform: String
    /// The app's build number (`CFBundleVersion`), when known and not excluded.
    public var appBuild: String?
    /// The operating system's version (`18.2.0`), when known and not excluded.
    public var osVersion: String?
    /// The device class (`phone`, `pad`, `mac`…), when known and not excluded.
    public var deviceClass: String?
    /// The locale identifier (`en_NZ`), when known and not excluded.
    public var locale: String?

    /// The source an app context describes: its app version (`""` when unknown or excluded), its
    /// OS name as the platform (`""` when excluded), and its other included fields. Made once,
    /// when the recorder is configured; nothing is read on a check.
    ///
    /// - Parameters:
    ///   - buildConfiguration: The build configuration the app runs as.
    ///   - appContext: The app context, ``AppContext/current`` by default; set or exclude fields
    ///     there (`.current.excluding(.locale)`).
    public init(buildConfiguration: BuildConfiguration, appContext: AppContext = .current) {
        self.init(
            appVersion: appContext.value(of: .appVersion) ?? "", buildConfiguration: buildConfiguration.rawValue,
            platform: appContext.value(of: .osName) ?? "", appBuild: appContext.value(of: .appBuild),
            osVersion: appContext.value(of: .osVersion), deviceClass: appContext.value(of: .deviceClass),
            locale: appContext.value(of: .locale))
    }

    /// A source with exactly the values given; nothing is read from the app context.
    public init(appVersion: String, buildConfiguration: BuildConfiguration, platform: String = FlagEventSource.currentPlatform) {
        self.init(appVersion: appVersion, buildConfiguration: buildConfiguration.rawValue, platform: platform)
    }

    /// A source with exactly the values given; nothing is read from the app context.
    public init(
        appVersion: String, buildConfiguration: String, platform: String, appBuild: String? = nil, osVersion: String? = nil,
        deviceClass: String? = nil, locale: String? = nil
    ) {
        self.appVersion = appVersion
        self.buildConfiguration = buildConfiguration
        self.platform = platform
        self.appBuild = appBuild
        self.osVersion = osVersion
        self.deviceClass = deviceClass
        self.locale = locale
    }

    /// The platform this code was compiled for.
    public static var currentPlatform: String {
        #if os(iOS)
        "iOS"
        #elseif os(macOS)
        "macOS"
        #elseif os(tvOS)
        "tvOS"
        #elseif os(watchOS)
        "watchOS"
        #elseif os(visionOS)
        "visionOS"
        #elseif os(Linux)
        "Linux"
        #elseif os(Windows)
        "Windows"
        #elseif os(Android)
        "Android"
        #else
        "unknown"
        #endif
    }
}

/// A unit (the evaluation context's targeting key) was served a flag's remote value: recorded at
/// the first read of each flag, variant and unit in a session.
///
/// A sensitive flag's exposure carries its variant name and never its value.
public struct FlagExposure: Sendable, Hashable, Codable {
    /// The flag's key.
    public var flag: String
    /// The variant served, when the server named one.
    public var variant: String?
    /// The value served; `nil` for sensitive flags.
    public var value: FlagValue?
    /// Why the server chose it (`TARGETING_MATCH`, `SPLIT`…).
    public var reason: FlagReason
    /// The server's revision of the flags the value came from, when it said.
    public var revision: String?
    /// The targeting key the value was evaluated for, `nil` for an anonymous evaluation.
    public var unit: String?
    /// When the flag was first read.
    public var time: Date
    /// The app that read it.
    public var source: FlagEventSource

    /// An exposure of `flag` first read at `time` in the app `source` names.
    public init(
        flag: String, variant: String?, value: FlagValue?, reason: FlagReason, revision: String?, unit: String?,
        time: Date, source: FlagEventSource
    ) {
        self.flag = flag
        self.variant = variant
        self.value = value
        self.reason = reason
        self.revision = revision
        self.unit = unit
        self.time = time
        self.source = source
    }
}

/// How often a flag was read with one variant and reason over an interval, counted on the
/// device.
public struct FlagEvaluationSummary: Sendable, Hashable, Codable {
    /// The flag's key.
    public var flag: String
    /// The variant read: the server's variant name for remote values; `nil` otherwise.
    public var variant: String?
    /// The reason of the value read (`DEFAULT` for code defaults, `STATIC` for build
    /// configuration values, overrides and preferences, the server's reason for remote values).
    public var reason: FlagReason
    /// The number of reads.
    public var count: Int
    /// The start of the interval.
    public var start: Date
    /// The end of the interval.
    public var end: Date
    /// The app that read it.
    public var source: FlagEventSource

    /// A summary of `count` reads of `flag` with `variant` and `reason` between `start` and `end`.
    public init(
        flag: String, variant: String?, reason: FlagReason, count: Int, start: Date, end: Date, source: FlagEventSource
    ) {
        self.flag = flag
        self.variant = variant
        self.reason = reason
        self.count = count
        self.start = start
        self.end = end
        self.source = source
    }

    /// Whether `other` counts the same flag, variant, reason and source, so the two can merge.
    public func merges(with other: FlagEvaluationSummary) -> Bool {
        flag == other.flag && variant == other.variant && reason == other.reason && source == other.source
    }

    /// Adds `other`'s count and widens the interval to cover both.
    public mutating func merge(_ other: FlagEvaluationSummary) {
        count += other.count
        start = min(start, other.start)
        end = max(end, other.end)
    }
}

/// Something the app tracked (OpenFeature's `track`): a conversion, a purchase, a crash-free
/// session, attributed to the unit and to the variants it was exposed to.
public struct TrackedFlagEvent: Sendable, Hashable, Codable {
    /// The event's name.
    public var name: String
    /// An optional number (a price, a duration).
    public var value: Double?
    /// The attributes the recorder's configuration allows; the others are left out.
    public var attributes: [String: FlagValue]
    /// The targeting key of the values in effect when the event was tracked.
    public var unit: String?
    /// The variants this unit was exposed to in this session, by flag key.
    public var variants: [String: String]
    /// When it was tracked.
    public var time: Date
    /// The app that tracked it.
    public var source: FlagEventSource

    /// A tracked event named `name` of `unit`, with the variants the unit was exposed to.
    public init(
        name: String, value: Double?, attributes: [String: FlagValue], unit: String?, variants: [String: String],
        time: Date, source: FlagEventSource
    ) {
        self.name = name
        self.value = value
        self.attributes = attributes
        self.unit = unit
        self.variants = variants
        self.time = time
        self.source = source
    }
}

/// One recorded event: what a ``FlagEventRecorder`` hands to delivery.
public enum FlagEvent: Sendable, Hashable, Codable {
    /// A unit was served a flag's value for the first time in the session.
    case exposure(FlagExposure)
    /// Reads of one flag, variant and reason, counted.
    case summary(FlagEvaluationSummary)
    /// An event the app tracked.
    case tracked(TrackedFlagEvent)

    /// The app the event came from.
    public var source: FlagEventSource {
        switch self {
        case .exposure(let exposure): exposure.source
        case .summary(let summary): summary.source
        case .tracked(let event): event.source
        }
    }
}

/// Events a recorder had to drop because its in-memory buffer was full, by kind; reported with
/// the next batch. Summaries are merged, never dropped.
public struct FlagEventDropCounts: Sendable, Hashable, Codable {
    /// Exposures dropped.
    public var exposures: Int
    /// Tracked events dropped.
    public var tracked: Int
    /// Summaries dropped.
    public var summaries: Int

    /// Counts of dropped events; zero where none were.
    public init(exposures: Int = 0, tracked: Int = 0, summaries: Int = 0) {
        self.exposures = exposures
        self.tracked = tracked
        self.summaries = summaries
    }

    /// Whether nothing was dropped.
    public var isEmpty: Bool { exposures == 0 && tracked == 0 && summaries == 0 }

    /// The sum of two counts.
    public static func + (lhs: FlagEventDropCounts, rhs: FlagEventDropCounts) -> FlagEventDropCounts {
        FlagEventDropCounts(
            exposures: lhs.exposures + rhs.exposures, tracked: lhs.tracked + rhs.tracked,
            summaries: lhs.summaries + rhs.summaries)
    }
}
