import FlagServerModel
import Foundation

/// What the events apps sent say about removing a flag from one environment: whether anything
/// still evaluates it ("unused" when nothing did for `days` days) and whether it serves one
/// variant to everyone ("settled"), with the figures that show it.
///
/// Computed from the event store's daily rollups, daily unit counts and last-evaluated times
/// (``FlagEvidence/Calculator``), a pure function of them, so that every rule is tested with
/// hand-made rows.
///
/// **The window.** With `days` = N and `now`, the window starts at the beginning (UTC) of the day
/// N days before today, `windowStart = startOfDay(now) − N days`, and ends at `now`: the N whole
/// days before today and today so far. Daily rollups are the evidence, so a day is the unit.
///
/// **The rules**, per flag of the environment:
/// - *evaluated* in the window: a rollup of the flag (a summary or an exposure, of any variant
///   or reason) on a day of the window, or a last-evaluated time at or after `windowStart`.
/// - **unused**: not evaluated in the window, and either evaluated before it (its last-evaluated
///   time is older than `windowStart`) or never evaluated while the environment has events
///   reaching back to `windowStart` (``EnvironmentEvidence/historyCoversWindow``). A flag never
///   evaluated in an environment whose events began after `windowStart` is **unknown**: the
///   server has not been listening long enough to say.
/// - **settled**: evaluated in the window, every *served* evaluation and exposure of the flag in
///   the window (on every app version that sent any; a version that sent nothing in the window no
///   longer counts) and every unit count names the same variant, at least one did, and the
///   environment's events reach back to `windowStart`. Reads of a *local* value (an empty
///   variant: the code default, a build configuration's value, an override, or a fallback after
///   an error) were served nothing by the server: they count as evaluations (the flag is used)
///   but neither block nor make a settled flag; the evidence counts them (`localEvaluations`)
///   so that whoever removes the flag sees them.
/// - **active**: evaluated in the window, and served another variant in it (or several, or only
///   local values).
/// - **unknown**: the server keeps no events (no event store), or not enough history: a flag
///   never evaluated (above), or one served only one variant in the window while the
///   environment's events do not reach back to `windowStart` (it may be settled; the server has
///   not listened for long enough to say).
///
/// **The run.** For every flag served in the window, ``run`` is the unbroken run of its newest
/// served variant: from the first day of the window (or the day after the last day that served
/// anything else, or served two variants) to today, the days on which only that variant was
/// served. `since` is the first of those days with a served evaluation: days without any served
/// evaluation neither break nor start the run. The window is all that is read, so a settled
/// flag's run is never older than `windowStart`: it may have been settled longer.
public struct FlagEvidence: Sendable, Hashable, Codable {
    /// What the evidence says about removing the flag (the rules are in the type's documentation).
    public enum State: String, Sendable, Hashable, Codable, CaseIterable {
        /// Active, unused, settled or unknown, by the rules in the type's documentation.
        case active, unused, settled, unknown
    }

    /// The served figures of one variant in the window.
    public struct VariantFigures: Sendable, Hashable, Codable {
        /// The variant's name.
        public var variant: String
        /// The sum of the summaries' counts.
        public var evaluations: Int
        /// The exposures of the variant in the window.
        public var exposures: Int
        /// Distinct units per day, added over the days (a unit served on three days counts three).
        public var unitDays: Int
        /// The app versions that were served it ("" for apps that report none), sorted.
        public var appVersions: [String]
        /// The first and the last day (start, milliseconds since 1970) it was served in the window.
        public var firstDay: Int64
        /// The start of the last day it was served in the window (milliseconds since 1970).
        public var lastDay: Int64

