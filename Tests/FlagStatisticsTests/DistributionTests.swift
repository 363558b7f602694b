import Foundation
import Testing

@testable import FlagStatistics

/// The distributions against closed forms that share no code with them (the t distribution with 1
/// and 2 degrees of freedom, the chi-squared with 1 and 2), and their quantiles against their cdfs.
/// `scripts/statistics/compare_scipy.py` compares them with scipy on random arguments.
struct DistributionTests {
    static let points: [Double] = [-40, -7.5, -3, -1.96, -1, -0.25, 0, 0.1, 0.5, 1.3, 2.7, 6, 25, 300]

    @Test func tWithOneDegreeIsCauchy() {
        let t = StudentT(degreesOfFreedom: 1)
        for x in Self.points {
            #expect(abs(t.cdf(x) - (0.5 + atan(x) / Double.pi)) < 1e-13, "t₁ cdf at \(x)")
        }
    }

    @Test func tWithTwoDegreesHasAClosedForm() {
        let t = StudentT(degreesOfFreedom: 2)
        for x in Self.points {
            #expect(abs(t.cdf(x) - (0.5 + x / (2 * (2 + x * x).squareRoot()))) < 1e-13, "t₂ cdf at \(x)")
        }
    }

    @Test func tApproachesTheNormal() {
        let t = StudentT(degreesOfFreedom: 1e7)
        for x in Self.points where abs(x) < 8 {
            #expect(abs(t.cdf(x) - Normal.cdf(x)) < 1e-7)
        }
    }

    @Test func chiSquaredWithTwoDegreesIsExponential() {
        let chi = ChiSquared(degreesOfFreedom: 2)
        for x in [0, 0.01, 0.5, 1, 3, 10, 50, 300.0] {
            #expect(abs(chi.survival(x) - exp(-x / 2)) <= 1e-14 * max(1, exp(-x / 2)) + 1e-300, "χ²₂ at \(x)")
        }
    }

    @Test func chiSquaredWithOneDegreeIsAFoldedNormal() {
        let chi = ChiSquared(degreesOfFreedom: 1)
        for x in [0.001, 0.2, 1, 3.84, 10, 40.0] {
            #expect(abs(chi.survival(x) - erfc((x / 2).squareRoot())) < 1e-13, "χ²₁ at \(x)")
        }
    }

    @Test(arguments: [1e-12, 1e-6, 0.001, 0.025, 0.2, 0.5, 0.8, 0.975, 0.999999])
    func quantilesInvertTheirDistributions(p: Double) {
        #expect(abs(Normal.cdf(Normal.quantile(p)) - p) <= 1e-14 * max(p, 1e-3))
        for degrees in [1.0, 2.5, 7, 30.3, 1000] {
            let t = StudentT(degreesOfFreedom: degrees)
            #expect(abs(t.cdf(t.quantile(p)) - p) <= 1e-12 * max(p, 1e-3), "t\(degrees) quantile of \(p)")
        }
    }

    @Test func normalQuantilesAreSymmetric() {
        // 1 − p is exact for these, so the symmetry is too.
        for p in [0.0009765625, 0.0625, 0.3125] {
            #expect(Normal.quantile(p) == -Normal.quantile(1 - p))
        }
        #expect(abs(Normal.quantile(0.975) - 1.959963984540054) < 1e-12)
    }
}
