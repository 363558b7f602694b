import Foundation
import Testing

@testable import FlagStatistics

/// Holm against its definition and a worked example; Dunnett against its published table, the
/// closed form at k = 1, and its invariants. `scripts/statistics/compare_methods.py` compares both
/// with statsmodels and scipy on seeded random experiments.
struct MultipleComparisonsTests {
    // MARK: Holm

    @Test func holmOnAWorkedExample() {
        // Sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → running maximum 0.06.
        let adjusted = MultipleComparisons.holm([0.01, 0.04, 0.03, 0.005])
        let expected = [0.03, 0.06, 0.06, 0.02]
        for (a, e) in zip(adjusted, expected) { #expect(abs(a - e) < 1e-15) }
        // Eight p-values with a tie; statsmodels' multipletests(method="holm") gives the same.
        let second = MultipleComparisons.holm([0.0001, 0.004, 0.019, 0.095, 0.201, 0.5, 0.01, 0.019])
        let reference = [0.0008, 0.028, 0.095, 0.285, 0.402, 0.5, 0.06, 0.095]
        for (a, e) in zip(second, reference) { #expect(abs(a - e) < 1e-15, "\(second)") }
    }

    @Test func holmMatchesItsDefinitionAndItsInvariants() {
        var generator = SplitMix64(seed: 35)
        for _ in 0..<300 {
            let count = Int(generator.next() % 10) + 1
            // Coarse values, so that ties occur.
            let values = (0..<count).map { _ in Double(generator.next() % 60) / 200 }
            let adjusted = MultipleComparisons.holm(values)
            let m = count
            for i in values.indices {
                // Definition: the largest, over every p_j ≤ p_i, of min(1, (m − rank_j + 1)·p_j),
                // where rank_j is p_j's position among the sorted values (ties: the first position).
                var best = 0.0
                for j in values.indices where values[j] <= values[i] {
                    let rank = values.filter { $0 < values[j] }.count + 1
                    best = max(best, min(1, Double(m - rank + 1) * values[j]))
                }
                #expect(abs(adjusted[i] - best) < 1e-15, "\(values) at \(i)")
                #expect(adjusted[i] >= values[i] && adjusted[i] <= 1)
                for j in values.indices where values[j] <= values[i] { #expect(adjusted[j] <= adjusted[i]) }
            }
        }
    }

    @Test func holmKeepsAnUnknownPValueUnknownAndCountsIt() {
        // m = 3: 0.01·3 = 0.03, 0.02·2 = 0.04, the unknown one ranks last as 1. Dropping it
        // instead would give 0.02 and 0.02.
        for unknown in [Double.nan, -0.1, 1.5, .infinity, -.infinity] {
            let adjusted = MultipleComparisons.holm([0.01, unknown, 0.02])
            #expect(abs(adjusted[0] - 0.03) < 1e-15 && abs(adjusted[2] - 0.04) < 1e-15, "\(unknown)")
            #expect(adjusted[1].isNaN, "\(unknown)")
        }
        #expect(MultipleComparisons.holm([]).isEmpty)
        #expect(MultipleComparisons.holm([Double.nan])[0].isNaN)
    }

    // MARK: Dunnett

    /// Two-sided critical values at α = 0.05 for k treatments of equal size against one control,
    /// from Dunnett's exact two-sided table (C. W. Dunnett, "New tables for multiple comparisons
    /// with a control", *Biometrics* 20 (1964) 482–491, Table II), given to two decimals.
    static let publishedCriticalValues: [(nu: Double, k: Int, value: Double)] = [
        (5, 2, 3.03), (5, 3, 3.29), (5, 4, 3.48),
        (10, 2, 2.57), (10, 3, 2.76), (10, 4, 2.89), (10, 5, 2.99),
        (20, 2, 2.38), (20, 3, 2.54), (20, 4, 2.65),
        (60, 2, 2.27), (60, 3, 2.41), (60, 4, 2.51),
        (.infinity, 2, 2.21), (.infinity, 3, 2.35), (.infinity, 4, 2.44), (.infinity, 5, 2.51),
    ]

    @Test(arguments: Self.publishedCriticalValues.indices)
    func dunnettCriticalValueMatchesThePublishedTable(_ index: Int) throws {
        let (nu, k, value) = Self.publishedCriticalValues[index]
        let c = try MultipleComparisons.dunnettCriticalValue(
            alpha: 0.05, controlUnits: 20, treatmentUnits: Array(repeating: 20, count: k), degreesOfFreedom: nu)
        #expect(abs(c - value) <= 0.005 + 1e-9, "ν = \(nu), k = \(k): \(c)")
        // At its critical value the adjusted p-value is α.
        let p = try MultipleComparisons.dunnett(
            tStatistics: [c] + Array(repeating: 0, count: k - 1), controlUnits: 20,
            treatmentUnits: Array(repeating: 20, count: k), degreesOfFreedom: nu)
        #expect(abs(p[0] - 0.05) < 1e-9)
    }

    /// Two-sided p-values 2·P(T_ν > t) at 40 digits (mpmath's regularized incomplete beta,
    /// I_{ν/(ν+t²)}(ν/2, ½)): with one treatment, Dunnett's test is the two-sample t test.
    static let twoSidedT: [(nu: Double, t: Double, p: Double)] = [
        (1, 0.3, 0.8144528418445153), (1, 12, 0.05292935211917975), (2, 3, 0.09546596626670913),
        (3.5, 5, 0.010550178991867781), (10, 2, 0.07338803477074037), (10, 8, 1.177494278966616e-05),
        (100, 3, 0.0034079153433294496), (100, 12, 4.395087715604378e-21),
        (1e4, 5, 5.830326613662647e-07), (1e8, 8, 1.244205250822954e-15), (1e8, 20, 5.5094625766577934e-89),
    ]

    @Test func dunnettWithOneTreatmentIsTheTwoSidedTTest() throws {
        for (nu, t, expected) in Self.twoSidedT {
            for sign in [1.0, -1.0] {
                let p = try MultipleComparisons.dunnett(
                    tStatistics: [sign * t], controlUnits: 50, treatmentUnits: [70], degreesOfFreedom: nu)
                #expect(abs(p[0] - expected) <= 1e-9 * expected, "ν = \(nu), t = \(t): \(p[0]) against \(expected)")
            }
        }
        // The normal case: 2Φ(−t).
        for t in [0.5, 1.96, 4, 9] {
            let p = try MultipleComparisons.dunnett(tStatistics: [t], controlUnits: 9, treatmentUnits: [1e6], degreesOfFreedom: .infinity)
            let expected = erfc(t / 2.0.squareRoot())
            #expect(abs(p[0] - expected) <= 1e-9 * expected)
        }
    }

    @Test func dunnettAdjustedPValuesAreAtLeastTheRawOnesAndGrowWithTheArms() throws {
        let units: [Double] = [120, 80, 300, 95]
        let t: [Double] = [2.1, -0.4, 3.3, 1.2]
        for nu in [4.0, 30, .infinity] {
            let adjusted = try MultipleComparisons.dunnett(
                tStatistics: t, controlUnits: 100, treatmentUnits: units, degreesOfFreedom: nu)
            for (index, value) in adjusted.enumerated() {
                let raw = try MultipleComparisons.dunnett(
                    tStatistics: [t[index]], controlUnits: 100, treatmentUnits: [units[index]], degreesOfFreedom: nu)[0]
                #expect(value >= raw && value <= 1, "ν = \(nu), arm \(index)")
                // Bonferroni bounds it from above.
                #expect(value <= min(1, 4 * raw) + 1e-12)
            }
            // A larger |t| has a smaller adjusted p-value.
            let byMagnitude = t.indices.sorted { abs(t[$0]) < abs(t[$1]) }
            for (a, b) in zip(byMagnitude, byMagnitude.dropFirst()) { #expect(adjusted[a] > adjusted[b]) }
            // One more arm can only raise the family's critical value.
            let three = try MultipleComparisons.dunnettCriticalValue(
                alpha: 0.05, controlUnits: 100, treatmentUnits: Array(units.prefix(3)), degreesOfFreedom: nu)
            let four = try MultipleComparisons.dunnettCriticalValue(
                alpha: 0.05, controlUnits: 100, treatmentUnits: units, degreesOfFreedom: nu)
            #expect(four > three)
        }
    }

    @Test func dunnettStaysAccurateFarInTheTail() throws {
        // A huge |t| at small ν: the mass of the chi integral sits far below S = 1 (it read 1
        // when the integration range came from the curvature at the wrong scale).
        for (t, expected) in [(1e10, 2.205315581687168e-30), (1e5, 2.2053155808932545e-15)] {
            let one = try MultipleComparisons.dunnett(tStatistics: [t], controlUnits: 10, treatmentUnits: [10], degreesOfFreedom: 3)
            #expect(abs(one[0] - expected) <= 1e-9 * expected, "t = \(t): \(one[0])")
            let two = try MultipleComparisons.dunnett(
                tStatistics: [t, 1e-300], controlUnits: 10, treatmentUnits: [10, 20], degreesOfFreedom: 3)
            #expect(two[0] > expected && two[0] < 2 * expected && two[1] == 1, "t = \(t): \(two)")
        }
        // A critical value far out: with ν = 1 and k = 1, the Cauchy's cot(πα/2).
        let cauchy = try MultipleComparisons.dunnettCriticalValue(
            alpha: 1e-12, controlUnits: 10, treatmentUnits: [10], degreesOfFreedom: 1)
        #expect(abs(cauchy - 636_619_772_367.5813) <= 1e-8 * 636_619_772_367.5813)
        // With three arms it lies between the single comparison's and Bonferroni's.
        let three = try MultipleComparisons.dunnettCriticalValue(
            alpha: 1e-12, controlUnits: 10, treatmentUnits: [10, 20, 30], degreesOfFreedom: 1)
        #expect(three > cauchy && three < 3.0001 * cauchy)
        // The normal case beyond 40: zero, as 2k·Q(40) is in double precision.
        let far = try MultipleComparisons.dunnett(tStatistics: [1e10, 45], controlUnits: 10, treatmentUnits: [10, 20], degreesOfFreedom: .infinity)
        #expect(far == [0, 0])
    }

    @Test func dunnettWithAVeryLargeArmIsSharpAndStillAccurate() throws {
        // λ → 1 makes the conditional exceedance a step of width √(n₀/(n + n₀)); two arms of the
        // same size with λ² = 1/2 are the classic equicorrelated case ρ = ½, where both results
        // must agree with the table above at ν = ∞ whatever the order.
        let sharp = try MultipleComparisons.dunnett(
            tStatistics: [2.5, 2.5], controlUnits: 10, treatmentUnits: [1e9, 10], degreesOfFreedom: .infinity)
        let swapped = try MultipleComparisons.dunnett(
            tStatistics: [2.5, 2.5], controlUnits: 10, treatmentUnits: [10, 1e9], degreesOfFreedom: .infinity)
        #expect(abs(sharp[0] - swapped[1]) < 1e-12)
        // Bounds: one comparison's p-value below, Bonferroni above.
        let single = erfc(2.5 / 2.0.squareRoot())
        #expect(sharp[0] > single && sharp[0] < 2 * single)
    }

    @Test func dunnettRefusesInputItCannotUse() {
        #expect(refusedPath { _ = try MultipleComparisons.dunnett(tStatistics: [], controlUnits: 10, treatmentUnits: [], degreesOfFreedom: 5) } == "treatmentUnits")
        #expect(refusedPath { _ = try MultipleComparisons.dunnett(tStatistics: [1], controlUnits: 1, treatmentUnits: [10], degreesOfFreedom: 5) } == "controlUnits")
        #expect(refusedPath { _ = try MultipleComparisons.dunnett(tStatistics: [1], controlUnits: .nan, treatmentUnits: [10], degreesOfFreedom: 5) } == "controlUnits")
        #expect(refusedPath { _ = try MultipleComparisons.dunnett(tStatistics: [1, 2], controlUnits: 10, treatmentUnits: [10, 0.5], degreesOfFreedom: 5) } == "treatmentUnits[1]")
        #expect(refusedPath { _ = try MultipleComparisons.dunnett(tStatistics: [1], controlUnits: 10, treatmentUnits: [10], degreesOfFreedom: 0) } == "degreesOfFreedom")
        #expect(refusedPath { _ = try MultipleComparisons.dunnett(tStatistics: [1], controlUnits: 10, treatmentUnits: [10], degreesOfFreedom: -3) } == "degreesOfFreedom")
        #expect(refusedPath { _ = try MultipleComparisons.dunnett(tStatistics: [1], controlUnits: 10, treatmentUnits: [10], degreesOfFreedom: .nan) } == "degreesOfFreedom")
        #expect(refusedPath { _ = try MultipleComparisons.dunnett(tStatistics: [.nan], controlUnits: 10, treatmentUnits: [10], degreesOfFreedom: 5) } == "tStatistics[0]")
        #expect(refusedPath { _ = try MultipleComparisons.dunnett(tStatistics: [1, .infinity], controlUnits: 10, treatmentUnits: [10, 10], degreesOfFreedom: 5) } == "tStatistics[1]")
        #expect(refusedPath { _ = try MultipleComparisons.dunnett(tStatistics: [1], controlUnits: 10, treatmentUnits: [10, 10], degreesOfFreedom: 5) } == "tStatistics")
        #expect(refusedPath { _ = try MultipleComparisons.dunnett(tStatistics: Array(repeating: 1, count: 21), controlUnits: 10, treatmentUnits: Array(repeating: 10, count: 21), degreesOfFreedom: 5) } == "treatmentUnits")
        for alpha in [0, 1, -0.1, 1.5, Double.nan] {
            #expect(refusedPath { _ = try MultipleComparisons.dunnettCriticalValue(alpha: alpha, controlUnits: 10, treatmentUnits: [10], degreesOfFreedom: 5) } == "alpha")
        }
    }
}
