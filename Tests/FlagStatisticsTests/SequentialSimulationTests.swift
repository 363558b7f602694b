import Foundation
import Testing

@testable import FlagStatistics

/// Seeded simulations of experiments analysed every day, as a team would look at them.
struct SequentialSimulationTests {
    struct Outcome {
        var sequentialStops = 0
        var naiveStops = 0
    }

    /// `experiments` two-arm experiments of a mean metric (σ = 1), `unitsPerDay` units per arm per
    /// day for `days` days, the treatment shifted by `effect`; each is analysed every day and counts
    /// as a stop the first day its sequential p-value (or, for comparison, its fixed-horizon
    /// p-value, peeked at naively) falls below α.
    static func simulate(experiments: Int, days: Int, unitsPerDay: Int, effect: Double, seed: UInt64) throws -> Outcome {
        var random = SplitMix64(seed: seed)
        var outcome = Outcome()
        for _ in 0..<experiments {
            var arms = [ArmStatistics(units: 0, sum: 0, sumOfSquares: 0), ArmStatistics(units: 0, sum: 0, sumOfSquares: 0)]
            var stoppedSequential = false, stoppedNaive = false
            for _ in 0..<days {
                for arm in 0..<2 {
                    for _ in 0..<unitsPerDay {
                        let y = random.normal() + (arm == 1 ? effect : 0)
                        arms[arm].units += 1
                        arms[arm].sum += y
                        arms[arm].sumOfSquares! += y * y
                    }
                }
                let analysis = try StatisticsEngine.analyze(ExperimentData(
                    control: "a", sequentialMixingStandardDeviation: 0.1,
                    metrics: [MetricData(name: "m", kind: .mean, arms: ["a": arms[0], "b": arms[1]])]))
                let comparison = analysis.metrics[0].comparisons[0]
                if comparison.sequential.pValue < 0.05 { stoppedSequential = true }
                if comparison.absolute.pValue < 0.05 { stoppedNaive = true }
            }
            if stoppedSequential { outcome.sequentialStops += 1 }
            if stoppedNaive { outcome.naiveStops += 1 }
        }
        return outcome
    }

    @Test func aaExperimentsPeekedDailyStayAtOrBelowAlpha() throws {
        let experiments = 2000
        let outcome = try Self.simulate(experiments: experiments, days: 14, unitsPerDay: 100, effect: 0, seed: 2026)
        let sequentialRate = Double(outcome.sequentialStops) / Double(experiments)
        let naiveRate = Double(outcome.naiveStops) / Double(experiments)
        print("A/A, 2,000 experiments × 14 daily looks: sequential false-positive rate \(sequentialRate), naive peeking \(naiveRate)")
        #expect(sequentialRate <= 0.05)
        // The simulation can see peeking's inflation: the naive test stops far more often than α.
        #expect(naiveRate > 0.1)
    }

    @Test func abExperimentsWithAKnownEffectAreDetected() throws {
        // δ = 0.1σ with 2,800 units per arm at the end (the fixed-horizon test's power at the last
        // day alone is Φ(0.1/√(2/2800) − 1.96) = 0.97). The sequential bound at the last look is
        // d ± 0.082 (τ = 0.1), so d > 0.082 alone, P = Φ((0.1 − 0.082)/0.0267) ≈ 0.75, already
        // stops it; earlier looks only add.
        let experiments = 500
        let outcome = try Self.simulate(experiments: experiments, days: 28, unitsPerDay: 100, effect: 0.1, seed: 7)
        let power = Double(outcome.sequentialStops) / Double(experiments)
        print("A/B, δ = 0.1σ, 500 experiments × 28 daily looks: sequential power \(power)")
        #expect(power >= 0.7)
    }
}