        /// The figures of `variant`; `firstDay` and `lastDay` are starts of UTC days in milliseconds since 1970.
        public init(
            variant: String, evaluations: Int, exposures: Int, unitDays: Int, appVersions: [String], firstDay: Int64,
            lastDay: Int64
        ) {
            self.variant = variant
            self.evaluations = evaluations
            self.exposures = exposures
            self.unitDays = unitDays
            self.appVersions = appVersions
            self.firstDay = firstDay
            self.lastDay = lastDay
        }
    }

    /// The unbroken run of one variant up to today (see the type's documentation).
    public struct Run: Sendable, Hashable, Codable {
        /// The variant served throughout the run.
        public var variant: String
        /// The first day of the run (start, milliseconds since 1970).
        public var since: Int64
        /// Whether the run reaches back to the window's start without anything else served.
        public var coversWindow: Bool
        /// The app versions served in the run, sorted.
        public var appVersions: [String]
        /// The variant's evaluations on the run's days.
        public var evaluations: Int
        /// The variant's exposures on the run's days.
        public var exposures: Int
        /// Distinct units per day on the run's days, added over the days.
        public var unitDays: Int

        /// A run of `variant` from the day starting at `since` (milliseconds since 1970) to today.
        public init(
            variant: String, since: Int64, coversWindow: Bool, appVersions: [String], evaluations: Int, exposures: Int,
            unitDays: Int
        ) {
            self.variant = variant
            self.since = since
            self.coversWindow = coversWindow
            self.appVersions = appVersions
            self.evaluations = evaluations
            self.exposures = exposures
            self.unitDays = unitDays
        }
    }

    /// The flag's key.
    public var flag: String
    /// What the evidence says about removing the flag.
    public var state: State
    /// Why the flag is in its state, one sentence.
    public var reason: String
    /// The newest summary or exposure received for the flag in this environment, ever.
    public var lastEvaluated: Int64?
    /// The window's summaries' counts, served and local.
    public var evaluations: Int
    /// The window's exposures, served and local.
    public var exposures: Int
    /// The window's summaries' counts and exposures of a local value (empty variant).
    public var localEvaluations: Int
    /// Every variant served in the window, by name.
    public var variants: [VariantFigures]
    /// The newest served variant's unbroken run; `nil` when nothing was served in the window.
    public var run: Run?

    /// The evidence of one flag; the figures default to none served.
    public init(
        flag: String, state: State, reason: String, lastEvaluated: Int64? = nil, evaluations: Int = 0, exposures: Int = 0,
        localEvaluations: Int = 0, variants: [VariantFigures] = [], run: Run? = nil
    ) {
        self.flag = flag
        self.state = state
        self.reason = reason
        self.lastEvaluated = lastEvaluated
        self.evaluations = evaluations
        self.exposures = exposures
        self.localEvaluations = localEvaluations
        self.variants = variants
        self.run = run
    }
}

/// The evidence of every flag of one environment (`GET /admin/v1/environments/{environment}/evidence`).
public struct EnvironmentEvidence: Sendable, Hashable, Codable {
    /// The environment whose events were read.
    public var environment: String
    /// N: how many whole days before today the window reaches back.
    public var days: Int
    /// The start of the window (milliseconds since 1970, the start of a UTC day).
    public var windowStart: Int64
    /// When the evidence was computed (the window's end).
    public var now: Int64
    /// Whether the server keeps events at all; without, every flag is unknown.
    public var eventsEnabled: Bool
    /// Whether the environment's events reach back to the window's start: a rollup on its first
    /// day, or a flag last evaluated before it.
    public var historyCoversWindow: Bool
    /// By flag key, in key order.
    public var flags: [FlagEvidence]

    /// The evidence of an environment's flags over a window of `days` days ending at `now`.
    public init(
        environment: String, days: Int, windowStart: Int64, now: Int64, eventsEnabled: Bool, historyCoversWindow: Bool,
        flags: [FlagEvidence]
    ) {
        self.environment = environment
        self.days = days
        self.windowStart = windowStart
        self.now = now
        self.eventsEnabled = eventsEnabled
        self.historyCoversWindow = historyCoversWindow
        self.flags = flags
    }

