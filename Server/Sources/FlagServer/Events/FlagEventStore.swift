import FlagServerModel
import Foundation

/// Where the server keeps the events apps send: the raw events for a retention period, and rollups
/// that answer insights without reading them.
///
/// Every implementation passes `FlagEventStoreCompatibilityTests` (SQLite and PostgreSQL). Replicas
/// sharing a database share its event store: any replica ingests, and every replica's insights
/// read the same rollups.
///
/// **Rollups.** Every stored batch adds to:
/// - evaluation counts per environment × flag × variant × reason × app version × platform × hour
///   and × day: a summary's `count` goes to the bucket of its `start`;
/// - exposure counts in the same buckets (one per exposure received);
/// - the units per environment × flag × variant × day: each unit once per day however often it
///   was exposed (an exposure without a unit counts no unit);
/// - tracked events per environment × event name × day (count and sum of values).
public protocol FlagEventStore: Sendable {
    /// The readings beside ingestion and insights this store provides (``EventStoreCapabilities``;
    /// none by default).
    var capabilities: EventStoreCapabilities { get }

    /// The processor time used so far by threads of the store's own that run its calls; see the
    /// default in the extension.
    var threadProcessorTime: Duration { get }

    /// Creates or upgrades the event tables.
    func migrate() async throws(StoreError)

    /// Stores `batches` durably, raw events and rollups, in one transaction: when it returns, every
    /// batch is on disk; when it throws, none is. A batch whose id (in its environment) was stored
    /// before, in an earlier call or earlier in this one, is not stored again.
    ///
    /// - Returns: For each batch in order, whether it was stored (false: a repeated id).
    func ingest(_ batches: [EventBatch]) async throws(StoreError) -> [Bool]

    /// Rollup rows of `environment` whose bucket starts in `from ..< to` (milliseconds since
    /// 1970), of one flag or of all (`flag == nil`), ordered by bucket, flag, variant, reason, app
    /// version and platform.
    func rollups(
        environment: String, flag: String?, granularity: RollupGranularity, from: Int64, to: Int64
    ) async throws(StoreError) -> [EvaluationRollup]

    /// Distinct units per flag, variant and day of `environment` for days starting in `from ..< to`,
    /// ordered by day, flag and variant.
    func unitCounts(environment: String, flag: String?, from: Int64, to: Int64) async throws(StoreError) -> [UnitCount]

    /// Per flag of `environment`: the time of the newest summary or exposure received for it (the
    /// `end` of a summary, the `time` of an exposure).
    func lastEvaluated(environment: String) async throws(StoreError) -> [String: Int64]

    /// Tracked events per name and day of `environment` for days starting in `from ..< to`.
    func trackedCounts(environment: String, from: Int64, to: Int64) async throws(StoreError) -> [TrackedCount]

    /// The raw tracked events of `environment` named `name` with `time` in `from ..< to`, oldest
    /// first, at most `limit` (experiments read these to compute metrics per unit).
    func trackedEvents(
        environment: String, name: String, from: Int64, to: Int64, limit: Int
    ) async throws(StoreError) -> [EventBatch.Tracked]

    /// The raw exposures of `environment` to `flag` with `time` in `from ..< to`, oldest first, at
    /// most `limit`.
    func exposures(
        environment: String, flag: String, from: Int64, to: Int64, limit: Int
    ) async throws(StoreError) -> [StoredExposure]

    /// Deletes raw events (exposures, tracked events, batch ids) received before `time`, and hourly
    /// rollups of buckets before `hourlyBefore`; daily rollups and unit counts are kept. Returns how
    /// many raw events were deleted.
    @discardableResult
    func deleteExpired(rawBefore time: Int64, hourlyBefore: Int64) async throws(StoreError) -> Int

    /// Finishes the work in progress and closes the store's connections; no call may follow.
    func close() async
}


extension FlagEventStore {
    /// The processor time used so far by threads of the store's own that run its calls (what the
    /// ingestion queue's share of the machine counts, ``EventIngestionOptions/maximumIngestShare``);
    /// zero for a store whose work runs elsewhere, as a PostgreSQL store's runs in the database's
    /// processes.
    public var threadProcessorTime: Duration { .zero }
}

/// The size of a rollup's time bucket.
public enum RollupGranularity: String, Sendable, Hashable, CaseIterable {
    /// An hour or a UTC day.
    case hour, day

    /// The bucket's length in milliseconds.
    public var milliseconds: Int64 { self == .hour ? 3_600_000 : 86_400_000 }

    /// The start of the bucket `time` falls in (UTC).
    public func bucket(of time: Int64) -> Int64 {
        let length = milliseconds
        let quotient = time / length
        return (time % length < 0 ? quotient - 1 : quotient) * length
    }
}

/// Evaluations and exposures of one flag's variant for one reason, app version and platform in
/// one hour or day.
public struct EvaluationRollup: Sendable, Hashable {
    /// The bucket's start (milliseconds since 1970, UTC).
    public var bucket: Int64
    /// The flag's key.
    public var flag: String
    /// The variant served ("" for a value read without a variant).
    public var variant: String
    /// OpenFeature's reason the evaluations gave.
    public var reason: String
    /// The app version the batches' source named ("" when apps sent none).
    public var appVersion: String
    /// The platform the batches' source named ("" when apps sent none).
    public var platform: String
    /// The sum of the summaries' counts.
    public var evaluations: Int
    /// The exposures received.
    public var exposures: Int

    /// A rollup row as a store read it.
    public init(
        bucket: Int64, flag: String, variant: String, reason: String, appVersion: String, platform: String,
        evaluations: Int, exposures: Int
    ) {
        self.bucket = bucket
        self.flag = flag
        self.variant = variant
        self.reason = reason
        self.appVersion = appVersion
        self.platform = platform
        self.evaluations = evaluations
        self.exposures = exposures
    }
}

/// The distinct units a flag's variant was served to on one day.
public struct UnitCount: Sendable, Hashable {
    /// The day's start (milliseconds since 1970, UTC).
    public var day: Int64
    /// The flag's key.
    public var flag: String
    /// The variant served.
    public var variant: String
    /// Distinct units (targeting keys exposed) that day.
    public var units: Int

    /// A unit count as a store read it.
    public init(day: Int64, flag: String, variant: String, units: Int) {
        self.day = day
        self.flag = flag
        self.variant = variant
        self.units = units
    }
}

/// Tracked events of one name on one day.
public struct TrackedCount: Sendable, Hashable {
    /// The day's start (milliseconds since 1970, UTC).
    public var day: Int64
    /// The events' name.
    public var name: String
    /// How many events of the name happened that day (by their `time`).
    public var count: Int
    /// The sum of the events' values (events without a value add nothing).
    public var valueSum: Double

    /// A count as a store read it.
    public init(day: Int64, name: String, count: Int, valueSum: Double) {
        self.day = day
        self.name = name
        self.count = count
        self.valueSum = valueSum
    }
}

/// An exposure as stored, with the app it came from.
public struct StoredExposure: Sendable, Hashable {
    /// The exposure as the app sent it.
    public var exposure: EventBatch.Exposure
    /// The app that sent it (version, build configuration, platform).
    public var source: EventBatch.EventSource

    /// An exposure with its source.
    public init(exposure: EventBatch.Exposure, source: EventBatch.EventSource) {
        self.exposure = exposure
        self.source = source
    }
}
