import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import Logging
import SQLiteNIO
import Testing

/// The suite every ``FlagEventStore`` implementation must pass, run against SQLite (in memory and
/// in a file) and PostgreSQL (`FLAG_SERVER_TEST_DATABASE_URL`; a schema of its own per test).
struct FlagEventStoreCompatibilityTests {
    /// A fresh place for an event store of `kind`.
    static func location(_ kind: StoreKind) throws -> StoreLocation {
        try kind.freshLocation(fileName: "events.sqlite")
    }

    static func open(_ location: StoreLocation) async throws -> any FlagEventStore {
        let store: any FlagEventStore =
            switch location {
            case .memory: try await SQLiteFlagEventStore(path: nil)
            case .file(let path): try await SQLiteFlagEventStore(path: path)
            case .postgres(let configuration):
                PostgresFlagEventStore(
                    configuration: configuration, logger: Logger(label: "test.postgres-events"),
                    now: { Date(timeIntervalSince1970: Double(Self.t0) / 1000) })
            }
        try await store.migrate()
        return store
    }

    /// Runs `body` with a migrated store of `kind` and closes it afterwards.
    static func with(_ kind: StoreKind, _ body: (any FlagEventStore, StoreLocation) async throws -> Void) async throws {
        let location = try location(kind)
        let store = try await open(location)
        do {
            try await body(store, location)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    // MARK: - Fixtures

    static let hour = RollupGranularity.hour.milliseconds
    static let day = RollupGranularity.day.milliseconds
    /// 2027-01-15 08:00 UTC: the start of an hour, eight hours into a day.
    static let t0: Int64 = 1_800_000_000_000
    static let day0 = RollupGranularity.day.bucket(of: t0)
    static let ios = EventBatch.EventSource(appVersion: "4.2", buildConfiguration: "release", platform: "iOS")
    static let android = EventBatch.EventSource(appVersion: "4.3", buildConfiguration: "alpha", platform: "Android")

    static func batch(
        _ id: String, environment: String = "prod", receivedAt: Int64 = t0 + 5 * 3_600_000, source: EventBatch.EventSource = ios,
        exposures: [EventBatch.Exposure] = [], summaries: [EventBatch.Summary] = [], tracked: [EventBatch.Tracked] = []
    ) -> EventBatch {
        EventBatch(
            id: id, environment: environment, receivedAt: receivedAt, source: source,
            dropped: EventBatch.DroppedEvents(exposures: 1), exposures: exposures, summaries: summaries, tracked: tracked)
    }

    static func exposure(
        _ flag: String = "checkout", _ variant: String = "on", unit: String?, at time: Int64, reason: String = "SPLIT"
    ) -> EventBatch.Exposure {
        EventBatch.Exposure(flag: flag, variant: variant, value: .bool(variant == "on"), reason: reason, revision: "\"r7\"", unit: unit, time: time)
    }

    static func summary(_ flag: String = "checkout", _ variant: String = "on", count: Int, start: Int64, reason: String = "SPLIT")
        -> EventBatch.Summary
    {
        EventBatch.Summary(flag: flag, variant: variant, reason: reason, count: count, start: start, end: start + 60_000)
    }

    static func rollup(
        _ bucket: Int64, _ flag: String = "checkout", _ variant: String = "on", reason: String = "SPLIT",
        source: EventBatch.EventSource = ios, evaluations: Int, exposures: Int
    ) -> EvaluationRollup {
        EvaluationRollup(
            bucket: bucket, flag: flag, variant: variant, reason: reason, appVersion: source.appVersion, platform: source.platform,
            evaluations: evaluations, exposures: exposures)
    }

    // MARK: - Tests

    @Test(arguments: StoreKind.allCases)
    func rollupsAddUpPerHourAndDay(kind: StoreKind) async throws {
        try await Self.with(kind) { store, _ in
            let t0 = Self.t0, hour = Self.hour
            let stored = try await store.ingest([
                Self.batch(
                    "a",
                    exposures: [
                        Self.exposure(unit: "u1", at: t0 + 5 * 60_000), Self.exposure(unit: "u2", at: t0 + 6 * 60_000),
                        Self.exposure(unit: nil, at: t0 + 2 * hour),
                    ],
                    summaries: [
                        // Counted in the hour it starts in, though it ends in the next.
                        EventBatch.Summary(flag: "checkout", variant: "on", reason: "SPLIT", count: 10, start: t0 + 50 * 60_000, end: t0 + 70 * 60_000),
                        Self.summary(count: 5, start: t0 + 2 * hour + 1),
                        Self.summary("banner", "", count: 3, start: t0, reason: "DEFAULT"),
                    ]),
                Self.batch("b", source: Self.android, summaries: [Self.summary(count: 7, start: t0 + 20 * 60_000)]),
                Self.batch("c", environment: "dev", summaries: [Self.summary(count: 1000, start: t0)]),
            ])
            #expect(stored == [true, true, true])
            // A later call adds to the same rows.
            #expect(try await store.ingest([Self.batch("d", summaries: [Self.summary(count: 1, start: t0 + 59 * 60_000)])]) == [true])

            let hourly = try await store.rollups(environment: "prod", flag: nil, granularity: .hour, from: t0, to: t0 + Self.day)
            #expect(hourly == [
                Self.rollup(t0, "banner", "", reason: "DEFAULT", evaluations: 3, exposures: 0),
                Self.rollup(t0, evaluations: 11, exposures: 2),
                Self.rollup(t0, source: Self.android, evaluations: 7, exposures: 0),
                Self.rollup(t0 + 2 * hour, evaluations: 5, exposures: 1),
            ])
            let daily = try await store.rollups(environment: "prod", flag: "checkout", granularity: .day, from: Self.day0, to: Self.day0 + 1)
            #expect(daily == [
                Self.rollup(Self.day0, evaluations: 16, exposures: 3),
                Self.rollup(Self.day0, source: Self.android, evaluations: 7, exposures: 0),
            ])
            // Bounds: `from` included, `to` excluded; one flag; another environment.
            #expect(try await store.rollups(environment: "prod", flag: nil, granularity: .hour, from: t0 + hour, to: t0 + 2 * hour).isEmpty)
            #expect(try await store.rollups(environment: "prod", flag: "checkout", granularity: .hour, from: t0, to: t0 + hour) == [
                Self.rollup(t0, evaluations: 11, exposures: 2), Self.rollup(t0, source: Self.android, evaluations: 7, exposures: 0),
            ])
            #expect(try await store.rollups(environment: "dev", flag: nil, granularity: .day, from: Self.day0, to: Self.day0 + Self.day) == [
                Self.rollup(Self.day0, evaluations: 1000, exposures: 0)
            ])
            #expect(try await store.rollups(environment: "staging", flag: nil, granularity: .day, from: 0, to: .max).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func rollupsAreOrderedByBucketFlagVariantReasonVersionAndPlatform(kind: StoreKind) async throws {
        try await Self.with(kind) { store, _ in
            let t0 = Self.t0, hour = Self.hour
            let v10 = EventBatch.EventSource(appVersion: "10.0", buildConfiguration: "release", platform: "iOS")
            let mac = EventBatch.EventSource(appVersion: "4.2", buildConfiguration: "release", platform: "macOS")
            // Written in an order that is none of the orders asked for.
            _ = try await store.ingest([
                Self.batch("1", source: mac, summaries: [Self.summary("b", "x", count: 1, start: t0)]),
                Self.batch("2", source: v10, summaries: [Self.summary("b", "x", count: 2, start: t0)]),
                Self.batch(
                    "3",
                    summaries: [
                        Self.summary("b", "x", count: 3, start: t0 + hour), Self.summary("b", "x", count: 4, start: t0, reason: "DEFAULT"),
                        Self.summary("b", "a", count: 5, start: t0), Self.summary("a", "z", count: 6, start: t0 + hour),
                        Self.summary("b", "x", count: 7, start: t0),
                    ]),
            ])
            let rollups = try await store.rollups(environment: "prod", flag: nil, granularity: .hour, from: t0, to: t0 + 2 * hour)
            #expect(rollups.map(\.evaluations) == [5, 4, 2, 7, 1, 6, 3])
            #expect(rollups.map(\.bucket) == [t0, t0, t0, t0, t0, t0 + hour, t0 + hour])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aUnitCountsOncePerVariantAndDay(kind: StoreKind) async throws {
        try await Self.with(kind) { store, _ in
            let t0 = Self.t0, day0 = Self.day0, day = Self.day
            _ = try await store.ingest([
                Self.batch(
                    "1",
                    exposures: [
                        Self.exposure(unit: "u1", at: t0), Self.exposure(unit: "u1", at: t0 + 1),
                        Self.exposure(unit: "u2", at: t0 + 2), Self.exposure(unit: nil, at: t0 + 3),
                    ]),
                // The same unit in another batch of the same call, and in another environment.
                Self.batch("2", exposures: [Self.exposure(unit: "u1", at: t0 + Self.hour), Self.exposure("checkout", "off", unit: "u1", at: t0)]),
                Self.batch("3", environment: "dev", exposures: [Self.exposure(unit: "u1", at: t0)]),
            ])
            // A later call: u2 again the same day, u3 new, u1 the next day.
            _ = try await store.ingest([
                Self.batch(
                    "4",
                    exposures: [
                        Self.exposure(unit: "u2", at: t0 + 5), Self.exposure(unit: "u3", at: t0 + 6), Self.exposure(unit: "u1", at: t0 + day),
                        Self.exposure("banner", "on", unit: "u1", at: t0),
                    ])
            ])
            #expect(try await store.unitCounts(environment: "prod", flag: nil, from: day0, to: day0 + 2 * day) == [
                UnitCount(day: day0, flag: "banner", variant: "on", units: 1),
                UnitCount(day: day0, flag: "checkout", variant: "off", units: 1),
                UnitCount(day: day0, flag: "checkout", variant: "on", units: 3),
                UnitCount(day: day0 + day, flag: "checkout", variant: "on", units: 1),
            ])
            #expect(try await store.unitCounts(environment: "prod", flag: "checkout", from: day0 + day, to: day0 + 2 * day) == [
                UnitCount(day: day0 + day, flag: "checkout", variant: "on", units: 1)
            ])
            #expect(try await store.unitCounts(environment: "dev", flag: nil, from: day0, to: day0 + day) == [
                UnitCount(day: day0, flag: "checkout", variant: "on", units: 1)
            ])
            // Exposures count every one received, with a unit or without.
            let daily = try await store.rollups(environment: "prod", flag: "checkout", granularity: .day, from: day0, to: day0 + 1)
            #expect(daily.map(\.exposures) == [1, 7])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aRepeatedBatchIDIsStoredOnce(kind: StoreKind) async throws {
        try await Self.with(kind) { store, _ in
            let t0 = Self.t0
            let first = Self.batch("same", exposures: [Self.exposure(unit: "u1", at: t0)], summaries: [Self.summary(count: 2, start: t0)])
            var retry = first
            retry.summaries[0].count = 1000
            retry.tracked = [EventBatch.Tracked(name: "checkout", value: 1, unit: "u1", time: t0)]
            let other = Self.batch("other", summaries: [Self.summary(count: 3, start: t0)])
            // Within one call: the first of an id is stored, later ones are not.
            let stored = try await store.ingest([first, retry, other])
            #expect(stored == [true, false, true])
            // Across calls too; the same id in another environment is another batch.
            var elsewhere = first
            elsewhere.environment = "dev"
            #expect(try await store.ingest([retry, elsewhere, first]) == [false, true, false])

            #expect(try await store.rollups(environment: "prod", flag: "checkout", granularity: .day, from: Self.day0, to: Self.day0 + 1) == [
                Self.rollup(Self.day0, evaluations: 5, exposures: 1)
            ])
            #expect(try await store.exposures(environment: "prod", flag: "checkout", from: 0, to: .max, limit: 100).count == 1)
            #expect(try await store.trackedEvents(environment: "prod", name: "checkout", from: 0, to: .max, limit: 100).isEmpty)
            #expect(try await store.trackedCounts(environment: "prod", from: 0, to: .max).isEmpty)
            #expect(try await store.unitCounts(environment: "prod", flag: nil, from: 0, to: .max).map(\.units) == [1])
            #expect(try await store.rollups(environment: "dev", flag: nil, granularity: .day, from: 0, to: .max).map(\.evaluations) == [2])
            #expect(try await store.ingest([]) == [])
        }
    }

    /// A database failure in the middle of an ingest (a trigger refusing the rows of one batch,
    /// in the last table an ingest writes) leaves nothing of the call: no batch id, no raw event,
    /// no rollup. The same batches without the poisoned one are stored afterwards.
    @Test(arguments: StoreKind.allCases)
    func aFailingBatchLeavesNothingOfItsCall(kind: StoreKind) async throws {
        try await Self.with(kind) { store, location in
            let t0 = Self.t0
            let good = Self.batch(
                "good", exposures: [Self.exposure(unit: "u1", at: t0)], summaries: [Self.summary(count: 4, start: t0)],
                tracked: [EventBatch.Tracked(name: "checkout", value: 2, unit: "u1", time: t0)])
            let poisoned = Self.batch("poisoned", summaries: [Self.summary("poison", "on", count: 1, start: t0)])
            let later = Self.batch("later", exposures: [Self.exposure(unit: "u2", at: t0 + 1)])
            try await Self.poison(store, location)

            await #expect(throws: StoreError.self) { try await store.ingest([good, poisoned, later]) }
            #expect(try await store.rollups(environment: "prod", flag: nil, granularity: .hour, from: 0, to: .max).isEmpty)
            #expect(try await store.rollups(environment: "prod", flag: nil, granularity: .day, from: 0, to: .max).isEmpty)
            #expect(try await store.unitCounts(environment: "prod", flag: nil, from: 0, to: .max).isEmpty)
            #expect(try await store.exposures(environment: "prod", flag: "checkout", from: 0, to: .max, limit: 10).isEmpty)
            #expect(try await store.trackedEvents(environment: "prod", name: "checkout", from: 0, to: .max, limit: 10).isEmpty)
            #expect(try await store.trackedCounts(environment: "prod", from: 0, to: .max).isEmpty)
            #expect(try await store.lastEvaluated(environment: "prod").isEmpty)

            // Their ids were not recorded: the batches are stored now.
            #expect(try await store.ingest([good, later]) == [true, true])
            #expect(try await store.exposures(environment: "prod", flag: "checkout", from: 0, to: .max, limit: 10).count == 2)
            #expect(try await store.unitCounts(environment: "prod", flag: nil, from: 0, to: .max).map(\.units) == [2])
        }
    }

    /// Makes the database refuse to record that flag `poison` was evaluated.
    static func poison(_ store: any FlagEventStore, _ location: StoreLocation) async throws {
        switch location {
        case .memory, .file:
            let connection = await (try #require(store as? SQLiteFlagEventStore)).connection
            _ = try await connection.query(
                """
                CREATE TRIGGER poison BEFORE INSERT ON flag_event_last_evaluated WHEN NEW.flag = 'poison'
                BEGIN SELECT RAISE(ABORT, 'poisoned batch'); END
                """)
        case .postgres(let configuration):
            let schema = try #require(configuration.schema)
            try await PostgresTestDatabase.query(
                """
                CREATE FUNCTION \(schema).poison() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN IF NEW.flag = 'poison' THEN RAISE EXCEPTION 'poisoned batch'; END IF; RETURN NEW; END $$
                """)
            try await PostgresTestDatabase.query(
                """
                CREATE TRIGGER poison BEFORE INSERT ON \(schema).flag_event_last_evaluated
                FOR EACH ROW EXECUTE FUNCTION \(schema).poison()
                """)
        }
    }

    /// Hours expiring in the middle of a day leave the day's count whole, and an event arriving
    /// late for an expired hour adds to its day (and starts that hour again).
    @Test(arguments: StoreKind.allCases)
    func hoursExpiringMidDayLeaveTheDayWhole(kind: StoreKind) async throws {
        try await Self.with(kind) { store, _ in
            let t0 = Self.t0, hour = Self.hour, day0 = Self.day0, day = Self.day
            #expect(try await store.ingest([
                Self.batch("a", summaries: [Self.summary(count: 3, start: t0), Self.summary(count: 4, start: t0 + hour)]),
            ]) == [true])
            _ = try await store.deleteExpired(rawBefore: 0, hourlyBefore: t0 + hour)
            #expect(try await store.rollups(environment: "prod", flag: nil, granularity: .hour, from: 0, to: .max) == [
                Self.rollup(t0 + hour, evaluations: 4, exposures: 0),
            ])
            #expect(try await store.rollups(environment: "prod", flag: "checkout", granularity: .day, from: 0, to: .max) == [
                Self.rollup(day0, evaluations: 7, exposures: 0),
            ])
            #expect(try await store.ingest([Self.batch("late", summaries: [Self.summary(count: 5, start: t0)])]) == [true])
            #expect(try await store.rollups(environment: "prod", flag: nil, granularity: .hour, from: 0, to: .max) == [
                Self.rollup(t0, evaluations: 5, exposures: 0), Self.rollup(t0 + hour, evaluations: 4, exposures: 0),
            ])
            #expect(try await store.rollups(environment: "prod", flag: nil, granularity: .day, from: day0, to: day0 + day) == [
                Self.rollup(day0, evaluations: 12, exposures: 0),
            ])
            // A range starting after the day's start leaves the day out, its hours too.
            #expect(try await store.rollups(environment: "prod", flag: nil, granularity: .day, from: day0 + 1, to: .max).isEmpty)
            #expect(try await store.rollups(environment: "prod", flag: nil, granularity: .day, from: 0, to: day0).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func retentionDeletesRawEventsAndHourlyRollupsAndKeepsTheDaily(kind: StoreKind) async throws {
        try await Self.with(kind) { store, _ in
            let t0 = Self.t0, day0 = Self.day0, day = Self.day
            let old = Self.batch(
                "old", receivedAt: t0 + Self.hour,
                exposures: [Self.exposure(unit: "u1", at: t0), Self.exposure(unit: "u2", at: t0)],
                summaries: [Self.summary(count: 9, start: t0)],
                tracked: [EventBatch.Tracked(name: "checkout", value: 2.5, unit: "u1", time: t0)])
            let recent = Self.batch(
                "recent", receivedAt: t0 + day + Self.hour, exposures: [Self.exposure(unit: "u1", at: t0 + day)],
                tracked: [EventBatch.Tracked(name: "checkout", unit: "u1", time: t0 + day)])
            let stored = try await store.ingest([old, recent])
            #expect(stored == [true, true])

            // A day boundary: the first day's raw events and hourly rollups go.
            #expect(try await store.deleteExpired(rawBefore: day0 + day, hourlyBefore: day0 + day) == 3)
            #expect(try await store.exposures(environment: "prod", flag: "checkout", from: 0, to: .max, limit: 10).map(\.exposure.time) == [t0 + day])
            #expect(try await store.trackedEvents(environment: "prod", name: "checkout", from: 0, to: .max, limit: 10).map(\.time) == [t0 + day])
            #expect(try await store.rollups(environment: "prod", flag: nil, granularity: .hour, from: 0, to: .max).map(\.bucket) == [t0 + day])
            #expect(try await store.rollups(environment: "prod", flag: nil, granularity: .day, from: 0, to: .max) == [
                Self.rollup(day0, evaluations: 9, exposures: 2), Self.rollup(day0 + day, evaluations: 0, exposures: 1),
            ])
            #expect(try await store.unitCounts(environment: "prod", flag: nil, from: 0, to: .max).map(\.units) == [2, 1])
            #expect(try await store.trackedCounts(environment: "prod", from: 0, to: .max) == [
                TrackedCount(day: day0, name: "checkout", count: 1, valueSum: 2.5),
                TrackedCount(day: day0 + day, name: "checkout", count: 1, valueSum: 0),
            ])
            #expect(try await store.lastEvaluated(environment: "prod") == ["checkout": t0 + day])
            // Its batch id went with it; the recent one is remembered.
            #expect(try await store.ingest([recent]) == [false])

            // Within a day: the events received before the time, not after.
            #expect(try await store.deleteExpired(rawBefore: t0 + day + Self.hour + 1, hourlyBefore: 0) == 2)
            #expect(try await store.exposures(environment: "prod", flag: "checkout", from: 0, to: .max, limit: 10).isEmpty)
            #expect(try await store.rollups(environment: "prod", flag: nil, granularity: .hour, from: 0, to: .max).count == 1)
            #expect(try await store.deleteExpired(rawBefore: t0 + 3 * day, hourlyBefore: 0) == 0)
            #expect(try await store.ingest([recent]) == [true])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func rawEventsComeBackOldestFirstWithinLimits(kind: StoreKind) async throws {
        try await Self.with(kind) { store, _ in
            let t0 = Self.t0
            let pro: [String: JSONValue] = ["plan": "pro", "seats": 3]
            _ = try await store.ingest([
                Self.batch(
                    "1", source: Self.android,
                    exposures: [
                        Self.exposure(unit: "late", at: t0 + 30), Self.exposure(unit: "tie-1", at: t0 + 10),
                        EventBatch.Exposure(flag: "checkout", variant: "", reason: "DEFAULT", unit: nil, time: t0 + 10),
                        Self.exposure("banner", unit: "u", at: t0),
                    ],
                    tracked: [
                        EventBatch.Tracked(name: "buy", value: 9.5, attributes: pro, unit: "u1", variants: ["checkout": "on"], time: t0 + 20),
                        EventBatch.Tracked(name: "buy", unit: nil, time: t0 + 10), EventBatch.Tracked(name: "view", unit: nil, time: t0),
                    ]),
                Self.batch(
                    "2", exposures: [Self.exposure(unit: "first", at: t0)],
                    tracked: [EventBatch.Tracked(name: "buy", value: -1, unit: "u2", time: t0 + 30)]),
            ])
            let exposures = try await store.exposures(environment: "prod", flag: "checkout", from: t0, to: t0 + 31, limit: 10)
            #expect(exposures.map(\.exposure.unit) == ["first", "tie-1", nil, "late"])
            #expect(exposures.map(\.source.platform) == ["iOS", "Android", "Android", "Android"])
            #expect(exposures[1] == StoredExposure(
                exposure: EventBatch.Exposure(
                    flag: "checkout", variant: "on", value: true, reason: "SPLIT", revision: "\"r7\"", unit: "tie-1", time: t0 + 10),
                source: Self.android))
            #expect(exposures[2].exposure == EventBatch.Exposure(flag: "checkout", variant: "", reason: "DEFAULT", unit: nil, time: t0 + 10))
            #expect(try await store.exposures(environment: "prod", flag: "checkout", from: t0, to: t0 + 31, limit: 2).map(\.exposure.unit) == [
                "first", "tie-1",
            ])
            #expect(try await store.exposures(environment: "prod", flag: "checkout", from: t0 + 10, to: t0 + 30, limit: 10).count == 2)
            #expect(try await store.exposures(environment: "prod", flag: "checkout", from: t0, to: t0 + 31, limit: 0).isEmpty)

            let bought = try await store.trackedEvents(environment: "prod", name: "buy", from: t0, to: t0 + 31, limit: 10)
            #expect(bought == [
                EventBatch.Tracked(name: "buy", unit: nil, time: t0 + 10),
                EventBatch.Tracked(name: "buy", value: 9.5, attributes: pro, unit: "u1", variants: ["checkout": "on"], time: t0 + 20),
                EventBatch.Tracked(name: "buy", value: -1, unit: "u2", time: t0 + 30),
            ])
            #expect(try await store.trackedEvents(environment: "prod", name: "buy", from: t0, to: t0 + 31, limit: 1).map(\.time) == [t0 + 10])
            #expect(try await store.trackedEvents(environment: "prod", name: "buy", from: t0 + 11, to: t0 + 30, limit: 9).map(\.time) == [t0 + 20])
            #expect(try await store.trackedEvents(environment: "dev", name: "buy", from: 0, to: .max, limit: 9).isEmpty)
            #expect(try await store.trackedCounts(environment: "prod", from: Self.day0, to: Self.day0 + Self.day) == [
                TrackedCount(day: Self.day0, name: "buy", count: 3, valueSum: 8.5),
                TrackedCount(day: Self.day0, name: "view", count: 1, valueSum: 0),
            ])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func lastEvaluatedIsTheNewestSummaryEndOrExposure(kind: StoreKind) async throws {
        try await Self.with(kind) { store, _ in
            let t0 = Self.t0
            _ = try await store.ingest([
                Self.batch("1", exposures: [Self.exposure(unit: "u", at: t0 + 500)], summaries: [Self.summary(count: 1, start: t0)]),
                Self.batch("2", summaries: [Self.summary("banner", count: 1, start: t0)], tracked: [EventBatch.Tracked(name: "ignored", unit: nil, time: t0 + 9_000_000)]),
                Self.batch("3", environment: "dev", exposures: [Self.exposure(unit: "u", at: t0 + 1)]),
            ])
            // The summary ends at t0 + 60,000, after the exposure.
            #expect(try await store.lastEvaluated(environment: "prod") == ["checkout": t0 + 60_000, "banner": t0 + 60_000])
            // An older event, received later, does not move it back; a newer one moves it on.
            _ = try await store.ingest([
                Self.batch("4", exposures: [Self.exposure(unit: "u", at: t0)]),
                Self.batch("5", exposures: [Self.exposure("banner", unit: "u", at: t0 + 70_000)]),
            ])
            #expect(try await store.lastEvaluated(environment: "prod") == ["checkout": t0 + 60_000, "banner": t0 + 70_000])
            #expect(try await store.lastEvaluated(environment: "dev") == ["checkout": t0 + 1])
            #expect(try await store.lastEvaluated(environment: "staging").isEmpty)
        }
    }

    /// A call larger than one statement's bound (rows and parameters) is written in several, all of it.
    @Test(arguments: StoreKind.allCases)
    func aLargeCallIsWrittenWhole(kind: StoreKind) async throws {
        try await Self.with(kind) { store, _ in
            let t0 = Self.t0
            let batches = (0..<60).map { index in
                Self.batch(
                    "batch-\(index)",
                    exposures: (0..<200).map { Self.exposure("flag-\($0 % 7)", unit: "unit-\(index)-\($0)", at: t0 + Int64($0)) },
                    summaries: (0..<50).map { Self.summary("flag-\($0)", count: 2, start: t0 + Int64($0) * Self.hour) },
                    tracked: (0..<20).map { EventBatch.Tracked(name: "n\($0 % 3)", value: 1, unit: "u", time: t0) })
            }
            let stored = try await store.ingest(batches)
            #expect(stored == Array(repeating: true, count: 60))
            let daily = try await store.rollups(environment: "prod", flag: nil, granularity: .day, from: 0, to: .max)
            #expect(daily.reduce(0) { $0 + $1.exposures } == 12_000)
            #expect(daily.reduce(0) { $0 + $1.evaluations } == 6_000)
            #expect(try await store.unitCounts(environment: "prod", flag: nil, from: 0, to: .max).reduce(0) { $0 + $1.units } == 12_000)
            #expect(try await store.trackedCounts(environment: "prod", from: 0, to: .max).reduce(0) { $0 + $1.count } == 1_200)
            #expect(try await store.exposures(environment: "prod", flag: "flag-0", from: 0, to: .max, limit: 100_000).count == 60 * 29)
        }
    }

    /// Two stores over one database (two replicas) ingesting the same batches at once store each
    /// batch once, and their rollups count it once.
    @Test(arguments: [StoreKind.sqliteFile, .postgres])
    func twoReplicasIngestingTheSameBatchesStoreThemOnce(kind: StoreKind) async throws {
        try await Self.with(kind) { first, location in
            let second = try await Self.open(location)
            let t0 = Self.t0
            let batches = (0..<40).map { index in
                Self.batch(
                    "batch-\(index)", exposures: [Self.exposure(unit: "u\(index % 5)", at: t0)],
                    summaries: [Self.summary(count: 1, start: t0), Self.summary("banner", count: 2, start: t0)])
            }
            // In groups of four, each replica in its own order.
            let groups = stride(from: 0, to: 40, by: 4).map { Array(batches[$0..<$0 + 4]) }
            do {
                async let a = Self.ingestAll(groups, into: first)
                async let b = Self.ingestAll(groups.reversed().map { Array($0.reversed()) }, into: second)
                let (storedByFirst, storedBySecond) = try await (a, b)
                #expect(storedByFirst.count + storedBySecond.count == 40)
                #expect(storedByFirst.isDisjoint(with: storedBySecond))
            } catch {
                await second.close()
                throw error
            }
            await second.close()
            #expect(try await first.rollups(environment: "prod", flag: nil, granularity: .hour, from: 0, to: .max) == [
                Self.rollup(t0, "banner", evaluations: 80, exposures: 0), Self.rollup(t0, evaluations: 40, exposures: 40),
            ])
            #expect(try await first.unitCounts(environment: "prod", flag: nil, from: 0, to: .max).map(\.units) == [5])
            #expect(try await first.exposures(environment: "prod", flag: "checkout", from: 0, to: .max, limit: 100).count == 40)
        }
    }

    /// The ids of the batches `store` stored, ingesting `groups` one call each.
    static func ingestAll(_ groups: [[EventBatch]], into store: any FlagEventStore) async throws -> Set<String> {
        var stored = Set<String>()
        for group in groups {
            for (batch, isStored) in zip(group, try await store.ingest(group)) where isStored {
                stored.insert(batch.id)
            }
        }
        return stored
    }

    @Test(arguments: StoreKind.allCases)
    func migrateIsIdempotent(kind: StoreKind) async throws {
        try await Self.with(kind) { store, _ in
            _ = try await store.ingest([Self.batch("1", summaries: [Self.summary(count: 1, start: Self.t0)])])
            try await store.migrate()
            #expect(try await store.ingest([Self.batch("1"), Self.batch("2")]) == [false, true])
        }
    }
}

