import FlagServerModel
import Foundation

/// What apps did with one flag in one environment over a range: evaluations and exposures per
/// variant per bucket (every bucket of the range, empty ones as zeros), units per variant per
/// day, the split by app version and by platform, when it was last evaluated, and the flag's
/// changes in the range to mark on the same time axis.
///
/// Built from an event store's rollups and the flag's audit entries, without I/O
/// (``init(environment:flag:variants:range:rollups:unitCounts:lastEvaluated:audit:auditComplete:splitLimit:)``);
/// the admin API answers it as JSON and the console draws it.
///
/// **Units** are counted per UTC day by the store: a unit served on two days counts on both.
/// So a range has no count of distinct units; it has ``UnitSeries/unitDays`` (the sum of the
/// daily counts) and ``UnitSeries/peakDailyUnits`` (the largest daily count, a lower bound of the
/// distinct units in the range).
public struct FlagInsights: Sendable, Hashable, Encodable {
    /// The environment the events came from.
    public var environment: String
    /// The flag's key.
    public var flag: String
    /// The start of the first bucket.
    public var from: Date
    /// The end of the last bucket (exclusive).
    public var to: Date
    /// The bucket size: `hour` or `day`.
    public var granularity: String
    /// The start of every bucket of the range, oldest first.
    public var buckets: [Date]
    /// One series per variant: the flag's variants by name, then variants it no longer has (or
    /// "", a value read without a variant) that events still name, by name.
    public var variants: [VariantSeries]
    /// Evaluations of the flag over the range, all variants together.
    public var totalEvaluations: Int
    /// Exposures of the flag over the range, all variants together.
    public var totalExposures: Int
    /// Distinct units per variant per UTC day.
    public var units: Units
    /// Evaluations and exposures by app version.
    public var appVersions: Split
    /// Evaluations and exposures by platform.
    public var platforms: Split
    /// The newest summary or exposure received for the flag in the environment, at any time
    /// (not only in the range); absent when none was.
    public var lastEvaluated: Date?
    /// The flag's changes in the environment in the range, oldest first.
    public var revisions: [Revision]
    /// False when the audit read stopped (at its limit) before reaching the range's start: older
    /// changes in the range may be missing from ``revisions``.
    public var revisionsComplete: Bool
    /// Sessions and crashes per app version, platform and variant over the range, from the
    /// session-health events apps sent (`$session`, `$crash`); absent when the event store does not
    /// count them.
    public var sessionHealth: SessionHealth?

    /// Evaluations and exposures of one variant, per bucket (parallel to ``FlagInsights/buckets``).
    public struct VariantSeries: Sendable, Hashable, Encodable {
        /// The variant's name ("" for values read without a variant).
        public var variant: String
        /// Evaluations per bucket.
        public var evaluations: [Int]
        /// Exposures per bucket.
        public var exposures: [Int]
        /// The sum of ``evaluations``.
        public var totalEvaluations: Int
        /// The sum of ``exposures``.
        public var totalExposures: Int
    }

    /// Units (targeting keys exposed) per variant and day.
    public struct Units: Sendable, Hashable, Encodable {
        /// Every UTC day the range touches (whole days, also for an hourly range).
        public var days: [Date]
        /// One series per variant, in the order of ``FlagInsights/variants``.
        public var variants: [UnitSeries]
    }

    /// Distinct units served one variant, per UTC day.
    public struct UnitSeries: Sendable, Hashable, Encodable {
        /// The variant's name.
        public var variant: String
        /// Distinct units per day (parallel to ``Units/days``).
        public var daily: [Int]
        /// The sum of the daily counts: a unit served on several days counts once per day.
        public var unitDays: Int
        /// The largest daily count.
        public var peakDailyUnits: Int
    }

    /// Evaluations and exposures by one dimension (app version or platform): the largest values
    /// by evaluations, then the rest together.
    public struct Split: Sendable, Hashable, Encodable {
        /// The largest values by evaluations, largest first, up to the split's limit.
        public var values: [SplitRow]
        /// The values past the limit, added together; absent when there are none.
        public var other: SplitRow?
    }

    /// Evaluations and exposures of one app version or platform (or of the rest together).
    public struct SplitRow: Sendable, Hashable, Encodable {
        /// The app version or platform ("" when apps sent none); "" for ``Split/other`` too.
        public var value: String
        /// How many values the row adds up (1, or more for ``Split/other``).
        public var valueCount: Int
        /// Evaluations of the flag with this value.
        public var evaluations: Int
        /// Exposures of the flag with this value.
        public var exposures: Int
        /// Evaluations per variant (only variants with some).
        public var variants: [String: Int]
    }

