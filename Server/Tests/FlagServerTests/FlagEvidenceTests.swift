@testable import FlagServer
import Foundation
import Synchronization
import Testing

/// The rules of removal evidence over hand-made daily rollups: unused, settled, active, unknown,
/// at every edge of the window.
struct FlagEvidenceTests {
    static let day = RollupGranularity.day.milliseconds
    /// Today's start, and now at noon of it.
    static let today: Int64 = 20_000 * day
    static let now = today + day / 2
    static let days = 30
    /// The window's first day: 30 days before today.
    static let start = today - Int64(days) * day

    static func served(
        _ flag: String, _ variant: String, version: String, on day: Int64, evaluations: Int = 10, exposures: Int = 1,
        reason: String = "TARGETING_MATCH"
    ) -> EvaluationRollup {
        EvaluationRollup(
            bucket: day, flag: flag, variant: variant, reason: reason, appVersion: version, platform: "iOS",
            evaluations: evaluations, exposures: exposures)
    }

    /// `variant` served on every day of the window, on each of `versions`.
    static func everyDay(_ flag: String, _ variant: String, versions: [String]) -> [EvaluationRollup] {
        (Int64(0)...Int64(days)).flatMap { offset in versions.map { served(flag, variant, version: $0, on: start + offset * day) } }
    }

    func evidence(
        flags: [String] = ["checkout"], rollups: [EvaluationRollup], units: [UnitCount] = [], last: [String: Int64] = [:]
    ) -> EnvironmentEvidence {
        FlagEvidence.Calculator(days: Self.days, now: Self.now).evidence(
            environment: "production", flags: flags, rollups: rollups, unitCounts: units, lastEvaluated: last)
    }

    @Test
    func oneVariantServedOnEveryVersionForTheWholeWindowIsSettledWithItsEvidence() throws {
        let rows = Self.everyDay("checkout", "on", versions: ["2.0", "2.1"])
        let units = [UnitCount(day: Self.start, flag: "checkout", variant: "on", units: 40)]
        let result = evidence(rollups: rows, units: units, last: ["checkout": Self.now - 1000])
        #expect(result.windowStart == Self.start)
        #expect(result.historyCoversWindow)
        let checkout = try #require(result["checkout"])
        #expect(checkout.state == .settled)
        let run = try #require(checkout.run)
        #expect(run.variant == "on")
        #expect(run.since == Self.start)
        #expect(run.coversWindow)
        #expect(run.appVersions == ["2.0", "2.1"])
        #expect(run.evaluations == 31 * 2 * 10)
        #expect(run.exposures == 31 * 2)
        #expect(run.unitDays == 40)
        #expect(checkout.variants.map(\.variant) == ["on"])
        #expect(checkout.reason == "served only on to every unit for 30 days, since 2024-09-04, on app versions 2.0, 2.1")
    }

    @Test
    func aSecondVariantOnOneOldAppVersionBlocksSettledAndTheRunStartsAfterIt() throws {
        var rows = Self.everyDay("checkout", "on", versions: ["2.0"])
        rows.append(Self.served("checkout", "off", version: "1.9", on: Self.start + 10 * Self.day))
        let checkout = try #require(evidence(rollups: rows)["checkout"])
        #expect(checkout.state == .active)
        let run = try #require(checkout.run)
        #expect(run.variant == "on")
        #expect(run.since == Self.start + 11 * Self.day)
        #expect(!run.coversWindow)
        #expect(checkout.variants.first { $0.variant == "off" }?.appVersions == ["1.9"])
        #expect(checkout.reason == "served off in the last 30 days; only on since 2024-09-15")
    }

    @Test
    func anAppVersionThatStoppedSendingBeforeTheWindowNoLongerBlocks() throws {
        var rows = Self.everyDay("checkout", "on", versions: ["2.0"])
        // The window's first day is its own: the day before it is out.
        rows.append(Self.served("checkout", "off", version: "1.9", on: Self.start - Self.day))
        #expect(evidence(rollups: rows)["checkout"]?.state == .settled)
        #expect(evidence(rollups: rows)["checkout"]?.run?.appVersions == ["2.0"])
        // On the window's first day it still blocks.
        rows.append(Self.served("checkout", "off", version: "1.9", on: Self.start))
        #expect(evidence(rollups: rows)["checkout"]?.state == .active)
    }

    @Test
    func unitsOfAnotherVariantBlockSettled() {
        let rows = Self.everyDay("checkout", "on", versions: ["2.0"])
        let units = [UnitCount(day: Self.start + 5 * Self.day, flag: "checkout", variant: "off", units: 1)]
        #expect(evidence(rollups: rows, units: units)["checkout"]?.state == .active)
    }

