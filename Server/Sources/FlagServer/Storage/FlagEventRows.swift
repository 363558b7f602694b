import FlagEvaluation
import FlagServerModel

/// What one ``FlagEventStore/ingest(_:)`` call writes, aggregated before anything is written, so
/// that a call costs a few multi-row statements however many batches it carries: the raw events
/// of the batches stored, and the rollups they add to (one row per key, in no particular order:
/// a store whose writers can meet sorts them in the database, where it is cheaper than comparing
/// strings in Swift).
///
/// Both stores build it the same way; only the SQL differs.
struct FlagEventRows {
    /// A batch to record, with the position it had in the call.
    struct Candidate {
        var index: Int
        var batch: EventBatch
    }

    /// A key of the hourly and daily evaluation rollups.
    struct RollupKey: Hashable {
        var bucket: Int64
        var environment: String
        var flag: String
        var variant: String
        var reason: String
        var appVersion: String
        var platform: String
    }

    struct RollupCounts {
        var evaluations = 0
        var exposures = 0
    }

    /// A unit seen for a flag's variant on a day.
    struct UnitKey: Hashable {
        var day: Int64
        var environment: String
        var flag: String
        var variant: String
        var unit: String
    }

    struct TrackedKey: Hashable {
        var day: Int64
        var environment: String
        var name: String
    }

    struct TrackedTotals {
        var count = 0
        var sum = 0.0
    }

    struct FlagKey: Hashable {
        var environment: String
        var flag: String
    }

    /// An exposure with the batch (its row id in the store) it came in and its place there.
    struct ExposureRow {
        var batch: Int64
        var ordinal: Int
        var receivedAt: Int64
        var environment: String
        var exposure: EventBatch.Exposure
    }

    struct TrackedRow {
        var batch: Int64
        var ordinal: Int
        var receivedAt: Int64
        var environment: String
        var event: EventBatch.Tracked
    }

    var exposures: [ExposureRow] = []
    var tracked: [TrackedRow] = []
    var hourly: [(key: RollupKey, counts: RollupCounts)] = []
    var daily: [(key: RollupKey, counts: RollupCounts)] = []
    var units: [UnitKey] = []
    var trackedDaily: [(key: TrackedKey, totals: TrackedTotals)] = []
    var lastEvaluated: [(key: FlagKey, time: Int64)] = []

    var isEmpty: Bool { exposures.isEmpty && tracked.isEmpty && hourly.isEmpty && units.isEmpty && trackedDaily.isEmpty }

    /// The batches of a call to try to record: the first of each environment and id (later ones in
    /// the same call are repeats), sorted by environment and id so that replicas recording the
    /// same batches take their keys' locks in the same order.
    static func candidates(_ batches: [EventBatch]) -> [Candidate] {
        var seen = Set<BatchKey>()
        var candidates: [Candidate] = []
        for (index, batch) in batches.enumerated() where seen.insert(BatchKey(environment: batch.environment, id: batch.id)).inserted {
            candidates.append(Candidate(index: index, batch: batch))
        }
        return candidates.sorted { ($0.batch.environment, $0.batch.id) < ($1.batch.environment, $1.batch.id) }
    }

    struct BatchKey: Hashable {
        var environment: String
        var id: String
    }