/// What only the PostgreSQL store does: its own migrations beside the flag store's, and partitions.
struct PostgresFlagEventStoreTests {
    static func configuration() throws -> PostgresConfiguration {
        try PostgresTestDatabase.skipUnlessEnabled()
        return try PostgresTestDatabase.configuration(schema: PostgresTestDatabase.freshSchema())
    }

    static func store(_ configuration: PostgresConfiguration, now: Int64 = FlagEventStoreCompatibilityTests.t0) -> PostgresFlagEventStore {
        PostgresFlagEventStore(
            configuration: configuration, logger: Logger(label: "test.postgres-events"),
            now: { Date(timeIntervalSince1970: Double(now) / 1000) })
    }

    /// The partitions of `table`, by name.
    static func partitions(_ table: String, _ configuration: PostgresConfiguration) async throws -> [String] {
        try await PostgresTestDatabase.query(
            """
            SELECT c.relname::TEXT FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = '\(configuration.schema!).\(table)'::regclass ORDER BY 1
            """
        ).sorted()
    }

    @Test
    func itsMigrationsLiveBesideTheFlagStores() async throws {
        let configuration = try Self.configuration()
        let flags = PostgresFlagStore(configuration: configuration, logger: Logger(label: "test.postgres"), tokenWriteTimeout: ServerLimits.forTests.writeTimeout)
        let events = Self.store(configuration)
        do {
            try await flags.migrate()
            let version = try await flags.schemaVersion()
            try await events.migrate()
            try await events.migrate()
            // Each keeps its own versions: the flag store's are untouched, and migrate again
            // finds nothing to do.
            #expect(try await flags.schemaVersion() == version)
            try await flags.migrate()
            #expect(try await PostgresTestDatabase.query(
                "SELECT version::TEXT FROM \(configuration.schema!).flag_event_migrations ORDER BY version") == ["1", "2", "3", "4"])
        } catch {
            await events.close()
            await flags.close()
            throw error
        }
        await events.close()
        await flags.close()
    }

    @Test
    func partitionsAreMadeADayAheadAndDroppedWhole() async throws {
        let configuration = try Self.configuration()
        let t0 = FlagEventStoreCompatibilityTests.t0, day = RollupGranularity.day.milliseconds
        let store = Self.store(configuration)
        let other = Self.store(configuration)
        do {
            // Migrating makes today's (2027-01-15) and tomorrow's.
            try await store.migrate()
            #expect(try await Self.partitions("flag_event_exposures", configuration) == [
                "flag_event_exposures_20270115", "flag_event_exposures_20270116",
            ])
            // A batch received on the 17th makes the 17th's and the 18th's.
            let batch = FlagEventStoreCompatibilityTests.batch(
                "1", receivedAt: t0 + 2 * day,
                exposures: [FlagEventStoreCompatibilityTests.exposure(unit: "u", at: t0)],
                tracked: [EventBatch.Tracked(name: "buy", unit: nil, time: t0)])
            #expect(try await store.ingest([batch]) == [true])
            #expect(try await Self.partitions("flag_event_tracked", configuration) == [
                "flag_event_tracked_20270115", "flag_event_tracked_20270116", "flag_event_tracked_20270117",
                "flag_event_tracked_20270118",
            ])
            // Another replica's retention drops the days before the 18th, the 17th's rows with them.
            #expect(try await other.deleteExpired(rawBefore: RollupGranularity.day.bucket(of: t0 + 3 * day), hourlyBefore: 0) == 2)
            #expect(try await Self.partitions("flag_event_exposures", configuration) == ["flag_event_exposures_20270118"])
            // This store thought the 17th's partitions were there: it makes them again.
            let late = FlagEventStoreCompatibilityTests.batch(
                "2", receivedAt: t0 + 2 * day, exposures: [FlagEventStoreCompatibilityTests.exposure(unit: "u", at: t0)])
            #expect(try await store.ingest([late]) == [true])
            #expect(try await store.exposures(environment: "prod", flag: "checkout", from: 0, to: .max, limit: 10).count == 1)
        } catch {
            await store.close()
            await other.close()
            throw error
        }
        await store.close()
        await other.close()
    }

    @Test(arguments: [
        (Int64(0), "19700101"), (Int64(1_800_000_000_000), "20270115"), (Int64(951_782_400_000), "20000229"),
        (Int64(253_402_214_400_000), "99991231"),
    ])
    func partitionNamesAreUTCDates(time: Int64, suffix: String) {
        let day = RollupGranularity.day.bucket(of: time)
        #expect(PostgresFlagEventStore.partitionSuffix(day) == suffix)
        #expect(PostgresFlagEventStore.partitionDay("flag_event_exposures_" + suffix, of: "flag_event_exposures") == day)
        #expect(PostgresFlagEventStore.partitionSuffix(day + RollupGranularity.day.milliseconds * 4_000_000) == nil)
        #expect(PostgresFlagEventStore.partitionDay("flag_event_exposures_20270230", of: "flag_event_exposures") == nil)
    }
}
