import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import Testing

/// The insights report built from hand-made rollups, unit counts and audit entries.
struct FlagInsightsTests {
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 86_400_000
    /// 2026-11-20T00:00:00Z (a Friday).
    static let start: Int64 = 1_795_132_800_000

    static func rollup(
        _ bucket: Int64, _ variant: String, evaluations: Int, exposures: Int = 0, flag: String = "checkout", reason: String = "SPLIT",
        app: String = "2.0", platform: String = "iOS"
    ) -> EvaluationRollup {
        EvaluationRollup(
            bucket: bucket, flag: flag, variant: variant, reason: reason, appVersion: app, platform: platform,
            evaluations: evaluations, exposures: exposures)
    }

    static func entry(_ revision: Int, at time: Int64, key: String = "checkout", enabled: Bool, wasEnabled: Bool?, revertedTo: Int? = nil)
        -> AuditEntry
    {
        let flag: JSONValue = [
            "key": .string(key), "type": "boolean", "variants": ["on": true, "off": false], "defaultVariant": "off", "metadata": [:],
        ]
        func view(_ enabled: Bool) -> JSONValue { ["flag": flag, "settings": ["enabled": .bool(enabled), "defaultVariant": "on"]] }
        return AuditEntry(
            environment: "production", revision: revision, time: InsightsRange.date(time), actor: "ana", reason: "because",
            subject: .flag, key: key, before: wasEnabled.map(view), after: view(enabled), revertedTo: revertedTo)
    }

    static func report(
        range: InsightsRange, rollups: [EvaluationRollup] = [], units: [UnitCount] = [], audit: [AuditEntry] = [],
        lastEvaluated: Int64? = nil, splitLimit: Int = 10
    ) -> FlagInsights {
        FlagInsights(
            environment: "production", flag: "checkout", variants: ["on", "off"], range: range, rollups: rollups, unitCounts: units,
            lastEvaluated: lastEvaluated, audit: audit, splitLimit: splitLimit)
    }

    @Test
    func everyBucketOfTheRangeIsThereEmptyOnesAsZeros() throws {
        let range = try InsightsRange(from: Self.start, to: Self.start + 6 * Self.hour)
        #expect(range.granularity == .hour)
        let insights = Self.report(range: range, rollups: [
            Self.rollup(Self.start + Self.hour, "on", evaluations: 5, exposures: 2),
            Self.rollup(Self.start + 4 * Self.hour, "on", evaluations: 7),
            Self.rollup(Self.start + 4 * Self.hour, "off", evaluations: 3, exposures: 1),
        ])
        #expect(insights.buckets.count == 6)
        #expect(insights.buckets.first == InsightsRange.date(Self.start))
        #expect(insights.buckets.last == InsightsRange.date(Self.start + 5 * Self.hour))
        #expect(insights.variants.map(\.variant) == ["off", "on"])
        #expect(insights.variants[1].evaluations == [0, 5, 0, 0, 7, 0])
        #expect(insights.variants[1].exposures == [0, 2, 0, 0, 0, 0])
        #expect(insights.variants[0].evaluations == [0, 0, 0, 0, 3, 0])
        #expect(insights.variants[1].totalEvaluations == 12)
        #expect(insights.totalEvaluations == 15)
        #expect(insights.totalExposures == 3)
        #expect(!insights.isEmpty)
    }

    @Test
    func rowsOfTheSameBucketAddUpAcrossReasonsVersionsAndPlatforms() throws {
        let range = try InsightsRange(from: Self.start, to: Self.start + 2 * Self.day, granularity: .day)
        let insights = Self.report(range: range, rollups: [
            Self.rollup(Self.start, "on", evaluations: 1, reason: "SPLIT"),
            Self.rollup(Self.start, "on", evaluations: 10, reason: "TARGETING_MATCH"),
            Self.rollup(Self.start, "on", evaluations: 100, app: "1.0"),
            Self.rollup(Self.start, "on", evaluations: 1000, platform: "Android"),
        ])
        #expect(insights.granularity == "day")
        #expect(insights.variants[1].evaluations == [1111, 0])
    }

