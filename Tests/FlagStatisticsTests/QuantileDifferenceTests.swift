import Foundation
import Testing

@testable import FlagStatistics

/// The percentile metric against Bonett & Price's published examples, its own definition computed
/// independently, a seeded coverage check, and bad input. `scripts/statistics/compare_methods.py`
/// compares it with a scipy implementation on seeded random arms.
struct QuantileDifferenceTests {
    /// The two examples of `ci.median2` in D. G. Bonett's statpsych R package (the method of
    /// Bonett & Price 2002): difference of medians, its standard error and 95 % limits.
    @Test func medianDifferenceMatchesBonettAndPricesExamples() throws {
        let first = try QuantileDifference(
            treatment: [32, 39, 26, 35, 43, 27, 40, 37, 34, 29], control: [36, 44, 47, 42, 49, 39, 46, 31, 33, 48],
            probability: 0.5)
        #expect(first.estimate == -8.5)
        #expect(abs(first.standardError - 4.316291) < 5e-7)
        #expect(abs(first.lower - -16.95977) < 5e-6)
        #expect(abs(first.upper - -0.04022524) < 5e-9)
        let second = try QuantileDifference(
            treatment: [32.1, 39.8, 26.3, 35.0, 43.1, 27.0, 40.9, 37.4, 34.0, 29.2],
            control: [36.8, 44.0, 47.1, 42.7, 49.0, 39.6, 46.2, 31.6, 33.1, 48.4], probability: 0.5)
        #expect(abs(second.estimate - -8.85) < 1e-12)
        #expect(abs(second.standardError - 4.494993) < 5e-7)
        #expect(abs(second.lower - -17.66002) < 5e-6)
        #expect(abs(second.upper - -0.0399751) < 5e-8)
    }

    @Test func theQuantileInterpolatesLikeNumpy() throws {
        // Definition 7 (numpy's default): rank 1 + 39·p of 1…40.
        let sorted = (1...40).map(Double.init)
        for (p, expected) in [(0.5, 20.5), (0.9, 36.1), (0.1, 4.9), (0.25, 10.75), (0.999, 39.961)] {
            #expect(abs(QuantileEstimate.sampleQuantile(sorted, p) - expected) < 1e-12, "p = \(p)")
        }
        let estimate = try QuantileEstimate(values: sorted.reversed(), probability: 0.75)
        #expect(abs(estimate.quantile - 30.25) < 1e-12)
    }

    @Test func ranksAndCoverageFollowTheirDefinition() throws {
        var generator = SplitMix64(seed: 2002)
        for n in [5, 6, 10, 16, 17, 36, 99, 100, 1000, 4321] {
            let values = (0..<n).map { _ in Double(generator.next() % 1_000_000) / 7 }
            // The median: Price & Bonett's c = (n + 1)/2 − √n rounded (a half towards the wider
            // interval), and n − c + 1.
            let median = try QuantileEstimate(values: values, probability: 0.5)
            let c = Int(((Double(n) + 1) / 2 - Double(n).squareRoot() - 0.5 - 1e-12).rounded(.up))
            #expect(median.lowerRank == c && median.upperRank == n - c + 1, "n = \(n)")
            for p in [0.5, 0.75, 0.9] {
                guard let estimate = try? QuantileEstimate(values: values, probability: p) else { continue }
                // The coverage is P(l ≤ B ≤ u − 1), here summed from log-factorials.
                var coverage = 0.0
                for k in estimate.lowerRank..<estimate.upperRank {
                    coverage += exp(
                        lgamma(Double(n + 1)) - lgamma(Double(k + 1)) - lgamma(Double(n - k + 1)) + Double(k) * log(p)
                            + Double(n - k) * log1p(-p))
                }
                #expect(abs(estimate.coverage - coverage) < 1e-9, "n = \(n), p = \(p)")
                let sorted = values.sorted()
                #expect(estimate.lowerValue == sorted[estimate.lowerRank - 1])
                #expect(estimate.upperValue == sorted[estimate.upperRank - 1])
                let z = -Normal.quantile((1 - coverage) / 2)
                #expect(abs(estimate.standardError - (estimate.upperValue - estimate.lowerValue) / (2 * z)) < 1e-9 * estimate.standardError)
            }
        }
    }

