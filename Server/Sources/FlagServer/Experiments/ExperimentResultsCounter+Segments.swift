import FlagStatistics

/// Segments of the incremental results: each unit keeps the app version and platform of the batch
/// that carried its first exposure (set by ``ExperimentResultsCounter/assign(_:to:)``, moved only
/// when an earlier first exposure arrives), and ``segmentTotals(_:request:thresholds:)`` sums the
/// stored units per segment the way the totals sum them per arm.
extension ExperimentResultsCounter.Unit {
    /// A stored unit read back with its segment.
    init(
        arm: String, first: Int64, reassigned: Bool, encodedValues: String, metrics: Int, appVersion: String?, platform: String?
    ) {
        self.init(arm: arm, first: first, reassigned: reassigned, encodedValues: encodedValues, metrics: metrics)
        self.appVersion = appVersion
        self.platform = platform
    }

    /// Takes `exposure`'s segment: it is the unit's first.
    mutating func setSegment(of exposure: ExperimentResultsCounter.Exposure) {
        appVersion = exposure.appVersion
        platform = exposure.platform
    }

    /// The unit's value of `dimension`; `nil` when unknown.
    func segment(_ dimension: ExperimentSegmentDimension) -> String? {
        switch dimension {
        case .appVersion: appVersion
        case .platform: platform
        }
    }
}

extension ExperimentResultsCounter {
    /// The key of the segment of units without a value.
    static let unknownSegment = "unknown"
    /// The key of the segment pooling the values beyond the request's limit.
    static let otherSegment = "other"
    /// While summing, "unknown" and "other" are kept apart from values of those names by a control
    /// character, which ingestion never lets into an app version or platform.
    private static let unknownSlot = "\u{1}unknown", otherSlot = "\u{1}other"

    /// The stored `units` summed per segment of `request.dimension`: the `request.limit` values with
    /// the most units (ties by value) each, then "unknown" and "other" when they hold units. A
    /// metric's value and covariate are capped at its fixed cap, or at `thresholds[key]` for a
    /// percentile cap, as ``totals(_:now:units:)`` caps them; so the segments of an arm add up to
    /// its totals. Units of an arm outside the query are left out.
    func segmentTotals(
        _ units: [Unit], request: ExperimentSegmentRequest, thresholds: [String: Double]
    ) -> ExperimentSegmentTotals {
        let arms = Set(query.arms)
        let counted = units.filter { arms.contains($0.arm) }
        var sizes: [String: Int] = [:]
        for unit in counted {
            if let value = unit.segment(request.dimension) { sizes[value, default: 0] += 1 }
        }
        let ranked = sizes.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        let kept = ranked.prefix(max(1, request.limit)).map(\.key)
        let keptSet = Set(kept)
        let caps = query.metrics.map { metric -> Double? in
            switch metric.cap {
            case nil: nil
            case .value(let cap)?: cap
            case .percentile?: thresholds[metric.key]
            }
        }
        var sums: [String: [String: [MetricSums]]] = [:]
        var counts: [String: [String: Int]] = [:]
        for unit in counted {
            let key: String
            if let value = unit.segment(request.dimension) {
                key = keptSet.contains(value) ? value : Self.otherSlot
            } else {
                key = Self.unknownSlot
            }
            counts[key, default: [:]][unit.arm, default: 0] += 1
            var perMetric = sums[key]?[unit.arm] ?? Array(repeating: MetricSums(), count: query.metrics.count)
            for index in query.metrics.indices {
                var y = value(unit.values[index], metric: index)
                var x = value(unit.covariates[index], metric: index)
                if let cap = caps[index] {
                    y = min(y, cap)
                    x = min(x, cap)
                }
                perMetric[index].add(y: y, x: x)
            }
            sums[key, default: [:]][unit.arm] = perMetric
        }
        var order: [(String, ExperimentSegmentTotals.Kind)] = kept.map { ($0, .value) }
        if counts[Self.unknownSlot] != nil { order.append((Self.unknownSlot, .unknown)) }
        if counts[Self.otherSlot] != nil { order.append((Self.otherSlot, .other)) }
        let segments = order.map { key, kind -> ExperimentSegmentTotals.Segment in
            var units: [String: Int] = [:]
            var metrics: [String: [String: ArmStatistics]] = [:]
            for arm in query.arms { units[arm] = counts[key]?[arm] ?? 0 }
            for (index, metric) in query.metrics.enumerated() {
                var perArm: [String: ArmStatistics] = [:]
                for arm in query.arms {
                    perArm[arm] = Self.statistics(sums[key]?[arm]?[index] ?? MetricSums(), units: units[arm] ?? 0, metric: metric)
                }
                metrics[metric.key] = perArm
            }
            let name = kind == .unknown ? Self.unknownSegment : kind == .other ? Self.otherSegment : key
            return ExperimentSegmentTotals.Segment(key: name, kind: kind, units: units, metrics: metrics)
        }
        return ExperimentSegmentTotals(dimension: request.dimension, segments: segments, otherValues: max(0, ranked.count - kept.count))
    }
}
