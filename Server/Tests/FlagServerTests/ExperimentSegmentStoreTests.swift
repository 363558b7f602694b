import FlagStatistics
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import SQLiteNIO
import Testing

/// Results by segment on every event store (SQLite in memory and in a file, PostgreSQL): each
/// unit's segment is the app version and platform of its first exposure, for good; each segment's
/// sums are a naive recount of its units alone and the segments add up to the pooled totals;
/// units stored before segments were kept are "unknown"; the largest values are kept and the rest
/// pooled as "other".
struct ExperimentSegmentStoreTests {
    typealias Compatibility = FlagEventStoreCompatibilityTests
    static let t0 = Compatibility.t0
    static let day = RollupGranularity.day.milliseconds
    static let query = ExperimentResultsStoreTests.query
    static let sources = [
        EventBatch.EventSource(appVersion: "4.2", buildConfiguration: "release", platform: "iOS"),
        EventBatch.EventSource(appVersion: "4.3", buildConfiguration: "release", platform: "iOS"),
        EventBatch.EventSource(appVersion: "4.3", buildConfiguration: "release", platform: "Android"),
        EventBatch.EventSource(appVersion: "5.0", buildConfiguration: "release", platform: "Android"),
    ]

    /// The rows ingested so far, each exposure with the source of its batch.
    final class Log: @unchecked Sendable {
        var exposures: [(sequence: Int64, exposure: ExperimentResultsCounter.Exposure)] = []
        var events: [(sequence: Int64, event: ExperimentResultsCounter.Event)] = []
        var batches = 0

        func next(using random: inout SplitMix) -> EventBatch {
            batches += 1
            let sequence = Int64(batches)
            let source = ExperimentSegmentStoreTests.sources.randomElement(using: &random)!
            let (exposures, events) = ExperimentResultsCounterTests.randomBatch(units: (0..<16).map { "u\($0)" }, using: &random)
            let shift = ExperimentSegmentStoreTests.t0 - ExperimentResultsCounterTests.start
            let moved = exposures.map {
                ExperimentResultsCounter.Exposure(
                    unit: $0.unit, variant: $0.variant, time: $0.time + shift, appVersion: source.appVersion, platform: source.platform)
            }
            let movedEvents = events.map { ExperimentResultsCounter.Event(unit: $0.unit, name: $0.name, value: $0.value, time: $0.time + shift) }
            self.exposures += moved.map { (sequence, $0) }
            self.events += movedEvents.map { (sequence, $0) }
            return EventBatch(
                id: String(format: "s%05d", batches), environment: "prod", receivedAt: ExperimentSegmentStoreTests.t0 + Int64(batches),
                source: source,
                exposures: moved.map { EventBatch.Exposure(flag: "checkout", variant: $0.variant, reason: "SPLIT", unit: $0.unit, time: $0.time) },
                tracked: movedEvents.map { EventBatch.Tracked(name: $0.name, value: $0.value, unit: $0.unit, time: $0.time) })
        }

        /// Each unit's segment, naively: the source of its earliest qualifying exposure (the first
        /// received among equal times).
        func segments(_ query: ExperimentResultsQuery, _ dimension: ExperimentSegmentDimension) -> [String: String] {
            var first: [String: ExperimentResultsCounter.Exposure] = [:]
            for exposure in exposures.map(\.exposure)
            where query.arms.contains(exposure.variant) && exposure.time >= query.start && exposure.time < (query.end ?? .max) {
                if first[exposure.unit].map({ exposure.time < $0.time }) ?? true { first[exposure.unit] = exposure }
            }
            return first.mapValues { (dimension == .appVersion ? $0.appVersion : $0.platform) ?? "unknown" }
        }

        /// The naive totals of the units of one segment only.
        func expected(_ query: ExperimentResultsQuery, units: Set<String>, now: Int64) -> ExperimentTotals {
            Naive(query: query).totals(
                exposures: exposures.filter { units.contains($0.exposure.unit) }, events: events.filter { units.contains($0.event.unit) },
                now: now)
        }
    }

