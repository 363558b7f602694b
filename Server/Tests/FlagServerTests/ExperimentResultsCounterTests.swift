import FlagStatistics
@testable import FlagServer
import FlagServerModel
import Testing

/// The incremental counter against a naive recomputation from every raw row, on randomized
/// histories: exposures to several arms (reassignments, late and out-of-order arrivals), events
/// before, inside and after the windows (covariates, window edges), updates interleaved with ingests.
struct ExperimentResultsCounterTests {
    static let day: Int64 = 86_400_000
    static let start: Int64 = 20_000 * day + 3_600_000

    static func query(end: Int64? = nil) -> ExperimentResultsQuery {
        ExperimentResultsQuery(
            experiment: "e", environment: "production", flag: "checkout", arms: ["control", "treatment"], start: start, end: end,
            metrics: [
                .init(key: "converted", event: "purchase", kind: .conversion, window: 2 * day, covariate: true),
                .init(key: "revenue", event: "purchase", kind: .mean, window: 2 * day, covariate: true),
                .init(key: "clicks", event: "click", kind: .count, window: day / 2, covariate: false),
                .init(
                    key: "revenue-per-click", event: "purchase", kind: .ratio, window: day, covariate: false,
                    ratio: MetricRatio(numerator: .sum, denominatorEvent: "click", denominator: .count)),
            ])
    }