    @Test
    func rowsOfOtherFlagsAndOutsideTheRangeAreIgnored() throws {
        let range = try InsightsRange(from: Self.start, to: Self.start + 3 * Self.hour)
        let insights = Self.report(range: range, rollups: [
            Self.rollup(Self.start - Self.hour, "on", evaluations: 1),
            Self.rollup(Self.start + 3 * Self.hour, "on", evaluations: 2),
            Self.rollup(Self.start, "on", evaluations: 4, flag: "search"),
            Self.rollup(Self.start + 2 * Self.hour, "on", evaluations: 8),
        ], units: [
            UnitCount(day: Self.start - Self.day, flag: "checkout", variant: "on", units: 50),
            UnitCount(day: Self.start, flag: "search", variant: "on", units: 60),
            UnitCount(day: Self.start, flag: "checkout", variant: "on", units: 7),
        ])
        #expect(insights.variants[1].evaluations == [0, 0, 8])
        #expect(insights.totalEvaluations == 8)
        #expect(insights.units.variants[1].daily == [7])
    }

    @Test
    func variantsAreTheFlagsByNameThenOthersTheEventsName() throws {
        let range = try InsightsRange(from: Self.start, to: Self.start + Self.hour)
        let insights = Self.report(range: range, rollups: [
            Self.rollup(Self.start, "zeta", evaluations: 1),
            Self.rollup(Self.start, "", evaluations: 2),
            Self.rollup(Self.start, "alpha", evaluations: 3),
        ])
        // The flag's own variants first even when nothing served them, then the rest by name.
        #expect(insights.variants.map(\.variant) == ["off", "on", "", "alpha", "zeta"])
        #expect(insights.variants.map(\.totalEvaluations) == [0, 0, 2, 3, 1])
    }

    @Test
    func unitsArePerDayWithUnitDaysAndThePeakNamedForWhatTheyAre() throws {
        // An hourly range across midnight touches two whole days.
        let range = try InsightsRange(from: Self.start + 20 * Self.hour, to: Self.start + 28 * Self.hour)
        #expect(range.granularity == .hour)
        #expect(range.days == [Self.start, Self.start + Self.day])
        let insights = Self.report(range: range, units: [
            UnitCount(day: Self.start, flag: "checkout", variant: "on", units: 40),
            UnitCount(day: Self.start + Self.day, flag: "checkout", variant: "on", units: 30),
            UnitCount(day: Self.start + Self.day, flag: "checkout", variant: "off", units: 5),
            UnitCount(day: Self.start + 2 * Self.day, flag: "checkout", variant: "on", units: 99),
        ])
        #expect(insights.units.days == [InsightsRange.date(Self.start), InsightsRange.date(Self.start + Self.day)])
        let on = try #require(insights.units.variants.first { $0.variant == "on" })
        #expect(on.daily == [40, 30])
        // A unit served on both days counts on both: 70 unit-days, at least 40 distinct units.
        #expect(on.unitDays == 70)
        #expect(on.peakDailyUnits == 40)
        let off = try #require(insights.units.variants.first { $0.variant == "off" })
        #expect(off.daily == [0, 5])
        #expect(off.peakDailyUnits == 5)
        // Units without evaluations in the range are still no evaluations.
        #expect(insights.isEmpty)
    }

    @Test
    func splitsListTheLargestValuesThenAddUpTheRestAsOther() throws {
        let range = try InsightsRange(from: Self.start, to: Self.start + Self.day, granularity: .day)
        let insights = Self.report(range: range, rollups: [
            Self.rollup(Self.start, "on", evaluations: 50, exposures: 5, app: "3.0", platform: "iOS"),
            Self.rollup(Self.start, "off", evaluations: 10, app: "3.0", platform: "macOS"),
            Self.rollup(Self.start, "on", evaluations: 30, app: "2.9", platform: "iOS"),
            Self.rollup(Self.start, "on", evaluations: 4, exposures: 1, app: "2.8", platform: ""),
            Self.rollup(Self.start, "off", evaluations: 2, app: "2.7", platform: "iOS"),
            Self.rollup(Self.start, "on", evaluations: 30, app: "2.6", platform: "iOS"),
        ], splitLimit: 3)
        // By evaluations, largest first; a tie by value.
        #expect(insights.appVersions.values.map(\.value) == ["3.0", "2.6", "2.9"])
        #expect(insights.appVersions.values[0].evaluations == 60)
        #expect(insights.appVersions.values[0].exposures == 5)
        #expect(insights.appVersions.values[0].variants == ["on": 50, "off": 10])
        let other = try #require(insights.appVersions.other)
        #expect(other.valueCount == 2)
        #expect(other.evaluations == 6)
        #expect(other.exposures == 1)
        #expect(other.variants == ["on": 4, "off": 2])
        // Fewer values than the limit: no "other"; "" is a value (apps that sent no platform).
        #expect(insights.platforms.values.map(\.value) == ["iOS", "macOS", ""])
        #expect(insights.platforms.values.map(\.evaluations) == [112, 10, 4])
        #expect(insights.platforms.other == nil)
        // Every evaluation is in exactly one row of each split.
        #expect(insights.appVersions.values.reduce(other.evaluations) { $0 + $1.evaluations } == insights.totalEvaluations)
    }

