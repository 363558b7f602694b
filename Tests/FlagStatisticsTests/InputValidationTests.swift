import Foundation
import Testing

@testable import FlagStatistics

/// Inputs that used to end the process (signal 4) or give NaN, negative variance reductions or
/// impossible powers: each is now a ``StatisticsError`` naming the field, or a finite answer.
struct InputValidationTests {
    static let good = ArmStatistics(units: 1000, sum: 100)

    static func refusal(_ data: ExperimentData) -> String? {
        do {
            _ = try StatisticsEngine.analyze(data)
            return nil
        } catch {
            return error.path
        }
    }

    static func data(alpha: Double? = nil, _ arms: [String: ArmStatistics], kind: MetricData.Kind = .conversion) -> ExperimentData {
        ExperimentData(control: "off", alpha: alpha, metrics: [MetricData(name: "m", kind: kind, arms: arms)])
    }

    @Test(arguments: [1e-17, 1e-300, 0, -0.1, 0.6, 1, .nan, .infinity])
    func anAlphaOutOfRangeIsRefused(alpha: Double) {
        #expect(Self.refusal(Self.data(alpha: alpha, ["off": Self.good, "on": Self.good])) == "alpha")
        #expect(throws: StatisticsError.self) { try SampleSizePlan(metric: .conversion(baseline: 0.1), effect: 0.01, alpha: alpha) }
    }

    @Test func theSmallestAlphaGivesFiniteAnswers() throws {
        let analysis = try StatisticsEngine.analyze(Self.data(alpha: 1e-12, ["off": Self.good, "on": ArmStatistics(units: 1000, sum: 180)]))
        let comparison = try #require(analysis.metrics[0].comparisons.first)
        for value in [comparison.absolute.lower, comparison.absolute.upper, comparison.sequential.lower, comparison.sequential.upper] {
            #expect(value.isFinite)
        }
        let plan = try SampleSizePlan(metric: .conversion(baseline: 0.1), effect: 0.01, alpha: 1e-12)
        #expect(plan.unitsPerArm.isFinite && plan.unitsPerArm > 0)
    }

    /// 10¹⁰⁰ units: the squares of the variances of the means underflowed to 0, the
    /// Welch–Satterthwaite degrees of freedom were 0/0 and the t distribution trapped on NaN.
    @Test func hugeUnitCountsGiveFiniteAnswers() throws {
        let arms = [
            "off": ArmStatistics(units: 1e100, sum: 3e99, sumOfSquares: 5e99),
            "on": ArmStatistics(units: 1e100, sum: 3.0000001e99, sumOfSquares: 5e99),
        ]
        let analysis = try StatisticsEngine.analyze(Self.data(arms, kind: .mean))
        let comparison = try #require(analysis.metrics[0].comparisons.first)
        let numbers = [
            comparison.absolute.estimate, comparison.absolute.lower, comparison.absolute.upper, comparison.absolute.pValue,
            comparison.absolute.degreesOfFreedom ?? .nan, comparison.sequential.lower, comparison.sequential.upper,
            comparison.sequential.pValue, comparison.adjustedPValue, comparison.bayesian.chanceToBeatControl,
        ]
        #expect(numbers.allSatisfy { $0.isFinite }, "\(numbers)")
        #expect(try JSONEncoder().encode(analysis).count > 0)
    }

    @Test func benjaminiHochbergNeverTurnsNaNIntoEvidence() {
        let adjusted = StatisticalTests.benjaminiHochberg([0.01, .nan, 0.04, 0.03])
        #expect(adjusted[1] == 1)
        #expect(adjusted.allSatisfy { !$0.isNaN })
        // The NaN counts as a p-value of 1: the others are adjusted as with 1 there.
        #expect(adjusted[0] == StatisticalTests.benjaminiHochberg([0.01, 1, 0.04, 0.03])[0])
    }

    @Test func negativeCountSumsAreRefused() {
        let arms = ["off": ArmStatistics(units: 200, sum: -40, sumOfSquares: 100), "on": ArmStatistics(units: 200, sum: 40, sumOfSquares: 100)]
        #expect(Self.refusal(Self.data(arms, kind: .count)) == "metrics[0].arms.off.sum")
        var squares = arms
        squares["off"] = ArmStatistics(units: 200, sum: 0, sumOfSquares: -1)
        #expect(Self.refusal(Self.data(squares, kind: .mean)) == "metrics[0].arms.off.sumOfSquares")
    }

    /// A correlation of covariate and metric beyond ±1 gave "−403 % variance reduction".
    @Test func impossibleCupedCorrelationsAreRefused() {
        func arm(products: Double) -> ArmStatistics {
            ArmStatistics(units: 200, sum: 200, sumOfSquares: 400, covariateSum: 200, covariateSumOfSquares: 400, sumOfProducts: products)
        }
        // Var(x) = Var(y) = 200/199 per unit; |Σxy − ΣxΣy/n| may be at most 200.
        #expect(Self.refusal(Self.data(["off": arm(products: 1400), "on": arm(products: 300)], kind: .mean)) == "metrics[0].arms.off.sumOfProducts")
        #expect(Self.refusal(Self.data(["off": arm(products: 390), "on": arm(products: 300)], kind: .mean)) == nil)
    }

    @Test func plansRefuseImpossibleSettings() {
        #expect(refusedPath { _ = try SampleSizePlan(metric: .conversion(baseline: 0.1), effect: 0.01, power: 1.2) } == "power")
        #expect(refusedPath { _ = try SampleSizePlan(metric: .conversion(baseline: 0.1), effect: 0.01, power: 0) } == "power")
        #expect(refusedPath { _ = try SampleSizePlan(metric: .conversion(baseline: 1.5), effect: 0.01) } == "baseline")
        #expect(refusedPath { _ = try SampleSizePlan(metric: .mean(standardDeviation: .nan), effect: 0.01) } == "standardDeviation")
        #expect(refusedPath { _ = try SampleSizePlan(metric: .mean(standardDeviation: 1), effect: 0.1, metrics: 0) } == "metrics")
        #expect(refusedPath { _ = try SampleSizePlan(metric: .mean(standardDeviation: 1), effect: 0.1, mixingWidth: -1) } == "mixingWidth")
        #expect(refusedPath { _ = try SampleSizePlan.minimumDetectableEffect(metric: .mean(standardDeviation: 1), unitsPerArm: 1) } == "unitsPerArm")
    }
}