    @Test func randomizedHistoriesMatchANaiveRecount() async throws {
        for seed in UInt64(1)...40 {
            var random = SplitMix(seed: seed)
            let query = Self.query(end: seed % 3 == 0 ? Self.start + 3 * Self.day : nil)
            let counter = ExperimentResultsCounter(query)
            let source = MemorySource()
            var state: ExperimentResultsCounter.State?
            let units = (0..<Int.random(in: 3...30, using: &random)).map { "u\($0)" }
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                // A few batches arrive, then an update.
                for _ in 0..<Int.random(in: 0...4, using: &random) {
                    source.ingest(Self.randomBatch(units: units, using: &random))
                }
                let update = try await counter.update(state: state, through: source.sequence, source: source)
                source.store(update)
                state = update.state
                let now = Self.start + 5 * Self.day
                let got = counter.totals(update.state.cohorts, now: now)
                let expected = Naive(query: query).totals(exposures: source.exposures, events: source.events, now: now)
                Self.expectClose(got, expected, "seed \(seed)")
            }
        }
    }

    @Test func aChangedQueryRecountsEverything() async throws {
        let source = MemorySource()
        var random = SplitMix(seed: 99)
        for _ in 0..<6 { source.ingest(Self.randomBatch(units: ["a", "b", "c", "d"], using: &random)) }
        let first = try await ExperimentResultsCounter(Self.query()).update(state: nil, through: source.sequence, source: source)
        source.store(first)
        var changed = Self.query()
        changed.arms = ["treatment", "control", "other"]
        let counter = ExperimentResultsCounter(changed)
        let update = try await counter.update(state: first.state, through: source.sequence, source: source)
        #expect(update.restarted)
        source.units = [:]
        source.store(update)
        let now = Self.start + Self.day
        Self.expectClose(
            counter.totals(update.state.cohorts, now: now),
            Naive(query: changed).totals(exposures: source.exposures, events: source.events, now: now), "changed")
    }

    @Test func eventsBeforeTheExposureAndLateEventsCount() async throws {
        let query = Self.query()
        let counter = ExperimentResultsCounter(query)
        let source = MemorySource()
        let t = Self.start + 1000
        // A purchase a day before the exposure (covariate), received first.
        source.ingest(([], [.init(unit: "u", name: "purchase", value: 5, time: t - Self.day)]))
        var update = try await counter.update(state: nil, through: source.sequence, source: source)
        source.store(update)
        #expect(counter.totals(update.state.cohorts, now: t).units["control"] == 0)
        source.ingest(([.init(unit: "u", variant: "control", time: t)], []))
        update = try await counter.update(state: update.state, through: source.sequence, source: source)
        source.store(update)
        // A purchase in the window received after it closed; one just past the window.
        source.ingest(([], [
            .init(unit: "u", name: "purchase", value: 7, time: t + 2 * Self.day - 1),
            .init(unit: "u", name: "purchase", value: 11, time: t + 2 * Self.day),
        ]))
        update = try await counter.update(state: update.state, through: source.sequence, source: source)
        let totals = counter.totals(update.state.cohorts, now: t + 10 * Self.day)
        #expect(totals.units == ["control": 1, "treatment": 0])
        #expect(totals.metrics["revenue"]?["control"] == ArmStatistics(
            units: 1, sum: 7, sumOfSquares: 49, covariateSum: 5, covariateSumOfSquares: 25, sumOfProducts: 35))
        #expect(totals.metrics["converted"]?["control"]?.sum == 1)
        #expect(totals.daily.count == 11)
        #expect(totals.daily.first?.units["control"] == 1)
    }

    // MARK: - Inputs

    static func randomBatch(
        units: [String], using random: inout SplitMix
    ) -> ([ExperimentResultsCounter.Exposure], [ExperimentResultsCounter.Event]) {
        let variants = ["control", "treatment", "treatment", "control", "off"]
        var exposures: [ExperimentResultsCounter.Exposure] = []
        var events: [ExperimentResultsCounter.Event] = []
        // Times from a day before the start to four days after, on hour and window edges too.
        func time(_ random: inout SplitMix) -> Int64 {
            if Int.random(in: 0..<4, using: &random) == 0 {
                return start + Int64.random(in: -2...8, using: &random) * (day / 2) + Int64.random(in: -1...1, using: &random)
            }
            return start + Int64.random(in: -day...(4 * day), using: &random)
        }
        for _ in 0..<Int.random(in: 0...6, using: &random) {
            exposures.append(.init(
                unit: units.randomElement(using: &random)!, variant: variants.randomElement(using: &random)!, time: time(&random)))
        }
        for _ in 0..<Int.random(in: 0...10, using: &random) {
            let name = ["purchase", "click", "other"].randomElement(using: &random)!
            let value: Double? = Int.random(in: 0..<5, using: &random) == 0 ? nil : Double(Int.random(in: 1...100, using: &random)) / 4
            events.append(.init(unit: units.randomElement(using: &random)!, name: name, value: value, time: time(&random)))
        }
        return (exposures, events)
    }

    static func expectClose(_ got: ExperimentTotals, _ expected: ExperimentTotals, _ label: String) {
        #expect(got.units == expected.units, "\(label)")
        #expect(got.reassignedUnits == expected.reassignedUnits, "\(label)")
        #expect(got.daily.map(\.day) == expected.daily.map(\.day), "\(label)")
        func close(_ a: [String: [String: ArmStatistics]], _ b: [String: [String: ArmStatistics]]) -> Bool {
            guard Set(a.keys) == Set(b.keys) else { return false }
            for (metric, arms) in a {
                for (arm, x) in arms {
                    guard let y = b[metric]?[arm] else { return false }
                    let pairs: [(Double?, Double?)] = [
                        (x.units, y.units), (x.sum, y.sum), (x.sumOfSquares, y.sumOfSquares), (x.covariateSum, y.covariateSum),
                        (x.covariateSumOfSquares, y.covariateSumOfSquares), (x.sumOfProducts, y.sumOfProducts),
                        (x.denominatorSum, y.denominatorSum), (x.denominatorSumOfSquares, y.denominatorSumOfSquares),
                    ]
                    for (p, q) in pairs {
                        guard (p == nil) == (q == nil) else { return false }
                        if let p, let q, abs(p - q) > 1e-6 * max(1, abs(q)) { return false }
                    }
                }
            }
            return true
        }
        #expect(close(got.metrics, expected.metrics), "\(label): \(got.metrics) != \(expected.metrics)")
        #expect(Set(got.capping.keys) == Set(expected.capping.keys), "\(label)")
        for (key, capping) in expected.capping {
            #expect(got.capping[key]?.cappedUnits == capping.cappedUnits, "\(label) capped units of \(key)")
            let threshold = got.capping[key]?.threshold
            #expect((threshold == nil) == (capping.threshold == nil), "\(label) threshold of \(key)")
            if let threshold, let expected = capping.threshold {
                #expect(abs(threshold - expected) <= 1e-9 * max(1, abs(expected)), "\(label) threshold of \(key)")
            }
        }
        for (a, b) in zip(got.daily, expected.daily) {
            #expect(a.units == b.units, "\(label) day \(a.day)")
            #expect(close(a.metrics, b.metrics), "\(label) day \(a.day)")
        }
    }
}