    @Test
    func revisionsOfTheFlagInTheRangeAreMarkedOldestFirstInWords() throws {
        let range = try InsightsRange(from: Self.start, to: Self.start + 2 * Self.day, granularity: .day)
        let audit = [
            Self.entry(9, at: Self.start + 30 * Self.hour, enabled: true, wasEnabled: false, revertedTo: 3),
            Self.entry(7, at: Self.start + 2 * Self.hour, enabled: true, wasEnabled: false),
            Self.entry(8, at: Self.start + 5 * Self.hour, enabled: false, wasEnabled: true),
            Self.entry(4, at: Self.start - 1, enabled: true, wasEnabled: nil),
            Self.entry(10, at: Self.start + 2 * Self.day, enabled: false, wasEnabled: true),
            Self.entry(6, at: Self.start + 3 * Self.hour, key: "search", enabled: true, wasEnabled: false),
        ]
        let insights = Self.report(range: range, audit: audit)
        #expect(insights.revisions.map(\.revision) == [7, 8, 9])
        #expect(insights.revisions[0].time == InsightsRange.date(Self.start + 2 * Self.hour))
        #expect(insights.revisions[0].actor == "ana")
        #expect(insights.revisions[0].reason == "because")
        #expect(insights.revisions[0].summary == "turned checkout on in production: serves on")
        #expect(insights.revisions[1].summary == "turned checkout off in production")
        #expect(insights.revisions.map(\.revert) == [false, false, true])
        #expect(insights.revisions[2].summary.hasPrefix("reverted checkout to revision 3"))
        #expect(insights.revisionsComplete)
    }

    @Test
    func lastEvaluatedIsPassedOnAndAnEmptyRangeIsEmpty() throws {
        let range = try InsightsRange(from: Self.start, to: Self.start + Self.hour)
        let insights = Self.report(range: range, lastEvaluated: Self.start - Self.day + 1234)
        #expect(insights.lastEvaluated == InsightsRange.date(Self.start - Self.day + 1234))
        #expect(insights.isEmpty)
        #expect(insights.variants.allSatisfy { $0.evaluations == [0] })
        #expect(Self.report(range: range).lastEvaluated == nil)
    }

    @Test
    func theReportEncodesTimesAsISO8601() throws {
        let range = try InsightsRange(from: Self.start, to: Self.start + Self.hour)
        let json = try JSONValue(parsing: String(decoding: try JSONBody.encoder.encode(Self.report(range: range)), as: UTF8.self))
        #expect(json["from"] == "2026-11-20T00:00:00Z")
        #expect(json["to"] == "2026-11-20T01:00:00Z")
        #expect(json["buckets"] == ["2026-11-20T00:00:00Z"])
        #expect(json["granularity"] == "hour")
        #expect(json["lastEvaluated"] == nil)
    }
}

/// The bounds and alignment of an insights range.
struct InsightsRangeTests {
    static let hour = FlagInsightsTests.hour
    static let day = FlagInsightsTests.day
    static let start = FlagInsightsTests.start

    @Test
    func aRangeIsWidenedToWholeBuckets() throws {
        let range = try InsightsRange(from: Self.start + 90_000, to: Self.start + 2 * Self.hour + 1)
        #expect(range.from == Self.start)
        #expect(range.to == Self.start + 3 * Self.hour)
        #expect(range.buckets == [Self.start, Self.start + Self.hour, Self.start + 2 * Self.hour])
        let aligned = try InsightsRange(from: Self.start, to: Self.start + Self.day, granularity: .day)
        #expect(aligned.buckets == [Self.start])
        #expect(aligned.days == [Self.start])
    }

