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

    /// P(T > t) at large degrees of freedom against 60-digit values from mpmath's regularized
    /// incomplete beta function (`betainc(ν/2, 1/2, 0, ν/(ν+t²), regularized=True)/2`). Subtracting
    /// `lgamma` values near 10¹⁵ lost every digit here (5 % off at 10¹⁴).
    @Test(arguments: [
        (1e3, [0.30859254041693741, 0.025136592477874357, 0.0013833545221190962, 1.3776845866887346e-9, 8.3353514793000332e-23]),
        (1e5, [0.30853808882720902, 0.024999281597150817, 0.0013502304420323596, 9.8996472780088128e-10, 7.816507650103639e-24]),
        (1e8, [0.30853753927608897, 0.024997896534664052, 0.0013498983640187472, 9.8659101715764353e-10, 7.6200473151239207e-24]),
        (1e11, [0.308537538726537, 0.024997895149606878, 0.0013498980319624832, 9.8658764840981313e-10, 7.6198532184491437e-24]),
        (1e14, [0.30853753872598745, 0.024997895148221821, 0.0013498980316304269, 9.8658764504107026e-10, 7.6198530243548147e-24]),
        (1e16, [0.3085375387259869, 0.024997895148220448, 0.0013498980316300979, 9.8658764503773186e-10, 7.619853024162469e-24]),
    ])
    func tKeepsItsPrecisionAtLargeDegrees(degrees: Double, expected: [Double]) {
        let t = StudentT(degreesOfFreedom: degrees)
        for (x, value) in zip([0.5, 1.96, 3, 6, 10], expected) {
            #expect(abs(t.survival(x) - value) <= 1e-9 * value, "t\(degrees) survival at \(x): \(t.survival(x)) vs \(value)")
            #expect(abs(t.cdf(-x) - value) <= 1e-9 * value)
        }
    }

    /// Critical values for the smallest α the engine takes: 1 − α/2 is 1 in floating point below
    /// α ≈ 2·10⁻¹⁶, and the old quantile trapped on it.
    @Test(arguments: [1e-12, 1e-16, 1e-20])
    func upperQuantilesOfTinyTails(q: Double) {
        let z = Normal.upperQuantile(q)
        #expect(abs(Normal.survival(z) - q) <= 1e-12 * q)
        for degrees in [3.0, 40, 1e6, 1e20] {
            let t = StudentT(degreesOfFreedom: degrees)
            let x = t.upperQuantile(q)
            #expect(x.isFinite && x > 0)
            #expect(abs(t.survival(x) - q) <= 1e-9 * q, "t\(degrees) upper quantile of \(q)")
        }
    }
}