/// The raw rows in arrival order (one sequence number per batch) and the stored units, in memory.
final class MemorySource: ExperimentResultsSource, @unchecked Sendable {
    var exposures: [(sequence: Int64, exposure: ExperimentResultsCounter.Exposure)] = []
    var events: [(sequence: Int64, event: ExperimentResultsCounter.Event)] = []
    var units: [String: ExperimentResultsCounter.Unit] = [:]
    var sequence: Int64 = 0

    func ingest(_ batch: ([ExperimentResultsCounter.Exposure], [ExperimentResultsCounter.Event])) {
        sequence += 1
        exposures += batch.0.map { (sequence, $0) }
        events += batch.1.map { (sequence, $0) }
    }

    func store(_ update: ExperimentResultsCounter.Update) {
        if update.restarted { units = [:] }
        units.merge(update.changed) { $1 }
    }

    func exposures(after: Int64, through: Int64) async throws -> [ExperimentResultsCounter.Exposure] {
        exposures.filter { $0.sequence > after && $0.sequence <= through }.map(\.exposure)
    }

    func events(after: Int64, through: Int64) async throws -> [ExperimentResultsCounter.Event] {
        events.filter { $0.sequence > after && $0.sequence <= through }.map(\.event)
    }

    func events(of units: [String], through: Int64) async throws -> [ExperimentResultsCounter.Event] {
        let wanted = Set(units)
        return events.filter { $0.sequence <= through && wanted.contains($0.event.unit) }.map(\.event)
    }

    func units(_ keys: [String]) async throws -> [String: ExperimentResultsCounter.Unit] {
        units.filter { keys.contains($0.key) }
    }

    func allUnits() async throws -> [ExperimentResultsCounter.Unit] { Array(units.values) }

    func samples(limit: Int) async throws -> [String: [ExperimentResultsCounter.Unit]] {
        let ordered = units.sorted { (ExperimentResultsCounter.sampleKey(of: $0.key), $0.key) < (ExperimentResultsCounter.sampleKey(of: $1.key), $1.key) }
        return Dictionary(grouping: ordered.map(\.value), by: \.arm).mapValues { Array($0.prefix(limit)) }
    }
}

/// The results recomputed from every row, the plain way.
struct Naive {
    let query: ExperimentResultsQuery

