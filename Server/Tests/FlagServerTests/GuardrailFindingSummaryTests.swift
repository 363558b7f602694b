@testable import FlagServer
@testable import FlagServerModel
import Testing

/// A guardrail finding's sentence reads right in both directions: the bound that matters, the
/// relation and the tolerance with one sign (a `decrease` tolerance of 0 read "+-0.00").
struct GuardrailFindingSummaryTests {
    static func finding(
        direction: RolloutGuardrail.Direction, tolerance: Double, lower: Double, upper: Double, regression: Bool, kind: String? = nil
    ) -> GuardrailFinding {
        GuardrailFinding(
            metric: "crash rate", oldVariant: "off", newVariant: "on", oldTrials: 1000, newTrials: 1000, oldEvents: 20, newEvents: 5,
            oldRate: 0.02, newRate: 0.005, difference: -0.015, lower: lower, upper: upper, alpha: 0.05, tolerance: tolerance,
            direction: direction, regression: regression, kind: kind)
    }

    @Test
    func aDecreaseReadsItsUpperBoundAgainstTheToleranceBelowZero() {
        let atZero = Self.finding(direction: .decrease, tolerance: 0, lower: -0.0261, upper: -0.0039, regression: true).summary
        #expect(atZero.hasSuffix("[-2.61, -0.39], upper bound below the tolerance +0.00"), "\(atZero)")
        #expect(!atZero.contains("+-"), "\(atZero)")
        let tolerated = Self.finding(direction: .decrease, tolerance: 0.005, lower: -0.0261, upper: 0.0012, regression: false).summary
        #expect(tolerated.hasSuffix("[-2.61, +0.12], upper bound not below the tolerance -0.50"), "\(tolerated)")
        let mean = Self.finding(direction: .decrease, tolerance: 0, lower: -3.5, upper: -0.25, regression: true, kind: "mean").summary
        #expect(mean.hasSuffix("[-3.5, -0.25], upper bound below the tolerance +0"), "\(mean)")
        #expect(!mean.contains("+-"), "\(mean)")
    }

    @Test
    func anIncreaseReadsItsLowerBoundAgainstTheToleranceAboveZero() {
        let atZero = Self.finding(direction: .increase, tolerance: 0, lower: 0.0061, upper: 0.0355, regression: true).summary
        #expect(atZero.hasSuffix("[+0.61, +3.55], lower bound above the tolerance +0.00"), "\(atZero)")
        let tolerated = Self.finding(direction: .increase, tolerance: 0.01, lower: 0.0061, upper: 0.0355, regression: false).summary
        #expect(tolerated.hasSuffix("lower bound not above the tolerance +1.00"), "\(tolerated)")
    }

    @Test
    func signedNumbersHaveOneSign() {
        #expect(GuardrailFinding.signed(-0.0, format: "%.2f") == "+0.00")
        #expect(GuardrailFinding.signed(0, format: "%.2f") == "+0.00")
        #expect(GuardrailFinding.signed(1.5, format: "%.2f") == "+1.50")
        #expect(GuardrailFinding.signed(-1.5, format: "%.2f") == "-1.50")
        #expect(GuardrailFinding.signed(-0.0, format: "%.4g") == "+0")
    }
}
