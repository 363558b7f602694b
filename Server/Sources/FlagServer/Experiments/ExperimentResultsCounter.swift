import FlagStatistics
import Foundation

/// The arithmetic of incremental experiment results, shared by the event stores: which arm a unit
/// is in, what each metric's value is for it, and the per-arm running sums, updated by the delta
/// of each unit a call touches.
///
/// Rules (the contract of ``ExperimentResultsQuery``):
/// - A unit's first exposure is its earliest qualifying exposure (flag and environment of the
///   query, time in `start ..< end`, variant among the arms), ties broken by arrival order; its
///   variant is the unit's arm for good. Any other qualifying exposure to another arm marks the
///   unit reassigned (it stays in its first arm).
/// - A metric's window is `first ..< first + window`; the covariate's `first - window ..< first`.
///   Conversion: 1 when at least one event fell in the window, else 0. Mean: the sum of the
///   events' values (a missing value counts 0). Count: the number of events. Ratio: the
///   numerator and the denominator each summed or counted from its event in the window, the
///   denominator kept in the unit's covariate slot (a ratio metric has no covariate), so that the
///   sums of the covariate, its squares and the products are Σd, Σd² and Σn·d.
/// - The sums are kept per arm and per cohort (the UTC day of the unit's first exposure); the
///   totals add the cohorts, and the daily snapshot of a day adds the cohorts up to it.
/// - A metric with a fixed cap sums min(value, cap) and min(covariate, cap) and counts the units
///   whose value was above the cap. A metric with a percentile cap is summed uncapped in the
///   stored state; its totals are summed afresh from every stored unit, capped at the pooled
///   percentile of their values (``totals(_:now:units:)``), the daily looks at today's threshold.
///
/// Everything here is pure; ``update(_:state:through:now:source:)`` drives a store through an
/// ``ExperimentResultsSource``.
struct ExperimentResultsCounter: Sendable {
    let query: ExperimentResultsQuery
    /// What each event name adds to, by event name.
    let metricsByEvent: [String: [Slot]]
    private let arms: Set<String>

    /// Where an event adds: metric `metric`'s value (or, before the window, its covariate), or a
    /// ratio metric's denominator.
    struct Slot: Sendable, Hashable {
        var metric: Int
        var denominator: Bool
        /// Whether the event adds its value (else 1).
        var sumsValues: Bool
    }

    init(_ query: ExperimentResultsQuery) {
        self.query = query
        var byEvent: [String: [Slot]] = [:]
        for (index, metric) in query.metrics.enumerated() {
            let sumsValues = metric.ratio.map { $0.numerator == .sum } ?? (metric.kind == .mean)
            byEvent[metric.event, default: []].append(Slot(metric: index, denominator: false, sumsValues: sumsValues))
            if let ratio = metric.ratio {
                byEvent[ratio.denominatorEvent, default: []].append(
                    Slot(metric: index, denominator: true, sumsValues: ratio.denominator == .sum))
            }
        }
        metricsByEvent = byEvent
        arms = Set(query.arms)
    }

    /// The event names the metrics read.
    var eventNames: [String] { metricsByEvent.keys.sorted() }

    /// A qualifying exposure, as received.
    struct Exposure: Sendable, Hashable {
        var unit: String
        var variant: String
        var time: Int64
        /// The app version and platform of the batch that carried it (its segment); `nil` when unknown.
        var appVersion: String? = nil
        var platform: String? = nil
    }

    /// A tracked event of a unit.
    struct Event: Sendable, Hashable {
        var unit: String
        var name: String
        var value: Double?
        var time: Int64
    }

    /// What is kept per unit: its arm and first exposure, and per metric the accumulated value in
    /// the window and before it (for conversion, the number of events; for a ratio, the
    /// numerator and, in `covariates`, the denominator, both in the window).
    struct Unit: Sendable, Hashable {
        var arm: String
        var first: Int64
        var reassigned: Bool
        var values: [Double]
        var covariates: [Double]
        /// The segment: app version and platform of the first exposure (sticky: moved only when an
        /// earlier first exposure arrives); `nil` for units stored before segments were kept.
        var appVersion: String? = nil
        var platform: String? = nil