    /// The rows of `stored`: each batch newly recorded, with its row id in the store. Without
    /// `daily`, ``daily`` stays empty (a store that folds its days from the hours).
    init(stored: [(id: Int64, batch: EventBatch)], daily withDaily: Bool = true) {
        var hourly: [RollupKey: RollupCounts] = [:]
        var daily: [RollupKey: RollupCounts] = [:]
        var units = Set<UnitKey>()
        var trackedDaily: [TrackedKey: TrackedTotals] = [:]
        var lastEvaluated: [FlagKey: Int64] = [:]
        func add(_ time: Int64, _ batch: EventBatch, flag: String, variant: String, reason: String, evaluations: Int, exposures: Int) {
            for granularity in RollupGranularity.allCases where withDaily || granularity == .hour {
                let key = RollupKey(
                    bucket: granularity.bucket(of: time), environment: batch.environment, flag: flag, variant: variant,
                    reason: reason, appVersion: batch.source.appVersion, platform: batch.source.platform)
                switch granularity {
                case .hour: hourly[key, default: RollupCounts()].add(evaluations: evaluations, exposures: exposures)
                case .day: daily[key, default: RollupCounts()].add(evaluations: evaluations, exposures: exposures)
                }
            }
        }
        func evaluated(_ batch: EventBatch, _ flag: String, at time: Int64) {
            let key = FlagKey(environment: batch.environment, flag: flag)
            lastEvaluated[key] = max(lastEvaluated[key] ?? .min, time)
        }
        for (id, batch) in stored {
            for summary in batch.summaries {
                add(summary.start, batch, flag: summary.flag, variant: summary.variant, reason: summary.reason,
                    evaluations: summary.count, exposures: 0)
                evaluated(batch, summary.flag, at: summary.end)
            }
            for (ordinal, exposure) in batch.exposures.enumerated() {
                exposures.append(ExposureRow(
                    batch: id, ordinal: ordinal, receivedAt: batch.receivedAt, environment: batch.environment, exposure: exposure))
                add(exposure.time, batch, flag: exposure.flag, variant: exposure.variant, reason: exposure.reason,
                    evaluations: 0, exposures: 1)
                evaluated(batch, exposure.flag, at: exposure.time)
                if let unit = exposure.unit {
                    units.insert(UnitKey(
                        day: RollupGranularity.day.bucket(of: exposure.time), environment: batch.environment,
                        flag: exposure.flag, variant: exposure.variant, unit: unit))
                }
            }
            for (ordinal, event) in batch.tracked.enumerated() {
                tracked.append(TrackedRow(
                    batch: id, ordinal: ordinal, receivedAt: batch.receivedAt, environment: batch.environment, event: event))
                let key = TrackedKey(day: RollupGranularity.day.bucket(of: event.time), environment: batch.environment, name: event.name)
                trackedDaily[key, default: TrackedTotals()].add(event.value)
            }
        }
        self.hourly = hourly.map { ($0.key, $0.value) }
        self.daily = daily.map { ($0.key, $0.value) }
        self.units = Array(units)
        self.trackedDaily = trackedDaily.map { ($0.key, $0.value) }
        self.lastEvaluated = lastEvaluated.map { ($0.key, $0.value) }
    }

    /// The unit counts `inserted` (the units newly recorded) add, one per day, flag and variant.
    static func unitCounts(_ inserted: [UnitKey]) -> [(day: Int64, environment: String, flag: String, variant: String, units: Int)] {
        var counts: [UnitKey: Int] = [:]
        for unit in inserted {
            counts[UnitKey(day: unit.day, environment: unit.environment, flag: unit.flag, variant: unit.variant, unit: ""), default: 0] += 1
        }
        return counts.map { ($0.key.day, $0.key.environment, $0.key.flag, $0.key.variant, $0.value) }
    }

    /// A tracked event's attributes as stored: a JSON object, or `nil` when there are none.
    static func text(_ members: [String: JSONValue]) -> String? {
        members.isEmpty ? nil : JSONValue.object(members).serialized()
    }

    /// A tracked event's variants as stored: a JSON object, or `nil` when there are none.
    static func text(_ variants: [String: String]) -> String? {
        variants.isEmpty ? nil : JSONValue.object(variants.mapValues(JSONValue.string)).serialized()
    }

    /// Attributes read back; `what` names the row for the error.
    static func attributes(_ text: String?, _ what: @autoclosure () -> String) throws(StoreError) -> [String: JSONValue] {
        guard let text else { return [:] }
        guard case .object(let members)? = try? JSONValue(parsing: text) else {
            throw .database("\(what()) has unreadable attributes")
        }
        return members
    }

    /// Variants read back; `what` names the row for the error.
    static func variants(_ text: String?, _ what: @autoclosure () -> String) throws(StoreError) -> [String: String] {
        guard let text else { return [:] }
        guard case .object(let members)? = try? JSONValue(parsing: text) else {
            throw .database("\(what()) has unreadable variants")
        }
        var variants: [String: String] = [:]
        for (flag, value) in members {
            guard case .string(let variant) = value else { throw .database("\(what()) has unreadable variants") }
            variants[flag] = variant
        }
        return variants
    }

    /// A value read back; `what` names the row for the error.
    static func value(_ text: String?, _ what: @autoclosure () -> String) throws(StoreError) -> JSONValue? {
        guard let text else { return nil }
        do {
            return try JSONValue(parsing: text)
        } catch {
            throw .database("\(what()) has an unreadable value")
        }
    }
}

extension FlagEventRows.RollupCounts {
    /// Adds, saturating: a count beyond `Int.max` stays there rather than trapping.
    mutating func add(evaluations: Int, exposures: Int) {
        self.evaluations = Self.saturating(self.evaluations, evaluations)
        self.exposures = Self.saturating(self.exposures, exposures)
    }

    static func saturating(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b < 0 ? .min : .max) : sum
    }
}

extension FlagEventRows.TrackedTotals {
    mutating func add(_ value: Double?) {
        count += 1
        sum += value ?? 0
    }
}