    @Test func theIntervalAndThePValueAgree() throws {
        var generator = SplitMix64(seed: 9)
        let treatment = (0..<300).map { _ in -log(Double(generator.next() % 1_000_000 + 1) / 1_000_001) * 1.3 }
        let control = (0..<250).map { _ in -log(Double(generator.next() % 1_000_000 + 1) / 1_000_001) }
        for alpha in [0.01, 0.05, 0.2] {
            let result = try QuantileDifference(treatment: treatment, control: control, probability: 0.9, alpha: alpha)
            #expect(abs(result.estimate - (result.treatment.quantile - result.control.quantile)) < 1e-15)
            #expect(abs((result.upper + result.lower) / 2 - result.estimate) < 1e-12)
            // Shifting the treatment by the interval's bound makes the difference test at α.
            let bound = result.estimate > 0 ? result.lower : result.upper
            let shifted = try QuantileDifference(
                treatment: treatment.map { $0 - bound }, control: control, probability: 0.9, alpha: alpha)
            #expect(abs(shifted.pValue - alpha) < 1e-6, "α = \(alpha): \(shifted.pValue)")
        }
    }

    /// A seeded simulation: 95 % intervals for the difference of two exponential arms' 90th
    /// percentiles (true difference 0) cover it in about 95 % of 600 experiments; the binomial
    /// standard error of the rate is 0.9 %.
    @Test func theIntervalCoversInASeededSimulation() throws {
        var generator = SplitMix64(seed: 35)
        func exponential() -> Double { -log(Double(generator.next() >> 11 | 1) / Double(1 << 53)) }
        var covered = 0
        let experiments = 600
        for _ in 0..<experiments {
            let treatment = (0..<200).map { _ in exponential() }
            let control = (0..<150).map { _ in exponential() }
            let result = try QuantileDifference(treatment: treatment, control: control, probability: 0.9)
            if result.lower <= 0, 0 <= result.upper { covered += 1 }
        }
        let rate = Double(covered) / Double(experiments)
        #expect(rate > 0.92 && rate < 0.98, "coverage \(rate)")
    }

    @Test func badInputIsRefusedWithItsPlace() {
        let ten = (1...10).map(Double.init)
        #expect(refusedPath { _ = try QuantileDifference(treatment: [1, 2, 3, .nan] + ten, control: ten, probability: 0.5) } == "treatment[3]")
        #expect(refusedPath { _ = try QuantileDifference(treatment: ten, control: ten + [-.infinity], probability: 0.5) } == "control[10]")
        for p in [0, 1, -0.5, 2, Double.nan] {
            #expect(refusedPath { _ = try QuantileDifference(treatment: ten, control: ten, probability: p) } == "probability")
        }
        for alpha in [0, 1, Double.nan] {
            #expect(refusedPath { _ = try QuantileDifference(treatment: ten, control: ten, probability: 0.5, alpha: alpha) } == "alpha")
        }
        // Too few for the ranks: 4 values for a median, 100 for a 99th percentile.
        #expect(refusedPath { _ = try QuantileDifference(treatment: [1, 2, 3, 4], control: ten, probability: 0.5) } == "treatment")
        #expect(refusedPath { _ = try QuantileDifference(treatment: ten, control: [], probability: 0.5) } == "control")
        let hundred = (1...100).map(Double.init)
        #expect(refusedPath { _ = try QuantileDifference(treatment: hundred, control: hundred, probability: 0.99) } == "treatment")
        #expect((try? QuantileDifference(treatment: hundred, control: hundred, probability: 0.9)) != nil)
        // Ties around the quantile would read as a zero standard error: refused, not certain.
        let tied = Array(repeating: 3.0, count: 50) + [1, 2, 4, 5]
        #expect(refusedPath { _ = try QuantileDifference(treatment: ten, control: tied, probability: 0.5) } == "control")
        #expect(refusedPath { _ = try QuantileEstimate(values: Array(repeating: 0, count: QuantileEstimate.maximumUnits + 1), probability: 0.5) } == "values")
    }
}