    func totals(
        exposures: [(sequence: Int64, exposure: ExperimentResultsCounter.Exposure)],
        events: [(sequence: Int64, event: ExperimentResultsCounter.Event)], now: Int64
    ) -> ExperimentTotals {
        let arms = Set(query.arms)
        var first: [String: (time: Int64, arm: String)] = [:]
        let qualifying = exposures.map(\.exposure).filter {
            arms.contains($0.variant) && $0.time >= query.start && $0.time < (query.end ?? .max)
        }
        for exposure in qualifying where first[exposure.unit].map({ exposure.time < $0.time }) ?? true {
            first[exposure.unit] = (exposure.time, exposure.variant)
        }
        var reassigned = Set<String>()
        for exposure in qualifying where first[exposure.unit]?.arm != exposure.variant { reassigned.insert(exposure.unit) }
        // Per unit and metric: (y, x); for a ratio metric (numerator, denominator), both in the window.
        func values(_ unit: String, _ metric: ExperimentResultsQuery.Metric, _ at: Int64) -> (Double, Double) {
            if let ratio = metric.ratio {
                func side(_ name: String, _ aggregate: MetricRatio.Aggregate) -> Double {
                    events.map(\.event).filter { $0.unit == unit && $0.name == name && $0.time >= at && $0.time < at + metric.window }
                        .reduce(0) { $0 + (aggregate == .sum ? ($1.value ?? 0) : 1) }
                }
                return (side(metric.event, ratio.numerator), side(ratio.denominatorEvent, ratio.denominator))
            }
            var y = 0.0, x = 0.0, yCount = 0, xCount = 0
            for event in events.map(\.event) where event.unit == unit && event.name == metric.event {
                let amount = metric.kind == .mean ? (event.value ?? 0) : 1
                if event.time >= at && event.time < at + metric.window {
                    y += amount
                    yCount += 1
                }
                if event.time < at && event.time >= at - metric.window {
                    x += amount
                    xCount += 1
                }
            }
            if metric.kind == .conversion { return (yCount > 0 ? 1 : 0, xCount > 0 ? 1 : 0) }
            return (y, metric.covariate ? x : 0)
        }
        // Each capped metric's threshold: the fixed one, or the percentile of every unit's value
        // (linear between the order statistics at 0-based position (n − 1)p).
        var thresholds: [String: Double] = [:]
        for metric in query.metrics {
            switch metric.cap {
            case nil: break
            case .value(let cap)?: thresholds[metric.key] = cap
            case .percentile(let p)?:
                let sorted = first.map { values($0.key, metric, $0.value.time).0 }.sorted()
                guard !sorted.isEmpty else { break }
                let position = Double(sorted.count - 1) * p
                let low = Int(position), high = min(low + 1, sorted.count - 1)
                thresholds[metric.key] = sorted[low] + (position - Double(low)) * (sorted[high] - sorted[low])
            }
        }
        var capping: [String: ExperimentTotals.Capping] = [:]
        for metric in query.metrics where metric.cap != nil {
            var counts = Dictionary(uniqueKeysWithValues: query.arms.map { ($0, 0) })
            if let threshold = thresholds[metric.key] {
                for (unit, assigned) in first where values(unit, metric, assigned.time).0 > threshold { counts[assigned.arm, default: 0] += 1 }
            }
            capping[metric.key] = ExperimentTotals.Capping(threshold: thresholds[metric.key], cappedUnits: counts)
        }
        func snapshot(through day: Int64) -> ([String: Int], [String: Int], [String: [String: ArmStatistics]]) {
            var units = Dictionary(uniqueKeysWithValues: query.arms.map { ($0, 0) })
            var moved = units
            var metrics: [String: [String: ArmStatistics]] = [:]
            for metric in query.metrics {
                var perArm: [String: ArmStatistics] = [:]
                for arm in query.arms {
                    var s = ArmStatistics(units: 0, sum: 0, sumOfSquares: 0)
                    var cx = 0.0, cxx = 0.0, cxy = 0.0
                    for (unit, assigned) in first where assigned.arm == arm && RollupGranularity.day.bucket(of: assigned.time) <= day {
                        var (y, x) = values(unit, metric, assigned.time)
                        if let threshold = thresholds[metric.key] {
                            y = min(y, threshold)
                            x = min(x, threshold)
                        }
                        s.units += 1
                        s.sum += y
                        s.sumOfSquares! += y * y
                        cx += x
                        cxx += x * x
                        cxy += x * y
                    }
                    if metric.ratio != nil {
                        s.denominatorSum = cx
                        s.denominatorSumOfSquares = cxx
                        s.sumOfProducts = cxy
                    } else if metric.covariate {
                        s.covariateSum = cx
                        s.covariateSumOfSquares = cxx
                        s.sumOfProducts = cxy
                    }
                    perArm[arm] = s
                }
                metrics[metric.key] = perArm
            }
            for (unit, assigned) in first where RollupGranularity.day.bucket(of: assigned.time) <= day {
                units[assigned.arm, default: 0] += 1
                if reassigned.contains(unit) { moved[assigned.arm, default: 0] += 1 }
            }
            return (units, moved, metrics)
        }
        let all = snapshot(through: .max)
        var daily: [ExperimentTotals.Day] = []
        let last = min(now, (query.end ?? .max) - 1)
        var day = RollupGranularity.day.bucket(of: query.start)
        while last >= query.start, day <= RollupGranularity.day.bucket(of: last) {
            let s = snapshot(through: day)
            daily.append(ExperimentTotals.Day(day: day, units: s.0, metrics: s.2))
            day += RollupGranularity.day.milliseconds
        }
        return ExperimentTotals(
            units: all.0, reassignedUnits: all.1, metrics: all.2, daily: daily, countedThrough: now, capping: capping)
    }
}

/// A seeded generator, so that a failing history can be replayed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
