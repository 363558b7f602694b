import Foundation
import Testing

@testable import FlagStatistics

/// The planner sizes the test the engine decides with: at the planned size the sequential test
/// has the asked power (a seeded simulation of the engine), where a fixed-horizon plan left it
/// with 0.3–0.5.
struct SequentialPlanTests {
    /// The share of `experiments` two-arm conversion experiments (baseline → baseline + effect)
    /// that the engine's sequential test calls significant when read once at `units` per arm.
    static func simulatedPower(baseline: Double, effect: Double, units: Double, arms: Int = 2, experiments: Int, seed: UInt64) throws -> Double {
        var random = SplitMix64(seed: seed)
        func converted(_ p: Double) -> Double {
            // Normal approximation of the binomial count, rounded (n·p is in the hundreds).
            let mean = units * p
            return min(units, max(0, (mean + (mean * (1 - p)).squareRoot() * random.normal()).rounded()))
        }
        var detected = 0
        for _ in 0..<experiments {
            var statistics = ["a": ArmStatistics(units: units, sum: converted(baseline)), "b": ArmStatistics(units: units, sum: converted(baseline + effect))]
            // Further arms without an effect, compared too (and adjusted for).
            for index in 0..<(arms - 2) { statistics["null\(index)"] = ArmStatistics(units: units, sum: converted(baseline)) }
            let analysis = try StatisticsEngine.analyze(ExperimentData(
                control: "a", metrics: [MetricData(name: "m", kind: .conversion, arms: statistics)]))
            if let b = analysis.metrics[0].comparisons.first(where: { $0.arm == "b" }), b.sequential.adjustedPValue < 0.05 {
                detected += 1
            }
        }
        return Double(detected) / Double(experiments)
    }

    @Test func theSequentialPlanReachesItsPower() throws {
        let plan = try SampleSizePlan(metric: .conversion(baseline: 0.1), effect: 0.02)
        #expect(plan.test == .sequential)
        #expect(plan.achievedPower >= 0.8)
        let power = try Self.simulatedPower(baseline: 0.1, effect: 0.02, units: plan.unitsPerArm, experiments: 2000, seed: 4)
        print("Sequential plan: \(plan.unitsPerArm) units per arm, simulated power \(power) (planned 0.8)")
        // 2,000 draws: the simulated power's standard error is about 0.009.
        #expect(power >= 0.77)
    }

    @Test func aFixedHorizonPlanUnderpowersTheSequentialTest() throws {
        let fixed = try SampleSizePlan(metric: .conversion(baseline: 0.1), effect: 0.02, test: .fixedHorizon)
        let sequential = try SampleSizePlan(metric: .conversion(baseline: 0.1), effect: 0.02)
        #expect(sequential.unitsPerArm > fixed.unitsPerArm * 1.5)
        let power = try Self.simulatedPower(baseline: 0.1, effect: 0.02, units: fixed.unitsPerArm, experiments: 2000, seed: 5)
        print("Fixed-horizon plan: \(fixed.unitsPerArm) units per arm, the sequential test's simulated power \(power)")
        #expect(power < 0.6)
    }

    @Test func moreArmsAndMetricsNeedMoreUnits() throws {
        let one = try SampleSizePlan(metric: .mean(standardDeviation: 1), effect: 0.1)
        let many = try SampleSizePlan(metric: .mean(standardDeviation: 1), effect: 0.1, arms: 4, metrics: 3)
        #expect(many.comparisons == 9)
        #expect(abs(many.alphaPerComparison - 0.05 / 9) < 1e-15)
        #expect(many.unitsPerArm > one.unitsPerArm)
        #expect(many.totalUnits == many.unitsPerArm * 4)
    }

    @Test func theDetectableEffectInvertsThePlan() throws {
        let plan = try SampleSizePlan(metric: .mean(standardDeviation: 2), effect: 0.15, power: 0.9)
        let effect = try SampleSizePlan.minimumDetectableEffect(metric: .mean(standardDeviation: 2), unitsPerArm: plan.unitsPerArm, power: 0.9)
        // The plan rounds the units up, so the detectable effect at that size is at most 0.15 and close to it.
        #expect(effect <= 0.15 && effect > 0.149)
        let conversion = try SampleSizePlan.minimumDetectableEffect(metric: .conversion(baseline: 0.05), unitsPerArm: 20_000)
        let back = try SampleSizePlan(metric: .conversion(baseline: 0.05), effect: conversion)
        #expect(abs(back.unitsPerArm - 20_000) <= 2)
    }

    @Test func aWiderMixingWidthChangesThePlan() throws {
        let narrow = try SampleSizePlan(metric: .mean(standardDeviation: 1), effect: 0.05, mixingWidth: 0.02)
        let usual = try SampleSizePlan(metric: .mean(standardDeviation: 1), effect: 0.05)
        #expect(narrow.mixingWidth == 0.02 && usual.mixingWidth == 0.1)
        #expect(narrow.unitsPerArm != usual.unitsPerArm)
    }
}