    /// Sessions and crashes by app version, platform and variant: what a crash regression
    /// confined to one app version looks like. Read from the raw events, so only the part of the
    /// range within their retention (30 days by default) counts.
    public struct SessionHealth: Sendable, Hashable, Encodable {
        /// Newest app version first (numbers compared as numbers: 4.10 after 4.9), then platform,
        /// then the flag's variants as ``FlagInsights/variants`` orders them, "" (no variant) last.
        public var rows: [SessionHealthRow]
        /// The sums over ``rows``.
        public var sessions: Int
        /// Crashed sessions (`$crash` events) over all rows.
        public var crashes: Int
        /// Of ``sessions`` and ``crashes``, those that named no variant of the flag.
        public var sessionsWithoutVariant: Int
        /// Crashed sessions that named no variant of the flag.
        public var crashesWithoutVariant: Int
        /// False when there were more groups than ``FlagInsights/sessionHealthLimit``: only those
        /// with the most sessions are listed (and summed).
        public var complete: Bool
    }

    /// Sessions and crashes of one app version, platform and variant.
    public struct SessionHealthRow: Sendable, Hashable, Encodable {
        /// "" when apps sent none.
        public var appVersion: String
        /// The platform apps reported ("" when apps sent none).
        public var platform: String
        /// The flag's variant the sessions named; "" for sessions without a variant of the flag.
        public var variant: String
        /// Sessions: `$session` (a clean end) and `$crash` (a crashed session) events, as the
        /// rollout guardrails count them.
        public var sessions: Int
        /// Crashed sessions: `$crash` events.
        public var crashes: Int
        /// `crashes / sessions`; absent without sessions.
        public var crashRate: Double?
    }

    /// The most (app version, platform, variant) groups of ``SessionHealth`` read.
    public static let sessionHealthLimit = 200

    /// A change of the flag in the environment.
    public struct Revision: Sendable, Hashable, Encodable {
        /// When the change was written.
        public var time: Date
        /// The environment revision the change produced.
        public var revision: Int
        /// Who made the change, as the audit records it.
        public var actor: String
        /// The reason given with the change, if any.
        public var reason: String?
        /// The change in words, as the console's history tells it.
        public var summary: String
        /// Whether it restored an earlier revision.
        public var revert: Bool
    }

    /// How many values of a split are listed before the rest is added up, unless asked otherwise.
    public static let defaultSplitLimit = 10

