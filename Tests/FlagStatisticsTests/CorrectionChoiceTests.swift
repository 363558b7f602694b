import Foundation
import Testing

@testable import FlagStatistics

/// The engine adjusts with the correction the data chooses: three arms whose fixed-horizon
/// p-values are about 0.02, 0.03 and 0.04 are all significant at α = 0.05 after
/// Benjamini–Hochberg (the largest is 0.04), none after Holm (the smallest becomes 3 × 0.02) and
/// none after Dunnett (2.326 is below the 3-arm critical value, about 2.35).
struct CorrectionChoiceTests {
    /// A mean metric's arm with `units` values of mean `mean` and variance 1.
    static func arm(_ mean: Double, units: Double = 10_000) -> ArmStatistics {
        ArmStatistics(units: units, sum: units * mean, sumOfSquares: (units - 1) + units * mean * mean)
    }

    /// z = 2.326, 2.170, 2.054 against a standard error of √(2/10⁴).
    static func data(_ correction: MultipleComparisonCorrection?, metrics: Int = 1) -> ExperimentData {
        let standardError = (2.0 / 10_000).squareRoot()
        let arms = [
            "control": arm(0), "a": arm(2.326 * standardError), "b": arm(2.170 * standardError),
            "c": arm(2.054 * standardError),
        ]
        return ExperimentData(
            control: "control", correction: correction,
            metrics: (0..<metrics).map { MetricData(name: "m\($0)", kind: .mean, arms: arms) })
    }

    static func adjusted(_ analysis: ExperimentAnalysis) -> [String: Double] {
        Dictionary(uniqueKeysWithValues: analysis.metrics[0].comparisons.map { ($0.arm, $0.adjustedPValue) })
    }

    @Test func benjaminiHochbergIsTheDefaultAndCallsAllThreeSignificant() throws {
        let analysis = try StatisticsEngine.analyze(Self.data(nil))
        #expect(analysis.correction == .bh && analysis.sequentialCorrection == .bh)
        let raw = analysis.metrics[0].comparisons.map(\.absolute.pValue)
        #expect(StatisticalTests.benjaminiHochberg(raw) == analysis.metrics[0].comparisons.map(\.adjustedPValue))
        #expect(Self.adjusted(analysis).values.allSatisfy { $0 <= 0.05 }, "\(Self.adjusted(analysis))")
        #expect(analysis.methods.last?.contains("Benjamini–Hochberg") == true)
    }

    @Test func holmDecidesWhenChosen() throws {
        let analysis = try StatisticsEngine.analyze(Self.data(.holm))
        #expect(analysis.correction == .holm && analysis.sequentialCorrection == .holm)
        let comparisons = analysis.metrics[0].comparisons
        // Holm by hand: sorted p₍₁₎ ≤ p₍₂₎ ≤ p₍₃₎ become 3p₍₁₎, max(3p₍₁₎, 2p₍₂₎), max(…, p₍₃₎).
        let sorted = comparisons.map(\.absolute.pValue).sorted()
        let first = 3 * sorted[0]
        let second = max(first, 2 * sorted[1])
        let third = max(second, sorted[2])
        let byArm = Self.adjusted(analysis)
        #expect(abs(byArm["a"]! - first) < 1e-15 && abs(byArm["b"]! - second) < 1e-15 && abs(byArm["c"]! - third) < 1e-15)
        #expect(byArm.values.allSatisfy { $0 > 0.05 }, "\(byArm)")
        let sequential = comparisons.map(\.sequential.pValue)
        #expect(MultipleComparisons.holm(sequential) == comparisons.map(\.sequential.adjustedPValue))
        #expect(analysis.methods.last?.contains("Holm") == true)
    }

    @Test func dunnettDecidesTheFixedHorizonTestAndHolmTheSequentialOne() throws {
        let analysis = try StatisticsEngine.analyze(Self.data(.dunnett))
        #expect(analysis.correction == .dunnett && analysis.sequentialCorrection == .holm)
        let comparisons = analysis.metrics[0].comparisons
        // Equal arms and variances: the equal-size normal Dunnett distribution gives the same.
        let t = comparisons.map { $0.absolute.estimate / $0.absolute.standardError }
        let reference = try MultipleComparisons.dunnett(
            tStatistics: t, controlUnits: 10_000, treatmentUnits: [10_000, 10_000, 10_000], degreesOfFreedom: .infinity)
        for (comparison, expected) in zip(comparisons, reference) {
            #expect(abs(comparison.adjustedPValue - expected) < 1e-9 * expected, "\(comparison.arm)")
            // Less than Holm's and Bonferroni's 3p, more than the raw p.
            #expect(comparison.adjustedPValue > comparison.absolute.pValue && comparison.adjustedPValue < 3 * comparison.absolute.pValue)
        }
        #expect(Self.adjusted(analysis)["a"]! > 0.05 && Self.adjusted(analysis)["a"]! < 0.06, "\(Self.adjusted(analysis))")
        #expect(MultipleComparisons.holm(comparisons.map(\.sequential.pValue)) == comparisons.map(\.sequential.adjustedPValue))
        #expect(analysis.methods.last?.contains("Dunnett does not hold for the always-valid sequential p-values") == true)
    }

    @Test func dunnettAcrossMetricsIsBonferroniOverTheMetrics() throws {
        let one = try StatisticsEngine.analyze(Self.data(.dunnett))
        let two = try StatisticsEngine.analyze(Self.data(.dunnett, metrics: 2))
        for metric in two.metrics {
            for (a, b) in zip(metric.comparisons, one.metrics[0].comparisons) {
                #expect(abs(a.adjustedPValue - min(1, 2 * b.adjustedPValue)) < 1e-15)
            }
        }
    }

    @Test func dunnettWithUnequalVariancesUsesEachArmsOwnVarianceOfTheMean() throws {
        // k = 1: the many-to-one distribution is the two-sided normal test, whatever the variances.
        let distribution = try DunnettDistribution(controlVariance: 1e-4, treatmentVariances: [9e-4])
        #expect(abs(distribution.survival(2.5) - erfc(2.5 / 2.0.squareRoot())) < 1e-12)
        // Two arms, a control with a tiny variance of its mean: the statistics are nearly
        // independent, so P(max ≥ c) is nearly 1 − (1 − 2Q(c))².
        let independent = try DunnettDistribution(controlVariance: 1e-12, treatmentVariances: [1, 1])
        let q = erfc(2.0 / 2.0.squareRoot())
        #expect(abs(independent.survival(2) - (1 - (1 - q) * (1 - q))) < 1e-6)
        #expect(throws: StatisticsError.self) { try DunnettDistribution(controlVariance: 0, treatmentVariances: [1]) }
        #expect(throws: StatisticsError.self) { try DunnettDistribution(controlVariance: 1, treatmentVariances: [.nan]) }
    }

    @Test func theCorrectionRoundTripsThroughJSON() throws {
        let json = Data(#"{"control": "c", "correction": "holm", "metrics": []}"#.utf8)
        #expect(try JSONDecoder().decode(ExperimentData.self, from: json).correction == .holm)
        let bad = Data(#"{"control": "c", "correction": "bonferroni", "metrics": []}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ExperimentData.self, from: bad) }
    }
}