    @Test
    func localValuesCountAsUseButNeitherBlockNorMakeSettled() throws {
        var rows = Self.everyDay("checkout", "on", versions: ["2.0"])
        rows.append(Self.served("checkout", "", version: "1.0", on: Self.start + 3 * Self.day, evaluations: 7, exposures: 0, reason: "DEFAULT"))
        let checkout = try #require(evidence(rollups: rows)["checkout"])
        #expect(checkout.state == .settled)
        #expect(checkout.localEvaluations == 7)
        #expect(checkout.run?.appVersions == ["2.0"])
        // Only local values: used, but nothing was served.
        let local = [Self.served("search", "", version: "1.0", on: Self.today, evaluations: 3, exposures: 0, reason: "STATIC")]
        let search = try #require(evidence(flags: ["search"], rollups: rows + local)["search"])
        #expect(search.state == .active)
        #expect(search.run == nil)
        #expect(search.reason == "evaluated in the last 30 days, only with local values (no variant served)")
    }

    @Test
    func twoVariantsOnTheNewestDayMakeNoRun() throws {
        let rows = [
            Self.served("checkout", "on", version: "2.0", on: Self.today), Self.served("checkout", "off", version: "2.0", on: Self.today),
            Self.served("checkout", "on", version: "2.0", on: Self.start),
        ]
        let checkout = try #require(evidence(rollups: rows)["checkout"])
        #expect(checkout.state == .active)
        #expect(checkout.run == nil)
        #expect(checkout.reason == "serves several variants (off, on)")
    }

    @Test
    func unusedWhenNothingEvaluatedItForExactlyNDays() throws {
        let busy = Self.everyDay("other", "on", versions: ["2.0"])
        // Last evaluated just before the window's start: unused.
        let stale = try #require(evidence(rollups: busy, last: ["checkout": Self.start - 1])["checkout"])
        #expect(stale.state == .unused)
        #expect(stale.lastEvaluated == Self.start - 1)
        #expect(stale.reason == "nothing evaluated it for 30 days: last evaluated 2024-09-03")
        // At the window's start: evaluated in the window.
        #expect(evidence(rollups: busy, last: ["checkout": Self.start])["checkout"]?.state == .active)
        // A rollup in the window makes it used even when the last-evaluated time lags.
        let rolled = busy + [Self.served("checkout", "on", version: "2.0", on: Self.start)]
        #expect(evidence(rollups: rolled, last: ["checkout": Self.start - 1])["checkout"]?.state == .settled)
    }

    @Test
    func aFlagNeverEvaluatedIsUnusedOnlyOnceEventsReachBackToTheWindowStart() throws {
        // The environment's events began on the window's first day: long enough.
        let sinceStart = Self.everyDay("other", "on", versions: ["2.0"])
        let never = try #require(evidence(flags: ["checkout", "other"], rollups: sinceStart)["checkout"])
        #expect(never.state == .unused)
        #expect(never.reason == "nothing evaluated it for 30 days: never evaluated since events began")
        // They began a day later: not long enough to say, for a settled-looking flag too.
        let later = sinceStart.filter { $0.bucket > Self.start }
        let result = evidence(flags: ["checkout", "other"], rollups: later)
        #expect(!result.historyCoversWindow)
        #expect(result["checkout"]?.state == .unknown)
        #expect(result["checkout"]?.reason == "never evaluated, and this environment's events began less than 30 days ago")
        #expect(result["other"]?.state == .unknown)
        #expect(result["other"]?.run?.coversWindow == true)
        #expect(result["other"]?.reason == "only on served since 2024-09-05, but this environment's events began less than 30 days ago")
        // A flag last evaluated before the window proves the events began earlier.
        let proven = evidence(flags: ["checkout", "old"], rollups: later, last: ["old": Self.start - 5 * Self.day])
        #expect(proven.historyCoversWindow)
        #expect(proven["checkout"]?.state == .unused)
    }

    @Test
    func noEventsAtAllLeavesEveryFlagUnknown() async throws {
        let result = evidence(flags: ["b", "a"], rollups: [])
        #expect(result.flags.map(\.flag) == ["a", "b"])
        #expect(result.flags.allSatisfy { $0.state == .unknown })
        // No event store: unknown too, and says so.
        let none = try await FlagEvidence.load(from: nil, environment: "production", flags: ["a"], days: 30, now: Self.now)
        #expect(!none.eventsEnabled)
        #expect(none["a"]?.state == .unknown)
        #expect(none["a"]?.reason == "the server keeps no events (no event store is configured)")
    }