        /// `values` then `covariates`, comma-separated (Swift's shortest round-tripping form).
        var encodedValues: String {
            (values + covariates).map { $0 == 0 ? "0" : "\($0)" }.joined(separator: ",")
        }

        init(arm: String, first: Int64, reassigned: Bool, values: [Double], covariates: [Double]) {
            self.arm = arm
            self.first = first
            self.reassigned = reassigned
            self.values = values
            self.covariates = covariates
        }

        /// Decodes ``encodedValues`` of a query with `metrics` metrics (zeros where missing).
        init(arm: String, first: Int64, reassigned: Bool, encodedValues: String, metrics: Int) {
            var numbers = encodedValues.split(separator: ",").map { Double($0) ?? 0 }
            if numbers.count != 2 * metrics { numbers = Array(repeating: 0, count: 2 * metrics) }
            self.init(
                arm: arm, first: first, reassigned: reassigned, values: Array(numbers[0..<metrics]),
                covariates: Array(numbers[metrics...]))
        }
    }

    /// The running sums of one metric in one cohort of an arm.
    struct MetricSums: Sendable, Hashable, Codable {
        var sum = 0.0
        var sumOfSquares = 0.0
        var covariateSum = 0.0
        var covariateSumOfSquares = 0.0
        var sumOfProducts = 0.0
        /// Units whose value was above the metric's cap (0 without one).
        var capped = 0

        init() {}

        /// Adds (`sign` 1) or takes out (−1) a unit's value `y` and covariate (or ratio denominator) `x`.
        mutating func add(y: Double, x: Double, sign: Double = 1) {
            sum += sign * y
            sumOfSquares += sign * y * y
            covariateSum += sign * x
            covariateSumOfSquares += sign * x * x
            sumOfProducts += sign * x * y
        }

        /// Adds another cohort's sums (not its capped count).
        mutating func add(_ other: MetricSums) {
            sum += other.sum
            sumOfSquares += other.sumOfSquares
            covariateSum += other.covariateSum
            covariateSumOfSquares += other.covariateSumOfSquares
            sumOfProducts += other.sumOfProducts
        }