    /// The evidence of `flag`, if it is one of the environment's.
    public subscript(flag: String) -> FlagEvidence? {
        flags.first { $0.flag == flag }
    }

    /// This evidence for exactly `keys`, in key order: a flag it holds keeps its evidence, any
    /// other is a flag without a row in the window and without a last-evaluated time (unused
    /// when the history covers the window, else unknown), so that evidence computed once over
    /// the flags the events name answers for any set of flags.
    public func answering(_ keys: some Sequence<String>) -> EnvironmentEvidence {
        let known = Dictionary(flags.map { ($0.flag, $0) }, uniquingKeysWith: { first, _ in first })
        let calculator = FlagEvidence.Calculator(days: days, now: now)
        var answer = self
        answer.flags = Set(keys).sorted().map { key in
            if let found = known[key] { return found }
            guard eventsEnabled else { return FlagEvidence.withoutEvents(key) }
            return calculator.evidence(of: key, rows: [], units: [], lastEvaluated: nil, historyCoversWindow: historyCoversWindow)
        }
        return answer
    }
}

extension FlagEvidence {
    /// The days of evidence asked for when none is given.
    public static let defaultDays = 30
    /// The longest window: 365 days of daily rollups.
    public static let maximumDays = 365
    static let day = RollupGranularity.day.milliseconds

    /// The window's start for `days` at `now` (see ``FlagEvidence``).
    public static func windowStart(days: Int, now: Int64) -> Int64 {
        RollupGranularity.day.bucket(of: now) - Int64(days) * day
    }

    /// The evidence of an environment's flag when the server keeps no events.
    static func withoutEvents(_ flag: String) -> FlagEvidence {
        FlagEvidence(flag: flag, state: .unknown, reason: "the server keeps no events (no event store is configured)")
    }

    /// The evidence of `flags` (`nil`: every flag the events name) in `environment` read from
    /// `store` (three queries: the window's daily rollups and unit counts, and the last-evaluated
    /// times), or every flag unknown when there is no store.
    public static func load(
        from store: (any FlagEventStore)?, environment: String, flags: [String]?, days: Int, now: Int64
    ) async throws(StoreError) -> EnvironmentEvidence {
        let start = windowStart(days: days, now: now)
        guard let store else {
            return EnvironmentEvidence(
                environment: environment, days: days, windowStart: start, now: now, eventsEnabled: false, historyCoversWindow: false,
                flags: Set(flags ?? []).sorted().map(withoutEvents))
        }
        let end = RollupGranularity.day.bucket(of: now) + day
        let rollups = try await store.rollups(environment: environment, flag: nil, granularity: .day, from: start, to: end)
        let units = try await store.unitCounts(environment: environment, flag: nil, from: start, to: end)
        let last = try await store.lastEvaluated(environment: environment)
        let named = flags ?? Array(Set(rollups.map(\.flag)).union(units.map(\.flag)).union(last.keys))
        return Calculator(days: days, now: now).evidence(
            environment: environment, flags: named, rollups: rollups, unitCounts: units, lastEvaluated: last)
    }

    /// The rules of ``FlagEvidence`` over rows already read.
    public struct Calculator: Sendable {
        /// N: how many whole days before today the window reaches back.
        public var days: Int
        /// The window's end (milliseconds since 1970).
        public var now: Int64

        /// A calculator of a window of `days` whole days before today, ending at `now`.
        public init(days: Int, now: Int64) {
            self.days = days
            self.now = now
        }

        /// The start of the window (milliseconds since 1970): the start of the UTC day `days` days before `now`'s.
        public var windowStart: Int64 { FlagEvidence.windowStart(days: days, now: now) }

