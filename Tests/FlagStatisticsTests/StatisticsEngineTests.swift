import Foundation
import Testing

@testable import FlagStatistics

struct StatisticsEngineTests {
    /// Raw per-unit values → sufficient statistics, as an exporter would compute them.
    static func statistics(_ values: [(y: Double, x: Double)]) -> ArmStatistics {
        ArmStatistics(
            units: Double(values.count), sum: values.map(\.y).reduce(0, +), sumOfSquares: values.map { $0.y * $0.y }.reduce(0, +),
            covariateSum: values.map(\.x).reduce(0, +), covariateSumOfSquares: values.map { $0.x * $0.x }.reduce(0, +),
            sumOfProducts: values.map { $0.x * $0.y }.reduce(0, +))
    }

    @Test func cupedFromSufficientStatisticsEqualsAdjustingEveryUnit() throws {
        var random = SplitMix64(seed: 42)
        func arm(_ count: Int, lift: Double) -> [(y: Double, x: Double)] {
            (0..<count).map { _ in
                let x = 10 + 3 * random.normal()
                return (y: 0.8 * x + lift + random.normal(), x: x)
            }
        }
        let control = arm(400, lift: 0), treatment = arm(380, lift: 0.3)
        let analysis = try StatisticsEngine.analyze(ExperimentData(
            control: "off",
            metrics: [MetricData(name: "revenue", kind: .mean, arms: ["off": Self.statistics(control), "on": Self.statistics(treatment)])]))
        let metric = analysis.metrics[0]
        // Independently: θ by least squares over all units, then each unit adjusted.
        let all = control + treatment
        let meanX = all.map(\.x).reduce(0, +) / Double(all.count)
        let meanY = all.map(\.y).reduce(0, +) / Double(all.count)
        let theta = all.map { ($0.x - meanX) * ($0.y - meanY) }.reduce(0, +) / all.map { ($0.x - meanX) * ($0.x - meanX) }.reduce(0, +)
        func adjusted(_ values: [(y: Double, x: Double)]) -> (mean: Double, variance: Double) {
            let ys = values.map { $0.y - theta * ($0.x - meanX) }
            let mean = ys.reduce(0, +) / Double(ys.count)
            return (mean, ys.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(ys.count - 1))
        }
        let (c, t) = (adjusted(control), adjusted(treatment))
        #expect(abs(metric.cuped!.theta - theta) < 1e-9)
        #expect(abs(metric.arms[0].mean - c.mean) < 1e-9 && abs(metric.arms[1].mean - t.mean) < 1e-9)
        #expect(abs(metric.arms[0].variance - c.variance) < 1e-9 && abs(metric.arms[1].variance - t.variance) < 1e-9)
        // The covariate explains most of the variance here: the interval narrows by far.
        #expect(metric.cuped!.varianceReduction > 0.8)
    }

    @Test func aConversionMetricNeedsNoSumOfSquares() throws {
        let analysis = try StatisticsEngine.analyze(ExperimentData(
            control: "off", allocation: ["off": 1, "on": 1],
            metrics: [MetricData(name: "checkout", kind: .conversion, arms: [
                "off": ArmStatistics(units: 5000, sum: 410), "on": ArmStatistics(units: 5021, sum: 468),
            ])]))
        let arm = analysis.metrics[0].arms[1]
        let p = 468.0 / 5021
        #expect(abs(arm.variance - p * (1 - p) * 5021 / 5020) < 1e-15)
        #expect(analysis.sampleRatio?.mismatch == false)
        #expect(analysis.metrics[0].comparisons[0].relative != nil)
    }

    @Test func badInputIsRefusedWithWhereItIs() {
        func refusal(_ data: ExperimentData) -> String? {
            do { _ = try StatisticsEngine.analyze(data); return nil } catch { return error.path }
        }
        let good = ArmStatistics(units: 100, sum: 10)
        #expect(refusal(ExperimentData(control: "x", metrics: [MetricData(name: "m", kind: .conversion, arms: ["off": good, "on": good])])) == "metrics[0].arms")
        #expect(refusal(ExperimentData(control: "off", metrics: [MetricData(name: "m", kind: .conversion, arms: ["off": good, "on": ArmStatistics(units: 100, sum: 101)])])) == "metrics[0].arms.on.sum")
        #expect(refusal(ExperimentData(control: "off", metrics: [MetricData(name: "m", kind: .mean, arms: ["off": good, "on": good])])) != nil)
        #expect(refusal(ExperimentData(control: "off", metrics: [MetricData(name: "m", kind: .mean, arms: [
            "off": ArmStatistics(units: 10, sum: 10, sumOfSquares: 5), "on": ArmStatistics(units: 10, sum: 10, sumOfSquares: 20),
        ])])) == "metrics[0].arms.off.sumOfSquares")
        #expect(refusal(ExperimentData(control: "off", alpha: 1.5, metrics: [MetricData(name: "m", kind: .conversion, arms: ["off": good, "on": good])])) == "alpha")
        #expect(refusal(ExperimentData(control: "off", metrics: [MetricData(name: "m", kind: .conversion, arms: ["off": ArmStatistics(units: 1, sum: 0), "on": good])])) == "metrics[0].arms.off.units")
        #expect(refusal(ExperimentData(control: "off", metrics: [MetricData(name: "m", kind: .mean, arms: [
            "off": ArmStatistics(units: 10, sum: 1e200, sumOfSquares: 1e300), "on": ArmStatistics(units: 10, sum: 10, sumOfSquares: 20),
        ])])) == "metrics[0].arms.off.sum")
        var partial = good
        partial.covariateSum = 3
        partial.covariateSumOfSquares = 9
        partial.sumOfProducts = 2
        #expect(refusal(ExperimentData(control: "off", metrics: [MetricData(name: "m", kind: .conversion, arms: ["off": partial, "on": good])])) == "metrics[0].arms")
        #expect(refusal(ExperimentData(control: "off", allocation: ["off": 1, "on": 0], metrics: [MetricData(name: "m", kind: .conversion, arms: ["off": good, "on": good])])) == "allocation.on")
    }

    @Test func theFixedHorizonSampleSizeGivesThePlannedPower() throws {
        // Mean metric: with n per arm, the normal approximation's power at δ is Φ(δ/√(2σ²/n) − z).
        let plan = try SampleSizePlan(
            metric: .mean(standardDeviation: 12.5), effect: 1, alpha: 0.05, power: 0.9, test: .fixedHorizon, unitsPerDay: 1000)
        let power = Normal.cdf(1 / (2 * 12.5 * 12.5 / plan.unitsPerArm).squareRoot() - Normal.quantile(0.975))
        #expect(power >= 0.9 && power < 0.9001)
        #expect(plan.days == (plan.totalUnits / 1000).rounded(.up))
        // Conversion: at n, the two-proportion test's power (same approximation) is the one asked.
        let conversion = try SampleSizePlan(metric: .conversion(baseline: 0.08), effect: 0.01, power: 0.8, test: .fixedHorizon)
        let (p1, p2, n) = (0.08, 0.09, conversion.unitsPerArm)
        let pooled = (p1 + p2) / 2
        let z = (0.01 * n.squareRoot() - Normal.quantile(0.975) * (2 * pooled * (1 - pooled)).squareRoot())
            / (p1 * (1 - p1) + p2 * (1 - p2)).squareRoot()
        #expect(Normal.cdf(z) >= 0.8 && Normal.cdf(z) < 0.8005)
    }
}