    @Test
    func loadReadsTheWindowFromTheStore() async throws {
        var store = FixedRowsEventStore()
        store.rollups["production"] = Self.everyDay("checkout", "on", versions: ["2.0"])
            + [Self.served("checkout", "off", version: "1.0", on: Self.start - Self.day)]
        store.rollups["staging"] = [Self.served("checkout", "off", version: "2.0", on: Self.today)]
        store.lastEvaluated["production"] = ["checkout": Self.now]
        let production = try await FlagEvidence.load(
            from: store, environment: "production", flags: ["checkout", "ghost"], days: 30, now: Self.now)
        #expect(production["checkout"]?.state == .settled)
        #expect(production["checkout"]?.lastEvaluated == Self.now)
        #expect(production["ghost"]?.state == .unused)
    }

    @Test
    func theCacheKeepsAnAnswerForItsLifetime() async throws {
        let clock = Mutex<Date>(Date(timeIntervalSince1970: TimeInterval(Self.now) / 1000))
        var store = FixedRowsEventStore()
        store.rollups["production"] = Self.everyDay("checkout", "on", versions: ["2.0"])
        let cache = FlagEvidenceCache(store: store, now: { clock.withLock { $0 } }, lifetime: 60_000)
        let first = try await cache.evidence(environment: "production", flags: ["checkout"], days: 30)
        clock.withLock { $0 += 59 }
        #expect(try await cache.evidence(environment: "production", flags: ["checkout"], days: 30).now == first.now)
        clock.withLock { $0 += 1 }
        #expect(try await cache.evidence(environment: "production", flags: ["checkout"], days: 30).now == first.now + 60_000)
        // Another window is another answer.
        #expect(try await cache.evidence(environment: "production", flags: ["checkout"], days: 7).days == 7)
        // A flag the events never named (created since) is answered from the kept evidence:
        // unused, as the events reach back to the window's start.
        let more = try await cache.evidence(environment: "production", flags: ["new", "checkout"], days: 30)
        #expect(more.now == first.now + 60_000)
        #expect(more.flags.map(\.flag) == ["checkout", "new"])
        #expect(more["checkout"]?.state == .settled)
        #expect(more["new"]?.state == .unused)
        // Flags the events name but the request does not ask for are left out.
        #expect(try await cache.evidence(environment: "production", flags: [], days: 30).flags.isEmpty)
    }

    @Test
    func keptEvidenceNeverWaitsAndStartsTheComputationTheNextCallerJoins() async throws {
        let clock = Mutex<Date>(Date(timeIntervalSince1970: TimeInterval(Self.now) / 1000))
        var store = FixedRowsEventStore()
        store.rollups["production"] = Self.everyDay("checkout", "on", versions: ["2.0"])
        let cache = FlagEvidenceCache(store: store, now: { clock.withLock { $0 } }, lifetime: 60_000)
        #expect(cache.keptEvidence(environment: "production", flags: ["checkout"], days: 30) == nil)
        // The computation the call above started is the one this joins: same time, same answer.
        let computed = try await cache.evidence(environment: "production", flags: ["checkout"], days: 30)
        #expect(computed.now == Self.now)
        #expect(cache.keptEvidence(environment: "production", flags: ["checkout"], days: 30) == computed)
        // Stale: still answered at once, and a new computation starts.
        clock.withLock { $0 += 120 }
        #expect(cache.keptEvidence(environment: "production", flags: ["checkout"], days: 30)?.now == Self.now)
        let renewed = try await cache.evidence(environment: "production", flags: ["checkout"], days: 30)
        #expect(renewed.now == Self.now + 120_000)
        #expect(renewed["checkout"]?.state == .settled)
    }

    @Test
    func daysAreWrittenAsTheirUTCDates() {
        // Leap days, century years, the epoch and before it, against Foundation's formatter.
        for days: Int64 in [-1, 0, 59, 11_016, 11_017, 10_956, 19_782, 20_000, 47_540, -25_509] {
            let time = days * Self.day + 3_600_000
            let expected = ISO8601DateFormatter.string(
                from: Date(timeIntervalSince1970: TimeInterval(time) / 1000), timeZone: .gmt, formatOptions: [.withFullDate])
            #expect(FlagEvidence.Calculator.dayText(time) == expected, "\(days)")
        }
    }

    @Test
    func evidenceWithoutAStoreAnswersUnknownForAnyFlag() {
        let none = EnvironmentEvidence(
            environment: "production", days: 30, windowStart: Self.start, now: Self.now, eventsEnabled: false,
            historyCoversWindow: false, flags: [])
        #expect(none.answering(["a"])["a"]?.reason == "the server keeps no events (no event store is configured)")
    }
}