        /// The evidence of `flags` from the environment's daily `rollups` and `unitCounts` (rows
        /// outside the window are ignored) and every flag's last-evaluated time.
        public func evidence(
            environment: String, flags: [String], rollups: [EvaluationRollup], unitCounts: [UnitCount],
            lastEvaluated: [String: Int64]
        ) -> EnvironmentEvidence {
            let start = windowStart
            let inWindow = rollups.filter { $0.bucket >= start && $0.bucket <= now }
            let units = unitCounts.filter { $0.day >= start && $0.day <= now }
            let covers = inWindow.contains { RollupGranularity.day.bucket(of: $0.bucket) == start }
                || lastEvaluated.values.contains { $0 < start }
            let rowsByFlag = Dictionary(grouping: inWindow, by: \.flag)
            let unitsByFlag = Dictionary(grouping: units, by: \.flag)
            let evidence = Set(flags).sorted().map { flag in
                self.evidence(
                    of: flag, rows: rowsByFlag[flag] ?? [], units: unitsByFlag[flag] ?? [], lastEvaluated: lastEvaluated[flag],
                    historyCoversWindow: covers)
            }
            return EnvironmentEvidence(
                environment: environment, days: days, windowStart: start, now: now, eventsEnabled: true,
                historyCoversWindow: covers, flags: evidence)
        }

        func evidence(
            of flag: String, rows: [EvaluationRollup], units: [UnitCount], lastEvaluated: Int64?, historyCoversWindow: Bool
        ) -> FlagEvidence {
            let start = windowStart
            var result = FlagEvidence(flag: flag, state: .active, reason: "", lastEvaluated: lastEvaluated)
            result.evaluations = rows.reduce(0) { $0 + $1.evaluations }
            result.exposures = rows.reduce(0) { $0 + $1.exposures }
            result.localEvaluations = rows.filter { $0.variant.isEmpty }.reduce(0) { $0 + $1.evaluations + $1.exposures }
            let evaluated = !rows.isEmpty || (lastEvaluated.map { $0 >= start } ?? false)
            guard evaluated else {
                if let lastEvaluated {
                    result.state = .unused
                    result.reason = "nothing evaluated it for \(days) days: last evaluated \(Self.dayText(lastEvaluated))"
                } else if historyCoversWindow {
                    result.state = .unused
                    result.reason = "nothing evaluated it for \(days) days: never evaluated since events began"
                } else {
                    result.state = .unknown
                    result.reason = "never evaluated, and this environment's events began less than \(days) days ago"
                }
                return result
            }
            let served = rows.filter { !$0.variant.isEmpty }
            let servedUnits = units.filter { !$0.variant.isEmpty && $0.units > 0 }
            result.variants = Self.figures(served, servedUnits)
            guard let run = Self.run(served, servedUnits) else {
                result.reason = served.isEmpty && servedUnits.isEmpty
                    ? "evaluated in the last \(days) days, only with local values (no variant served)"
                    : "serves several variants (\(result.variants.map(\.variant).joined(separator: ", ")))"
                return result
            }
            result.run = run
            let versions = run.appVersions.map { $0.isEmpty ? "(unnamed)" : $0 }.joined(separator: ", ")
            if !run.coversWindow {
                let others = result.variants.filter { $0.variant != run.variant }.map(\.variant)
                result.reason = "served \(others.isEmpty ? "another variant" : others.joined(separator: ", ")) in the last \(days) days; only \(run.variant) since \(Self.dayText(run.since))"
            } else if !historyCoversWindow {
                result.state = .unknown
                result.reason = "only \(run.variant) served since \(Self.dayText(run.since)), but this environment's events began less than \(days) days ago"
            } else {
                result.state = .settled
                result.reason = "served only \(run.variant) to every unit for \(days) days, since \(Self.dayText(run.since)), on app versions \(versions)"
            }
            return result
        }

