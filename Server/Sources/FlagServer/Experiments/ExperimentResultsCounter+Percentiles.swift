/// Percentile metrics: their values are read per arm from the stored units (bounded by
/// ``PercentileSample/maximumValues``), not summed.
extension ExperimentResultsCounter {
    /// Whether some metric is a percentile metric (the store then reads a sample of each arm).
    var needsPercentileSamples: Bool { query.metrics.contains { $0.percentile != nil } }

    /// A unit's sample key: a fixed hash of its key (FNV-1a over the UTF-8 bytes, its bits then
    /// mixed by SplitMix64's finalizer so that keys differing in their last character spread over
    /// the whole range), 0 ..< 2⁶³ so that both stores keep it as a signed 64-bit integer. The
    /// same on every platform and in every process (not Swift's seeded `Hasher`).
    static func sampleKey(of unit: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in unit.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
        hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
        hash ^= hash >> 31
        return Int64(bitPattern: hash >> 1)
    }

    /// Metric key → arm → its values, for the percentile metrics, from `samples` (arm → the units
    /// a store read, those with the lowest sample keys) and the arms' unit counts.
    func percentiles(samples: [String: [Unit]], units: [String: Int]) -> [String: [String: PercentileSample]] {
        var percentiles: [String: [String: PercentileSample]] = [:]
        for (index, metric) in query.metrics.enumerated() where metric.percentile != nil {
            var perArm: [String: PercentileSample] = [:]
            for arm in query.arms {
                let read = (samples[arm] ?? []).prefix(PercentileSample.maximumValues)
                perArm[arm] = PercentileSample(units: units[arm] ?? 0, values: read.map { value($0.values[index], metric: index) })
            }
            percentiles[metric.key] = perArm
        }
        return percentiles
    }
}

extension ExperimentResultsSource {
    /// Arm → the units a percentile metric reads (at most ``PercentileSample/maximumValues`` each),
    /// or nothing when `counter`'s query has no percentile metric.
    func samples(for counter: ExperimentResultsCounter) async throws -> [String: [ExperimentResultsCounter.Unit]] {
        counter.needsPercentileSamples ? try await samples(limit: PercentileSample.maximumValues) : [:]
    }
}