    /// The report of `rollups`, `unitCounts` and `audit`.
    ///
    /// Rows of another flag or outside the range are ignored, so a store may answer more than
    /// asked.
    ///
    /// - Parameters:
    ///   - variants: The flag's variant names (listed even when nothing was served).
    ///   - rollups: Rollups of `range.granularity`.
    ///   - audit: Audit entries of the environment (any order); those of this flag in the range
    ///     become ``revisions``.
    ///   - auditComplete: Whether `audit` holds every entry from the range's start on.
    ///   - splitLimit: How many app versions and platforms to list before "other".
    public init(
        environment: String, flag: String, variants: some Sequence<String>, range: InsightsRange,
        rollups: [EvaluationRollup], unitCounts: [UnitCount], lastEvaluated: Int64?, audit: [AuditEntry],
        auditComplete: Bool = true, splitLimit: Int = Self.defaultSplitLimit, sessionHealth: [SessionHealthCount]? = nil
    ) {
        let length = range.granularity.milliseconds
        let bucketStarts = range.buckets
        let dayStarts = range.days
        let rows = rollups.filter { $0.flag == flag && $0.bucket >= range.from && $0.bucket < range.to }
        let firstDay = dayStarts.first ?? range.from
        let unitRows = unitCounts.filter {
            $0.flag == flag && $0.day >= firstDay && $0.day < firstDay + Int64(dayStarts.count) * RollupGranularity.day.milliseconds
        }

        let known = Set(variants)
        let seen = Set(rows.map(\.variant)).union(unitRows.map(\.variant)).subtracting(known)
        let names = known.sorted() + seen.sorted()
        let index = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })

        var evaluations = Array(repeating: Array(repeating: 0, count: bucketStarts.count), count: names.count)
        var exposures = evaluations
        for row in rows {
            // A row whose bucket is not a bucket start of this granularity counts in the bucket it falls in.
            let slot = Int((range.granularity.bucket(of: row.bucket) - range.from) / length)
            evaluations[index[row.variant]!][slot] += row.evaluations
            exposures[index[row.variant]!][slot] += row.exposures
        }
        self.variants = names.indices.map { position in
            VariantSeries(
                variant: names[position], evaluations: evaluations[position], exposures: exposures[position],
                totalEvaluations: evaluations[position].reduce(0, +), totalExposures: exposures[position].reduce(0, +))
        }

        var daily = Array(repeating: Array(repeating: 0, count: dayStarts.count), count: names.count)
        for row in unitRows {
            let slot = Int((RollupGranularity.day.bucket(of: row.day) - firstDay) / RollupGranularity.day.milliseconds)
            daily[index[row.variant]!][slot] += row.units
        }
        units = Units(
            days: dayStarts.map(InsightsRange.date),
            variants: names.indices.map { position in
                UnitSeries(
                    variant: names[position], daily: daily[position], unitDays: daily[position].reduce(0, +),
                    peakDailyUnits: daily[position].max() ?? 0)
            })

        appVersions = Self.split(rows, by: \.appVersion, limit: splitLimit)
        platforms = Self.split(rows, by: \.platform, limit: splitLimit)

        revisions = audit
            .filter { $0.subject == .flag && $0.key == flag && $0.environment == environment }
            .filter { entry in
                let time = InsightsRange.milliseconds(entry.time)
                return time >= range.from && time < range.to
            }
            .sorted { ($0.time, $0.revision) < ($1.time, $1.revision) }
            .map { entry in
                Revision(
                    time: entry.time, revision: entry.revision, actor: entry.actor, reason: entry.reason,
                    summary: Changelog.summary(of: [entry], environments: [environment]), revert: entry.revertedTo != nil)
            }
        revisionsComplete = auditComplete
        self.sessionHealth = sessionHealth.map { Self.sessionHealth($0, variants: names) }

        self.environment = environment
        self.flag = flag
        from = InsightsRange.date(range.from)
        to = InsightsRange.date(range.to)
        granularity = range.granularity.rawValue
        buckets = bucketStarts.map(InsightsRange.date)
        totalEvaluations = self.variants.reduce(0) { $0 + $1.totalEvaluations }
        totalExposures = self.variants.reduce(0) { $0 + $1.totalExposures }
        self.lastEvaluated = lastEvaluated.map(InsightsRange.date)
    }

    /// Whether any evaluation or exposure of the flag falls in the range.
    public var isEmpty: Bool { totalEvaluations == 0 && totalExposures == 0 }

    /// The session-health table of `counts` (at most ``sessionHealthLimit`` of them; one more
    /// marks it incomplete), `variants` giving the order of a version's and platform's rows.
    static func sessionHealth(_ counts: [SessionHealthCount], variants: [String]) -> SessionHealth {
        let complete = counts.count <= sessionHealthLimit
        let counts = counts.sorted { ($1.sessions, $0.appVersion, $0.platform, $0.variant) < ($0.sessions, $1.appVersion, $1.platform, $1.variant) }
            .prefix(sessionHealthLimit)
        let order = Dictionary(variants.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        func rank(_ variant: String) -> (Int, String) {
            variant.isEmpty ? (Int.max, "") : (order[variant] ?? variants.count, variant)
        }
        let rows = counts.sorted { left, right in
            if left.appVersion != right.appVersion {
                // Newest first; "" (not sent) last.
                if left.appVersion.isEmpty || right.appVersion.isEmpty { return right.appVersion.isEmpty }
                let order = left.appVersion.compare(right.appVersion, options: .numeric)
                if order != .orderedSame { return order == .orderedDescending }
                return left.appVersion > right.appVersion
            }
            if left.platform != right.platform { return left.platform < right.platform }
            return rank(left.variant) < rank(right.variant)
        }.map { count in
            SessionHealthRow(
                appVersion: count.appVersion, platform: count.platform, variant: count.variant, sessions: count.sessions,
                crashes: count.crashes, crashRate: count.sessions > 0 ? Double(count.crashes) / Double(count.sessions) : nil)
        }
        let without = rows.filter { $0.variant.isEmpty }
        return SessionHealth(
            rows: rows, sessions: rows.reduce(0) { $0 + $1.sessions }, crashes: rows.reduce(0) { $0 + $1.crashes },
            sessionsWithoutVariant: without.reduce(0) { $0 + $1.sessions }, crashesWithoutVariant: without.reduce(0) { $0 + $1.crashes },
            complete: complete)
    }

    static func split(_ rows: [EvaluationRollup], by dimension: KeyPath<EvaluationRollup, String>, limit: Int) -> Split {
        var byValue: [String: SplitRow] = [:]
        for row in rows {
            let value = row[keyPath: dimension]
            var entry = byValue[value] ?? SplitRow(value: value, valueCount: 1, evaluations: 0, exposures: 0, variants: [:])
            entry.evaluations += row.evaluations
            entry.exposures += row.exposures
            if row.evaluations > 0 { entry.variants[row.variant, default: 0] += row.evaluations }
            byValue[value] = entry
        }
        let sorted = byValue.values.sorted {
            ($1.evaluations, $1.exposures, $0.value) < ($0.evaluations, $0.exposures, $1.value)
        }
        let limit = max(0, limit)
        guard sorted.count > limit else { return Split(values: sorted, other: nil) }
        var other = SplitRow(value: "", valueCount: 0, evaluations: 0, exposures: 0, variants: [:])
        for row in sorted[limit...] {
            other.valueCount += 1
            other.evaluations += row.evaluations
            other.exposures += row.exposures
            other.variants.merge(row.variants, uniquingKeysWith: +)
        }
        return Split(values: Array(sorted[..<limit]), other: other)
    }
}