    static func stores(_ store: any FlagEventStore) throws -> (any ExperimentResultsStore, any ExperimentSegmentStore) {
        (try #require(store as? any ExperimentResultsStore), try #require(store as? any ExperimentSegmentStore))
    }

    @Test(arguments: StoreKind.allCases)
    func eachSegmentIsANaiveRecountOfItsUnitsAndTheSegmentsAddUpToTheTotals(_ kind: StoreKind) async throws {
        try await Compatibility.with(kind) { store, _ in
            let (results, segments) = try Self.stores(store)
            let log = Log()
            var random = SplitMix(seed: 41)
            let now = Self.t0 + 5 * Self.day
            var query = Self.query
            query.metrics[1].cap = .value(10)
            for round in 0..<8 {
                for _ in 0..<Int.random(in: 1...4, using: &random) { _ = try await store.ingest([log.next(using: &random)]) }
                let totals = try await results.updateResults(query, now: now)
                for dimension in ExperimentSegmentDimension.allCases {
                    let split = try await segments.segmentTotals(query, request: .init(dimension: dimension), thresholds: [:])
                    let naive = log.segments(query, dimension)
                    #expect(Set(split.segments.map(\.key)) == Set(naive.values), "\(kind) round \(round) \(dimension)")
                    #expect(split.segments.allSatisfy { $0.kind == .value })
                    var summed: [String: [String: ArmStatistics]] = [:]
                    var units: [String: Int] = [:]
                    for segment in split.segments {
                        let members = Set(naive.filter { $0.value == segment.key }.keys)
                        let expected = log.expected(query, units: members, now: now)
                        #expect(segment.units == expected.units, "\(kind) round \(round) \(segment.key)")
                        let got = ExperimentTotals(
                            units: segment.units, reassignedUnits: expected.reassignedUnits, metrics: segment.metrics,
                            daily: expected.daily, countedThrough: now, capping: expected.capping)
                        ExperimentResultsCounterTests.expectClose(got, expected, "\(kind) round \(round) \(dimension) \(segment.key)")
                        for (arm, count) in segment.units { units[arm, default: 0] += count }
                        for (metric, arms) in segment.metrics {
                            for (arm, s) in arms {
                                let old = summed[metric]?[arm] ?? ArmStatistics(units: 0, sum: 0, sumOfSquares: 0)
                                summed[metric, default: [:]][arm] = ArmStatistics(
                                    units: old.units + s.units, sum: old.sum + s.sum, sumOfSquares: (old.sumOfSquares ?? 0) + (s.sumOfSquares ?? 0))
                            }
                        }
                    }
                    #expect(units.filter { $0.value > 0 } == totals.units.filter { $0.value > 0 }, "\(kind) round \(round) \(dimension)")
                    for (metric, arms) in totals.metrics {
                        for (arm, pooled) in arms {
                            let sum = summed[metric]?[arm]
                            #expect(abs((sum?.sum ?? 0) - pooled.sum) < 1e-6, "\(kind) \(metric) \(arm)")
                            #expect(abs((sum?.sumOfSquares ?? 0) - (pooled.sumOfSquares ?? 0)) < 1e-6, "\(kind) \(metric) \(arm)")
                        }
                    }
                }
            }
            #expect(try await results.updateResults(query, now: now).units.values.reduce(0, +) > 8)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aUnitStaysInTheSegmentOfItsFirstExposureUntilAnEarlierOneArrives(_ kind: StoreKind) async throws {
        try await Compatibility.with(kind) { store, _ in
            let (results, segments) = try Self.stores(store)
            let now = Self.t0 + 5 * Self.day
            let t = Self.t0 + 3_600_000
            func send(_ id: String, _ source: EventBatch.EventSource, at time: Int64) async throws {
                _ = try await store.ingest([
                    EventBatch(
                        id: id, environment: "prod", receivedAt: time, source: source,
                        exposures: [EventBatch.Exposure(flag: "checkout", variant: "treatment", reason: "SPLIT", unit: "u", time: time)],
                        tracked: [EventBatch.Tracked(name: "purchase", value: 2, unit: "u", time: time + 1)])
                ])
                _ = try await results.updateResults(Self.query, now: now)
            }
            func segment(_ dimension: ExperimentSegmentDimension) async throws -> [String] {
                try await segments.segmentTotals(Self.query, request: .init(dimension: dimension), thresholds: [:]).segments.map(\.key)
            }
            try await send("first", Self.sources[0], at: t)
            #expect(try await segment(.appVersion) == ["4.2"])
            // The unit upgrades and moves to another platform's build: it stays where it started.
            try await send("upgraded", Self.sources[3], at: t + 60_000)
            #expect(try await segment(.appVersion) == ["4.2"])
            #expect(try await segment(.platform) == ["iOS"])
            // An exposure from before the first arrives late: it is the first, and its segment the unit's.
            try await send("earlier", Self.sources[2], at: t - 60_000)
            #expect(try await segment(.appVersion) == ["4.3"])
            #expect(try await segment(.platform) == ["Android"])
        }
    }

    /// Units stored before the segment columns existed (their columns `NULL`, as the migration
    /// leaves them) are "unknown", and stay so when later events of theirs are counted.
    @Test(arguments: StoreKind.allCases)
    func unitsStoredBeforeSegmentsWereKeptAreUnknown(_ kind: StoreKind) async throws {
        try await Compatibility.with(kind) { store, location in
            let (results, segments) = try Self.stores(store)
            let log = Log()
            var random = SplitMix(seed: 5)
            let now = Self.t0 + 5 * Self.day
            for _ in 0..<6 { _ = try await store.ingest([log.next(using: &random)]) }
            let before = try await results.updateResults(Self.query, now: now)
            let forget = "UPDATE flag_event_experiment_units SET app_version = NULL, platform = NULL"
            switch location {
            case .memory, .file:
                _ = try await (try #require(store as? SQLiteFlagEventStore)).connection.query(forget)
            case .postgres(let configuration):
                let schema = try #require(configuration.schema)
                _ = try await PostgresTestDatabase.query(forget.replacingOccurrences(of: "UPDATE ", with: "UPDATE \(schema)."))
            }
            let old = try await segments.segmentTotals(Self.query, request: .init(dimension: .appVersion), thresholds: [:])
            #expect(old.segments.map(\.key) == ["unknown"])
            #expect(old.segments.first?.kind == .unknown)
            #expect(old.segments.first?.units == before.units)
            // Later events of those units are counted; their segment stays unknown.
            let known = Set(log.segments(Self.query, .appVersion).keys)
            let later = EventBatch(
                id: "later", environment: "prod", receivedAt: now, source: Self.sources[3], exposures: [],
                tracked: known.sorted().map { EventBatch.Tracked(name: "click", value: nil, unit: $0, time: Self.t0 + 2 * Self.day) })
            _ = try await store.ingest([later])
            let after = try await results.updateResults(Self.query, now: now)
            let split = try await segments.segmentTotals(Self.query, request: .init(dimension: .platform), thresholds: [:])
            #expect(split.segments.map(\.key) == ["unknown"])
            #expect(split.segments.first?.metrics["clicks"] == after.metrics["clicks"])
        }
    }

    // MARK: - Bounds (pure)

    static func unit(_ arm: String, _ version: String?, value: Double = 1) -> ExperimentResultsCounter.Unit {
        let metrics = ExperimentResultsCounterTests.query().metrics.count
        var unit = ExperimentResultsCounter.Unit(
            arm: arm, first: 0, reassigned: false, values: Array(repeating: value, count: metrics), covariates: Array(repeating: 0, count: metrics))
        unit.appVersion = version
        unit.platform = version == nil ? nil : "iOS"
        return unit
    }

    @Test func theLargestValuesAreKeptAndTheRestPooledAsOther() {
        let counter = ExperimentResultsCounter(ExperimentResultsCounterTests.query())
        var units: [ExperimentResultsCounter.Unit] = []
        for (version, count) in [("1.0", 5), ("2.0", 9), ("3.0", 7), ("0.9", 1), ("0.8", 1), ("3.1", 7)] {
            for index in 0..<count { units.append(Self.unit(index % 2 == 0 ? "control" : "treatment", version)) }
        }
        units += [Self.unit("control", nil), Self.unit("treatment", nil), Self.unit("off", "9.9")]
        // A value named like the pooled segment is pooled like any other small value.
        units.append(Self.unit("control", "other"))
        let split = counter.segmentTotals(units, request: .init(dimension: .appVersion, limit: 3), thresholds: [:])
        // Ties broken by value; "off" is not an arm.
        #expect(split.segments.map(\.key) == ["2.0", "3.0", "3.1", "unknown", "other"])
        #expect(split.segments.map(\.kind) == [.value, .value, .value, .unknown, .other])
        #expect(split.otherValues == 4)
        #expect(split.segments[4].units == ["control": 6, "treatment": 2])
        #expect(split.segments[3].units == ["control": 1, "treatment": 1])
        #expect(split.segments[0].metrics["revenue"]?["control"]?.sum == 5)
        let total = split.segments.reduce(0) { $0 + $1.units.values.reduce(0, +) }
        #expect(total == units.count - 1)
    }

    @Test func aPercentileCapIsAppliedAtTheGivenThreshold() {
        var query = ExperimentResultsCounterTests.query()
        query.metrics[1].cap = .percentile(0.9)
        let counter = ExperimentResultsCounter(query)
        let units = [Self.unit("control", "1.0", value: 50), Self.unit("control", "1.0", value: 3), Self.unit("treatment", "2.0", value: 40)]
        let split = counter.segmentTotals(units, request: .init(dimension: .appVersion), thresholds: ["revenue": 20])
        #expect(split.segments.first { $0.key == "1.0" }?.metrics["revenue"]?["control"]?.sum == 23)
        #expect(split.segments.first { $0.key == "2.0" }?.metrics["revenue"]?["treatment"]?.sum == 20)
        // Clicks are not capped.
        #expect(split.segments.first { $0.key == "1.0" }?.metrics["clicks"]?["control"]?.sum == 53)
    }

    @Test func theParametersAreCheckedNamingTheOneThatIsWrong() throws {
        #expect(try ExperimentSegmentRequest.parse(segment: nil, segments: nil) == nil)
        #expect(try ExperimentSegmentRequest.parse(segment: "platform", segments: nil) == .init(dimension: .platform, limit: 10))
        #expect(try ExperimentSegmentRequest.parse(segment: "appVersion", segments: "20") == .init(dimension: .appVersion, limit: 20))
        for (segment, segments, parameter) in [
            ("country", nil, "segment"), ("appVersion", "0", "segments"), ("appVersion", "21", "segments"),
            ("appVersion", "x", "segments"), ("appVersion", "100000", "segments"), (nil, "5", "segments"),
        ] as [(String?, String?, String)] {
            #expect(throws: ExperimentSegmentRequest.ParameterProblem.self) { try ExperimentSegmentRequest.parse(segment: segment, segments: segments) }
            do {
                _ = try ExperimentSegmentRequest.parse(segment: segment, segments: segments)
            } catch {
                #expect(error.parameter == parameter)
            }
        }
    }
}
