import Foundation
import Testing

@testable import FlagStatistics

/// The tests against independent computations on raw values.
struct StatisticalTestsTests {
    @Test func welchWithEqualGroupsHasThePooledDegreesOfFreedom() throws {
        // Equal sizes and variances: Welch–Satterthwaite gives 2(n − 1).
        let estimate = try #require(StatisticalTests.welch(mean1: 1.2, variance1: 4, units1: 50, mean0: 1, variance0: 4, units0: 50, alpha: 0.05))
        #expect(abs(estimate.degreesOfFreedom! - 98) < 1e-9)
        #expect(abs(estimate.standardError - (4.0 / 50 + 4.0 / 50).squareRoot()) < 1e-15)
        // The interval is where the test's p-value crosses α: at its bound the difference tests at α.
        let t = StudentT(degreesOfFreedom: 98)
        let atBound = 2 * t.survival((estimate.upper - estimate.estimate) / estimate.standardError)
        #expect(abs(atBound - 0.05) < 1e-12)
    }

    @Test func benjaminiHochbergMatchesItsDefinition() {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<200 {
            let count = Int(generator.next() % 12) + 1
            let values = (0..<count).map { _ in Double(generator.next() % 1000) / 1000 }
            let adjusted = StatisticalTests.benjaminiHochberg(values)
            // The definition, by brute force: q_i = min over all j with p_j ≥ p_i of m·p_j / rank_j,
            // where rank_j counts the p-values ≤ p_j (ties share the highest rank).
            for i in values.indices {
                let m = Double(count)
                var best = 1.0
                for j in values.indices where values[j] >= values[i] {
                    let rank = Double(values.filter { $0 <= values[j] }.count)
                    best = min(best, m * values[j] / rank)
                }
                #expect(abs(adjusted[i] - best) < 1e-12, "\(values) at \(i)")
            }
        }
    }

    @Test func sampleRatioOfTwoEqualArmsIsTheSquaredDifferenceOverTheTotal() {
        let test = StatisticalTests.sampleRatio(observed: [5000, 5230], weights: [1, 1])
        #expect(abs(test.chiSquared - 230.0 * 230.0 / 10230.0) < 1e-9)
        #expect(test.degreesOfFreedom == 1)
        #expect(abs(test.pValue - erfc((test.chiSquared / 2).squareRoot())) < 1e-13)
    }

    @Test func sequentialIntervalIsWhereTheTestCrossesAlpha() throws {
        let variance = 0.0004, mixing = 0.0009, alpha = 0.05
        let result = try #require(StatisticalTests.mixtureSequential(difference: 0.031, variance: variance, mixingVariance: mixing, alpha: alpha))
        // Testing the bound itself as the null: its p-value is α.
        let shifted = try #require(StatisticalTests.mixtureSequential(
            difference: 0.031 - result.upper, variance: variance, mixingVariance: mixing, alpha: alpha))
        #expect(abs(shifted.pValue - alpha) < 1e-12)
        #expect(result.lower < 0.031 && 0.031 < result.upper)
    }

    @Test func bayesianExpectedLossIsTheIntegralOfTheLoss() {
        // E[max(0, −D)] for D ~ N(d, s²), by the trapezoid rule over ±12 s.
        for (d, s) in [(0.02, 0.01), (-0.01, 0.02), (0.0, 1.0), (3.0, 0.5)] {
            let view = StatisticalTests.bayesian(difference: d, standardError: s)
            var integral = 0.0
            let steps = 200_000
            let low = d - 12 * s, high = d + 12 * s
            let h = (high - low) / Double(steps)
            for i in 0...steps {
                let x = low + Double(i) * h
                let weight = (i == 0 || i == steps) ? 0.5 : 1
                integral += weight * max(0, -x) * Normal.density((x - d) / s) / s
            }
            integral *= h
            #expect(abs(view.expectedLoss - integral) < 1e-9 * max(1, integral), "loss for d=\(d), s=\(s)")
            #expect(abs(view.chanceToBeatControl - Normal.cdf(d / s)) < 1e-15)
        }
    }
}

/// A small seeded generator (Steele, Lea & Flood 2014) for reproducible simulations.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A standard normal draw (Box–Muller).
    mutating func normal() -> Double {
        let u = (Double(next() >> 11) + 0.5) / Double(1 << 53)
        let v = Double(next() >> 11) / Double(1 << 53)
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }
}

/// The path of the ``StatisticsError`` that `body` throws (another error's description), or `nil`
/// when it throws nothing: how the tests say which field a refusal names.
func refusedPath(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch {
        return (error as? StatisticsError)?.path ?? "\(error)"
    }
}