        /// Each served variant's figures, by name.
        static func figures(_ served: [EvaluationRollup], _ units: [UnitCount]) -> [FlagEvidence.VariantFigures] {
            var figures: [String: FlagEvidence.VariantFigures] = [:]
            var versions: [String: Set<String>] = [:]
            for row in served {
                let day = RollupGranularity.day.bucket(of: row.bucket)
                var entry = figures[row.variant] ?? .init(
                    variant: row.variant, evaluations: 0, exposures: 0, unitDays: 0, appVersions: [], firstDay: day, lastDay: day)
                entry.evaluations += row.evaluations
                entry.exposures += row.exposures
                entry.firstDay = min(entry.firstDay, day)
                entry.lastDay = max(entry.lastDay, day)
                figures[row.variant] = entry
                versions[row.variant, default: []].insert(row.appVersion)
            }
            for count in units {
                let day = RollupGranularity.day.bucket(of: count.day)
                var entry = figures[count.variant] ?? .init(
                    variant: count.variant, evaluations: 0, exposures: 0, unitDays: 0, appVersions: [], firstDay: day, lastDay: day)
                entry.unitDays += count.units
                entry.firstDay = min(entry.firstDay, day)
                entry.lastDay = max(entry.lastDay, day)
                figures[count.variant] = entry
            }
            return figures.values.map { figure in
                var figure = figure
                figure.appVersions = (versions[figure.variant] ?? []).sorted()
                return figure
            }.sorted { $0.variant < $1.variant }
        }

        /// The newest served variant's unbroken run (see ``FlagEvidence``); `nil` when nothing
        /// was served.
        static func run(_ served: [EvaluationRollup], _ units: [UnitCount]) -> FlagEvidence.Run? {
            // Per day: the one variant served, or nil when it served two (no set per day: this
            // runs for every flag and day of the window).
            var variantByDay: [Int64: String?] = [:]
            func note(_ variant: String, on day: Int64) {
                switch variantByDay[day] {
                case .none: variantByDay[day] = .some(variant)
                case .some(.some(let known)) where known != variant: variantByDay[day] = .some(nil)
                default: break
                }
            }
            for row in served { note(row.variant, on: RollupGranularity.day.bucket(of: row.bucket)) }
            for count in units { note(count.variant, on: RollupGranularity.day.bucket(of: count.day)) }
            let days = variantByDay.keys.sorted(by: >)
            // Nothing served, or the newest day served two variants: a run of none.
            guard let newest = days.first, case .some(.some(let variant)) = variantByDay[newest] else { return nil }
            var since = newest
            var coversWindow = true
            for day in days.dropFirst() {
                guard case .some(.some(let only)) = variantByDay[day], only == variant else {
                    coversWindow = false
                    break
                }
                since = day
            }
            let inRun = served.filter { RollupGranularity.day.bucket(of: $0.bucket) >= since }
            return FlagEvidence.Run(
                variant: variant, since: since, coversWindow: coversWindow,
                appVersions: Set(inRun.map(\.appVersion)).sorted(),
                evaluations: inRun.reduce(0) { $0 + $1.evaluations }, exposures: inRun.reduce(0) { $0 + $1.exposures },
                unitDays: units.filter { RollupGranularity.day.bucket(of: $0.day) >= since }.reduce(0) { $0 + $1.units })
        }

        /// `2026-11-03` (UTC), by arithmetic (a formatter per flag costs more than the rules).
        static func dayText(_ time: Int64) -> String {
            // Howard Hinnant's days-to-civil algorithm.
            let days = RollupGranularity.day.bucket(of: time) / RollupGranularity.day.milliseconds + 719_468
            let era = (days >= 0 ? days : days - 146_096) / 146_097
            let dayOfEra = days - era * 146_097
            let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
            let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
            let monthIndex = (5 * dayOfYear + 2) / 153
            let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
            let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
            let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
            func padded(_ value: Int64, _ width: Int) -> String {
                let text = String(value)
                return String(repeating: "0", count: max(0, width - text.count)) + text
            }
            return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
        }
    }
}