        // A state stored before caps existed has no `capped`: it decodes as 0.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            sum = try container.decode(Double.self, forKey: .sum)
            sumOfSquares = try container.decode(Double.self, forKey: .sumOfSquares)
            covariateSum = try container.decode(Double.self, forKey: .covariateSum)
            covariateSumOfSquares = try container.decode(Double.self, forKey: .covariateSumOfSquares)
            sumOfProducts = try container.decode(Double.self, forKey: .sumOfProducts)
            capped = try container.decodeIfPresent(Int.self, forKey: .capped) ?? 0
        }
    }

    /// The units of one arm whose first exposure fell on one UTC day, and their sums.
    struct Cohort: Sendable, Hashable, Codable {
        var arm: String
        var day: Int64
        var units = 0
        var reassigned = 0
        var metrics: [MetricSums]
    }

    /// The stored state of an experiment apart from its units.
    struct State: Sendable, Hashable, Codable {
        /// ``key(of:)`` of the query it counts.
        var query: String
        /// The store's insertion order (batch sequence) counted through.
        var watermark: Int64
        var cohorts: [Cohort]
    }

    /// Everything of a query but the experiment id, canonically: a stored state of another key
    /// is recounted.
    static func key(of query: ExperimentResultsQuery) -> String {
        var parts = [query.environment, query.flag, query.arms.joined(separator: "\u{1}"), String(query.start), query.end.map { String($0) } ?? "-"]
        for metric in query.metrics {
            var fields = [metric.key, metric.event, metric.kind.rawValue, String(metric.window), metric.covariate ? "1" : "0"]
            if let ratio = metric.ratio {
                fields += ["ratio", ratio.numerator.rawValue, ratio.denominatorEvent, ratio.denominator.rawValue]
            }
            switch metric.cap {
            case nil: break
            case .value(let value)?: fields.append("cap=\(value)")
            case .percentile(let percentile)?: fields.append("p=\(percentile)")
            }
            parts.append(fields.joined(separator: "\u{1}"))
        }
        return parts.joined(separator: "\u{2}")
    }

    func emptyState() -> State { State(query: Self.key(of: query), watermark: 0, cohorts: []) }

    // MARK: - Units

    /// Whether `exposure` is one the query counts (the store already chose flag and environment).
    func qualifies(_ exposure: Exposure) -> Bool {
        arms.contains(exposure.variant) && exposure.time >= query.start && (query.end.map { exposure.time < $0 } ?? true)
    }

    /// Applies exposures (in arrival order) to `units`; returns the units that are new or whose
    /// first exposure moved earlier: their values are reset to zero and must be recounted from
    /// the events received before (``add(_:to:only:)``).
    func assign(_ exposures: [Exposure], to units: inout [String: Unit]) -> Set<String> {
        var recount = Set<String>()
        for exposure in exposures where qualifies(exposure) {
            guard var unit = units[exposure.unit] else {
                units[exposure.unit] = Unit(
                    arm: exposure.variant, first: exposure.time, reassigned: false, values: zeros, covariates: zeros)
                units[exposure.unit]?.setSegment(of: exposure)
                recount.insert(exposure.unit)
                continue
            }
            if exposure.time < unit.first {
                // The earlier exposure is the first; the one counted so far becomes a later one.
                if exposure.variant != unit.arm { unit.reassigned = true }
                unit.arm = exposure.variant
                unit.first = exposure.time
                unit.setSegment(of: exposure)
                unit.values = zeros
                unit.covariates = zeros
                recount.insert(exposure.unit)
            } else if exposure.variant != unit.arm {
                unit.reassigned = true
            }
            units[exposure.unit] = unit
        }
        return recount
    }

    private var zeros: [Double] { Array(repeating: 0, count: query.metrics.count) }

    /// Adds events to the units they belong to (those of `only`, when given); events of units not
    /// in `units` are left (counted when their unit is, from the raw events).
    func add(_ events: [Event], to units: inout [String: Unit], only: Set<String>? = nil) {
        for event in events {
            guard let slots = metricsByEvent[event.name], only?.contains(event.unit) ?? true,
                var unit = units[event.unit]
            else { continue }
            var changed = false
            for slot in slots {
                let index = slot.metric
                let metric = query.metrics[index]
                let amount = slot.sumsValues ? (event.value ?? 0) : 1
                let inWindow = event.time >= unit.first && event.time - unit.first < metric.window
                if slot.denominator {
                    if inWindow {
                        unit.covariates[index] += amount
                        changed = true
                    }
                } else if inWindow {
                    unit.values[index] += amount
                    changed = true
                } else if metric.covariate, event.time < unit.first, unit.first - event.time <= metric.window {
                    unit.covariates[index] += amount
                    changed = true
                }
            }
            if changed { units[event.unit] = unit }
        }
    }

    /// The value a unit's accumulator stands for in metric `index`.
    func value(_ accumulated: Double, metric index: Int) -> Double {
        query.metrics[index].kind == .conversion ? (accumulated > 0 ? 1 : 0) : accumulated
    }

    /// The fixed cap of metric `index` (a percentile cap is applied at ``totals(_:now:units:)``).
    private func fixedCap(metric index: Int) -> Double? {
        if case .value(let cap)? = query.metrics[index].cap { return cap }
        return nil
    }

    /// Whether the totals need every stored unit: some metric has a percentile cap.
    var needsAllUnits: Bool {
        query.metrics.contains { if case .percentile? = $0.cap { true } else { false } }
    }

    // MARK: - Sums

    /// Takes `old`'s contribution out of the sums and puts `new`'s in (either may be `nil`).
    func apply(old: Unit?, new: Unit?, to cohorts: inout [Cohort]) {
        if let old { add(old, sign: -1, to: &cohorts) }
        if let new { add(new, sign: 1, to: &cohorts) }
    }

    private func add(_ unit: Unit, sign: Double, to cohorts: inout [Cohort]) {
        let day = RollupGranularity.day.bucket(of: unit.first)
        let index: Int
        if let found = cohorts.firstIndex(where: { $0.arm == unit.arm && $0.day == day }) {
            index = found
        } else {
            cohorts.append(Cohort(arm: unit.arm, day: day, metrics: Array(repeating: MetricSums(), count: query.metrics.count)))
            index = cohorts.count - 1
        }
        let step = sign < 0 ? -1 : 1
        cohorts[index].units += step
        if unit.reassigned { cohorts[index].reassigned += step }
        for metric in query.metrics.indices {
            add(unit, metric: metric, cap: fixedCap(metric: metric), sign: sign, to: &cohorts[index].metrics[metric])
        }
    }

    /// Adds (`sign` 1) or takes out (−1) one unit's value and covariate in `metric`, each capped
    /// at `cap` when given.
    private func add(_ unit: Unit, metric: Int, cap: Double?, sign: Double, to sums: inout MetricSums) {
        var y = value(unit.values[metric], metric: metric)
        var x = value(unit.covariates[metric], metric: metric)
        if let cap {
            if y > cap {
                y = cap
                sums.capped += sign < 0 ? -1 : 1
            }
            x = min(x, cap)
        }
        sums.add(y: y, x: x, sign: sign)
    }

    /// `cohorts` with each percentile-capped metric summed afresh from `units` (every stored unit
    /// of the experiment), each value and covariate capped at the pooled percentile of the units'
    /// values; and the thresholds by metric key (absent without units).
    func winsorized(_ cohorts: [Cohort], units: [Unit]) -> (cohorts: [Cohort], thresholds: [String: Double]) {
        var cohorts = cohorts
        var thresholds: [String: Double] = [:]
        let counted = units.filter { arms.contains($0.arm) }
        var cohortIndex: [String: Int] = [:]
        for (index, cohort) in cohorts.enumerated() { cohortIndex[cohort.arm + "\u{1}" + String(cohort.day)] = index }
        for (metric, definition) in query.metrics.enumerated() {
            guard case .percentile(let percentile)? = definition.cap else { continue }
            for index in cohorts.indices { cohorts[index].metrics[metric] = MetricSums() }
            let values = counted.map { value($0.values[metric], metric: metric) }
            guard let threshold = try? Winsorization.threshold(of: values, percentile: percentile) else { continue }
            thresholds[definition.key] = threshold
            for unit in counted {
                let key = unit.arm + "\u{1}" + String(RollupGranularity.day.bucket(of: unit.first))
                guard let index = cohortIndex[key] else { continue }
                add(unit, metric: metric, cap: threshold, sign: 1, to: &cohorts[index].metrics[metric])
            }
        }
        return (cohorts, thresholds)
    }

    /// The totals the cohorts add up to, with a snapshot per UTC day from the start's to `now`'s
    /// (or the end's, if earlier). `units` (every stored unit of the experiment) are needed when
    /// ``needsAllUnits``: a percentile-capped metric is then summed from them.
    func totals(_ cohorts: [Cohort], now: Int64, units: [Unit] = []) -> ExperimentTotals {
        var cohorts = cohorts
        var thresholds: [String: Double] = [:]
        if needsAllUnits { (cohorts, thresholds) = winsorized(cohorts, units: units) }
        let total = snapshot(cohorts)
        var daily: [ExperimentTotals.Day] = []
        let dayLength = RollupGranularity.day.milliseconds
        let lastTime = min(now, query.end.map { $0 - 1 } ?? now)
        if lastTime >= query.start {
            let sorted = cohorts.sorted { $0.day < $1.day }
            var day = RollupGranularity.day.bucket(of: query.start)
            let last = RollupGranularity.day.bucket(of: lastTime)
            // At most ten years of days: a longer experiment is summarized by its last ones.
            day = max(day, last - 3650 * dayLength)
            var next = 0
            var included: [Cohort] = []
            while day <= last {
                while next < sorted.count, sorted[next].day <= day {
                    included.append(sorted[next])
                    next += 1
                }
                let (units, _, metrics) = snapshot(included)
                daily.append(ExperimentTotals.Day(day: day, units: units, metrics: metrics))
                day += dayLength
            }
        }
        var capping: [String: ExperimentTotals.Capping] = [:]
        for (index, metric) in query.metrics.enumerated() {
            let threshold: Double?
            switch metric.cap {
            case nil: continue
            case .value(let cap)?: threshold = cap
            case .percentile?: threshold = thresholds[metric.key]
            }
            var perArm: [String: Int] = [:]
            for arm in query.arms { perArm[arm] = 0 }
            for cohort in cohorts where perArm[cohort.arm] != nil { perArm[cohort.arm, default: 0] += cohort.metrics[index].capped }
            capping[metric.key] = ExperimentTotals.Capping(threshold: threshold, cappedUnits: perArm)
        }
        return ExperimentTotals(
            units: total.units, reassignedUnits: total.reassigned, metrics: total.metrics, daily: daily, countedThrough: now,
            capping: capping)
    }

    private func snapshot(_ cohorts: [Cohort]) -> (units: [String: Int], reassigned: [String: Int], metrics: [String: [String: ArmStatistics]]) {
        var units: [String: Int] = [:]
        var reassigned: [String: Int] = [:]
        var sums: [String: [MetricSums]] = [:]
        for arm in query.arms {
            units[arm] = 0
            reassigned[arm] = 0
            sums[arm] = Array(repeating: MetricSums(), count: query.metrics.count)
        }
        for cohort in cohorts where units[cohort.arm] != nil {
            units[cohort.arm, default: 0] += cohort.units
            reassigned[cohort.arm, default: 0] += cohort.reassigned
            for index in query.metrics.indices { sums[cohort.arm]?[index].add(cohort.metrics[index]) }
        }
        var metrics: [String: [String: ArmStatistics]] = [:]
        for (index, metric) in query.metrics.enumerated() {
            var perArm: [String: ArmStatistics] = [:]
            for arm in query.arms {
                perArm[arm] = Self.statistics(sums[arm]?[index] ?? MetricSums(), units: units[arm] ?? 0, metric: metric)
            }
            metrics[metric.key] = perArm
        }
        return (units, reassigned, metrics)
    }

    /// An arm's statistics of `metric` from its sums over `units` units: the covariate's only with
    /// CUPED; for a ratio metric, the denominator's sums and the products Σn·d.
    static func statistics(_ s: MetricSums, units: Int, metric: ExperimentResultsQuery.Metric) -> ArmStatistics {
        if metric.ratio != nil {
            return ArmStatistics(
                units: Double(units), sum: s.sum, sumOfSquares: s.sumOfSquares, sumOfProducts: s.sumOfProducts,
                denominatorSum: s.covariateSum, denominatorSumOfSquares: s.covariateSumOfSquares)
        }
        return ArmStatistics(
            units: Double(units), sum: s.sum, sumOfSquares: s.sumOfSquares,
            covariateSum: metric.covariate ? s.covariateSum : nil,
            covariateSumOfSquares: metric.covariate ? s.covariateSumOfSquares : nil,
            sumOfProducts: metric.covariate ? s.sumOfProducts : nil)
    }
}