    @Test
    func hoursUpToThreeDaysDaysBeyondUnlessAskedFor() throws {
        #expect(try InsightsRange(from: Self.start, to: Self.start + 3 * Self.day).granularity == .hour)
        #expect(try InsightsRange(from: Self.start, to: Self.start + 3 * Self.day + 1).granularity == .day)
        #expect(try InsightsRange(from: Self.start, to: Self.start + Self.hour, granularity: .day).granularity == .day)
        #expect(try InsightsRange(from: Self.start, to: Self.start + 5 * Self.day, granularity: .hour).buckets.count == 120)
    }

    @Test
    func atMostSevenDaysOfHoursAndNinetyDaysOfDays() throws {
        #expect(try InsightsRange(from: Self.start, to: Self.start + 7 * Self.day, granularity: .hour).buckets.count == 168)
        #expect(throws: InsightsRange.Problem.tooLong(granularity: .hour, buckets: 169, maximum: 168)) {
            try InsightsRange(from: Self.start, to: Self.start + 7 * Self.day + 1, granularity: .hour)
        }
        #expect(try InsightsRange(from: Self.start, to: Self.start + 90 * Self.day).buckets.count == 90)
        #expect(throws: InsightsRange.Problem.tooLong(granularity: .day, buckets: 91, maximum: 90)) {
            try InsightsRange(from: Self.start - 1, to: Self.start + 90 * Self.day)
        }
        // A range as long as the dates allow is refused without overflowing.
        #expect(throws: InsightsRange.Problem.self) { try InsightsRange(from: 0, to: Int64.max) }
    }

    @Test
    func anEmptyOrBackwardRangeIsRefused() throws {
        #expect(throws: InsightsRange.Problem.empty(from: Self.start, to: Self.start)) {
            try InsightsRange(from: Self.start, to: Self.start)
        }
        #expect(throws: InsightsRange.Problem.self) { try InsightsRange(from: Self.start, to: Self.start - 1) }
        let problem = InsightsRange.Problem.empty(from: Self.start, to: Self.start - Self.day)
        #expect(problem.description == "from (2026-11-20T00:00:00Z) must be before to (2026-11-19T00:00:00Z)")
    }

    @Test
    func defaultsAreTheSevenDaysUpToNow() throws {
        let now = Self.start + 10 * Self.day + 5 * Self.hour + 7
        let range = try InsightsRange(from: nil, to: nil, granularity: nil, now: now)
        #expect(range.granularity == .day)
        #expect(range.from == Self.start + 3 * Self.day)
        #expect(range.to == Self.start + 11 * Self.day)
    }

    @Test
    func timesAreReadAsISO8601WithAZone() {
        #expect(InsightsRange.time(parsing: "2026-11-20T00:00:00Z") == Self.start)
        #expect(InsightsRange.time(parsing: "2026-11-20T00:00:00.250Z") == Self.start + 250)
        #expect(InsightsRange.time(parsing: "2026-11-20T02:00:00+02:00") == Self.start)
        #expect(InsightsRange.time(parsing: "2026-11-20") == nil)
        #expect(InsightsRange.time(parsing: "1795132800000") == nil)
        #expect(InsightsRange.time(parsing: "yesterday") == nil)
    }

    @Test
    func theConsolesWindowsAreWholeBucketsEndingWithTheBucketOfNow() {
        let now = InsightsRange.date(Self.start + 5 * Self.hour + 60_000)
        for window in ConsoleRoutes.insightsWindows {
            let range = ConsoleRoutes.insightsRange(window: window.key, now: now)
            #expect(range.granularity == window.granularity)
            #expect(range.buckets.count == window.buckets)
            #expect(window.buckets <= InsightsRange.maximumBuckets(window.granularity))
            #expect(range.to == window.granularity.bucket(of: Self.start + 5 * Self.hour) + window.granularity.milliseconds)
            // What the range checks would accept.
            #expect(throws: Never.self) { try InsightsRange(from: range.from, to: range.to, granularity: range.granularity) }
        }
        #expect(ConsoleRoutes.insightsRange(window: "forever", now: now) == ConsoleRoutes.insightsRange(window: "7d", now: now))
    }
}
