/// Capping a metric's per-unit values from above, before any arm statistic is taken: a fixed cap,
/// or winsorization at a percentile of the values of every arm together.
///
/// A heavy-tailed metric (revenue, time spent) has a few units whose values dwarf the rest; one of
/// them landing in an arm moves its mean more than the effect looked for, and its variance widens
/// every interval. Capping each unit's value at c replaces Y by min(Y, c): the arms' means are
/// then those of the capped metric (a slightly different, smaller quantity), with a much smaller
/// variance. The difference between arms stays unbiased for the capped metric's difference when
/// the threshold is the same for every arm.
///
/// The percentile threshold is the sample p-quantile of all units' values pooled over the arms,
/// by Hyndman & Fan's definition 7 (linear interpolation at rank 1 + (n − 1)p; numpy's default
/// `np.percentile`, as ``QuantileEstimate`` uses); the capped values are
/// `np.clip(values, None, threshold)`. Only the upper tail is capped.
public enum Winsorization {
    /// The pooled p-quantile of `values` (definition 7), the threshold of a percentile cap.
    ///
    /// - Parameters:
    ///   - values: One value per unit, each finite; at least one.
    ///   - percentile: p, between 0.5 and 1 (exclusive): capping at or below the median is not
    ///     capping outliers.
    ///   - path: Where the values come from, for errors.
    /// - Throws: ``StatisticsError`` for p outside (0.5, 1), no values, or a value that is NaN or
    ///   infinite.
    public static func threshold(of values: [Double], percentile: Double, path: String = "values") throws(StatisticsError) -> Double {
        try checkPercentile(percentile)
        guard !values.isEmpty else { throw StatisticsError(path, "at least one value is needed for a percentile") }
        if let index = values.firstIndex(where: { !$0.isFinite }) {
            throw StatisticsError("\(path)[\(index)]", "must be a finite number, not \(values[index])")
        }
        return QuantileEstimate.sampleQuantile(values.sorted(), percentile)
    }

    /// `values` with every value above `threshold` replaced by it, and how many were replaced.
    public static func capped(_ values: [Double], at threshold: Double) -> (values: [Double], capped: Int) {
        var count = 0
        let result = values.map { value -> Double in
            guard value > threshold else { return value }
            count += 1
            return threshold
        }
        return (result, count)
    }

    /// `values` winsorized from above at their own pooled `percentile`: the threshold, the capped
    /// values and how many were capped.
    public static func winsorized(
        _ values: [Double], percentile: Double, path: String = "values"
    ) throws(StatisticsError) -> (threshold: Double, values: [Double], capped: Int) {
        let threshold = try threshold(of: values, percentile: percentile, path: path)
        let (capped, count) = capped(values, at: threshold)
        return (threshold, capped, count)
    }

    /// Refuses a percentile outside (0.5, 1).
    public static func checkPercentile(_ percentile: Double, path: String = "percentile") throws(StatisticsError) {
        guard percentile > 0.5, percentile < 1 else {
            throw StatisticsError(path, "must be between 0.5 and 1 (exclusive), not \(percentile)")
        }
    }
}
