import Testing

@testable import FlagStatistics

/// Capping per-unit values: the percentile threshold by numpy's default definition, the values
/// clipped at it, and bad input. `scripts/statistics/compare_methods.py` compares it with
/// `np.percentile` and `np.clip` on seeded random values.
struct WinsorizationTests {
    @Test func thePercentileThresholdInterpolatesLikeNumpy() throws {
        // np.percentile(np.arange(1, 41), 99) == 39.61; 95 → 38.05.
        let values = (1...40).map(Double.init).reversed().map { $0 }
        #expect(abs(try Winsorization.threshold(of: values, percentile: 0.99) - 39.61) < 1e-12)
        #expect(abs(try Winsorization.threshold(of: values, percentile: 0.95) - 38.05) < 1e-12)
    }

    @Test func valuesAboveTheThresholdAreReplacedByIt() throws {
        let values: [Double] = [3, 0, 250, 7, 12, 1000, 5, 5, 9, 4]
        let (threshold, capped, count) = try Winsorization.winsorized(values, percentile: 0.9)
        // Rank 1 + 9 · 0.9 = 9.1 of the sorted values: 250 + 0.1 · (1000 − 250).
        #expect(abs(threshold - 325) < 1e-12)
        #expect(count == 1)
        #expect(capped == [3, 0, 250, 7, 12, threshold, 5, 5, 9, 4])
        let fixed = Winsorization.capped(values, at: 10)
        #expect(fixed.capped == 3)
        #expect(fixed.values == [3, 0, 10, 7, 10, 10, 5, 5, 9, 4])
    }

    @Test func aValueEqualToTheThresholdIsNotCounted() {
        let (values, count) = Winsorization.capped([1, 2, 2, 3], at: 2)
        #expect(values == [1, 2, 2, 2])
        #expect(count == 1)
    }

    @Test func badInputIsRefusedNamingTheField() {
        for percentile in [0.5, 0.2, 1, 1.5, .nan] {
            #expect(throws: StatisticsError.self, "percentile \(percentile)") {
                try Winsorization.threshold(of: [1, 2, 3], percentile: percentile)
            }
        }
        #expect(throws: StatisticsError("values", "at least one value is needed for a percentile")) {
            try Winsorization.threshold(of: [], percentile: 0.99)
        }
        #expect(throws: StatisticsError("values[1]", "must be a finite number, not inf")) {
            try Winsorization.threshold(of: [1, .infinity], percentile: 0.99)
        }
    }
}
