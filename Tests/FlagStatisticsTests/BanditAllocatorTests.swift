import Foundation
import Testing

@testable import FlagStatistics

/// The bandit allocator against scipy's figures (quad over scipy's beta, and a Monte Carlo of its
/// posteriors: `BanditScipyFixtures.swift`, written by `scripts/statistics/compare_bandit.py
/// --write-fixtures`), its weights, its refusals and its stopping rule.
struct BanditAllocatorTests {
    static func data(_ fixture: BanditScipyFixture) -> BanditData {
        BanditData(
            arms: fixture.arms.map { BanditArm(name: $0.name, units: $0.units, conversions: $0.conversions) },
            prior: BetaPrior(alpha: fixture.prior.alpha, beta: fixture.prior.beta))
    }

    static func arms(_ counts: [(Double, Double)]) -> [BanditArm] {
        counts.enumerated().map { BanditArm(name: "arm\($0.offset)", units: $0.element.0, conversions: $0.element.1) }
    }

    @Test(arguments: BanditScipyFixture.all.indices)
    func theChanceOfBeingBestAndTheExpectedLossAreScipys(index: Int) throws {
        let fixture = BanditScipyFixture.all[index]
        let allocation = try BanditAllocator.allocate(Self.data(fixture))
        for (arm, result) in allocation.arms.enumerated() {
            #expect(
                abs(result.probabilityToBeBest - fixture.probabilityToBeBest[arm]) <= 1e-9,
                "\(fixture.name), \(result.name): P(best) \(result.probabilityToBeBest), scipy \(fixture.probabilityToBeBest[arm])")
            #expect(
                abs(result.expectedLoss - fixture.expectedLoss[arm]) <= 1e-10,
                "\(fixture.name), \(result.name): expected loss \(result.expectedLoss), scipy \(fixture.expectedLoss[arm])")
            // The draws: another route altogether, so a formula wrong in both integrals shows here.
            let (drawn, error) = fixture.monteCarloProbability[arm]
            #expect(abs(result.probabilityToBeBest - drawn) <= 5 * error + 1e-6, "\(fixture.name), \(result.name): Monte Carlo \(drawn)")
        }
        #expect(abs(allocation.arms.map(\.probabilityToBeBest).reduce(0, +) - 1) < 1e-12)
    }

    @Test func theBetaDistributionKeepsItsPrecisionAtABillionUnits() {
        // (a, b, x, density, cdf) from scipy.stats.beta (Boost) 1.17.1; the textbook density loses
        // about six digits at these sizes.
        let cases: [(Double, Double, Double, Double, Double)] = [
            (50_000_001.0, 950_000_001.0, 0.04999310887557553, 35111.85924804448, 0.15865525336449052),
            (50_000_001.0, 950_000_001.0, 0.05001723096106118, 2544.1724678179467, 0.9937863287979222),
            (3.0, 7.0, 0.3, 2.6682793199999986, 0.5371688339999998),
            (0.5, 40.5, 0.06300232254849368, 1.090950970689842, 0.9779111487649005),
            (1.0, 1_000_000_001.0, 1.9999999949999998e-09, 135335283.77795386, 0.864664716628052),
            (400_000_001.0, 600_000_001.0, 0.39999535261999114, 24618.57013495687, 0.3820900714157715),
        ]
        for (a, b, x, density, cdf) in cases {
            let beta = BetaDistribution(a: a, b: b)
            #expect(abs(beta.density(x) - density) <= 1e-10 * density, "density of Beta(\(a), \(b)) at \(x): \(beta.density(x))")
            #expect(abs(beta.cdf(x) - cdf) <= 1e-11, "cdf of Beta(\(a), \(b)) at \(x): \(beta.cdf(x))")
        }
    }

    @Test func theWeightsAreWholeBasisPointsAddingUpToTheTotal() throws {
        let data = BanditData(arms: Self.arms([(5000, 410), (5021, 468)]), minimumShare: 0.05)
        let allocation = try BanditAllocator.allocate(data)
        // 500 each, and 9,000 by P(best) = 0.02365, 0.97635: 212.83 and 8787.17, the remainder to the first.
        #expect(allocation.arms.map(\.weight) == [713, 9287])
        #expect(allocation.arms.map(\.share) == [0.0713, 0.9287])
        #expect(allocation.weightTotal == 10_000)
        #expect(allocation.leader == "arm1")
    }

    @Test func tiedRemaindersGoToTheEarlierArms() {
        #expect(BanditAllocator.weights(probabilities: [1, 1, 1], minimumWeight: 0) == [3334, 3333, 3333])
        #expect(BanditAllocator.weights(probabilities: [1, 1, 1, 1, 1, 1, 1], minimumWeight: 100) == [1429, 1429, 1429, 1429, 1428, 1428, 1428])
        #expect(BanditAllocator.weights(probabilities: [0, 1], minimumWeight: 0) == [0, 10_000])
        #expect(BanditAllocator.weights(probabilities: [0.3, 0.7], minimumWeight: 5000) == [5000, 5000])
    }

    @Test(arguments: [0.0, 0.0001, 0.01, 0.05, 0.1, 0.1666])
    func everyArmKeepsItsMinimumShare(minimumShare: Double) throws {
        // One arm far ahead: the others get exactly the minimum.
        let counts: [(Double, Double)] = [(100_000, 12_000), (100_000, 9_000), (100_000, 9_100), (50, 1), (0, 0), (7, 7)]
        let allocation = try BanditAllocator.allocate(
            BanditData(arms: Self.arms(counts), minimumShare: minimumShare))
        let minimum = Int((minimumShare * 10_000).rounded())
        #expect(allocation.arms.map(\.weight).reduce(0, +) == 10_000)
        #expect(allocation.arms.allSatisfy { $0.weight >= minimum })
        #expect(allocation.arms[1].weight == minimum && allocation.arms[2].weight == minimum)
    }

    @Test func theSameDataGiveTheSameWeightsWhateverTheArmsAreCalled() throws {
        let first = try BanditAllocator.allocate(BanditData(arms: Self.arms([(900, 40), (900, 40), (880, 51)])))
        let renamed = try BanditAllocator.allocate(
            BanditData(arms: zip(["x", "y", "z"], Self.arms([(900, 40), (900, 40), (880, 51)])).map {
                BanditArm(name: $0.0, units: $0.1.units, conversions: $0.1.conversions)
            }))
        #expect(first.arms.map(\.weight) == renamed.arms.map(\.weight))
        #expect(first.arms[0].probabilityToBeBest == first.arms[1].probabilityToBeBest)
    }

    @Test func twentyArmsOfABillionUnitsAreComputed() throws {
        let counts = (0..<20).map { (1e9, 5e7 + Double($0) * 3_000) }
        let allocation = try BanditAllocator.allocate(BanditData(arms: Self.arms(counts), minimumShare: 0))
        #expect(abs(allocation.arms.map(\.probabilityToBeBest).reduce(0, +) - 1) < 1e-12)
        #expect(allocation.arms.allSatisfy { $0.probabilityToBeBest.isFinite && $0.expectedLoss.isFinite && $0.expectedLoss >= 0 })
        // Neighbours 3 pp per 10⁶ apart (≈ 0.3 standard deviations of a difference): the last arms share the lead.
        #expect(allocation.leader == "arm19")
        #expect(allocation.arms[19].probabilityToBeBest > allocation.arms[18].probabilityToBeBest)
        #expect(allocation.arms[0].weight == 0)
    }

    static func refusal(_ data: BanditData) -> String? {
        do {
            _ = try BanditAllocator.allocate(data)
            return nil
        } catch {
            return error.path
        }
    }

    @Test func badInputIsRefusedNamingTheField() {
        let two = Self.arms([(10, 1), (10, 2)])
        #expect(Self.refusal(BanditData(arms: Self.arms([(10, 11), (10, 1)]))) == "arms[0].conversions")
        #expect(Self.refusal(BanditData(arms: Self.arms([(10, 1), (10, -1)]))) == "arms[1].conversions")
        #expect(Self.refusal(BanditData(arms: Self.arms([(-1, 0), (10, 1)]))) == "arms[0].units")
        #expect(Self.refusal(BanditData(arms: Self.arms([(.nan, 0), (10, 1)]))) == "arms[0].units")
        #expect(Self.refusal(BanditData(arms: Self.arms([(2e9, 0), (10, 1)]))) == "arms[0].units")
        #expect(Self.refusal(BanditData(arms: Self.arms([(10, .infinity), (10, 1)]))) == "arms[0].conversions")
        #expect(Self.refusal(BanditData(arms: Self.arms([(10, 1)]))) == "arms")
        #expect(Self.refusal(BanditData(arms: Self.arms(Array(repeating: (10, 1), count: 21)))) == "arms")
        #expect(Self.refusal(BanditData(arms: [two[0], two[0]])) == "arms[1].name")
        #expect(Self.refusal(BanditData(arms: [BanditArm(name: "", units: 1, conversions: 0), two[1]])) == "arms[0].name")
        #expect(Self.refusal(BanditData(arms: Self.arms([(1, 0), (1, 0), (1, 0)]), minimumShare: 0.34)) == "minimumShare")
        #expect(Self.refusal(BanditData(arms: two, minimumShare: 0.00005)) == "minimumShare")
        #expect(Self.refusal(BanditData(arms: two, minimumShare: -0.01)) == "minimumShare")
        #expect(Self.refusal(BanditData(arms: two, prior: BetaPrior(alpha: 0.4, beta: 1))) == "prior.alpha")
        #expect(Self.refusal(BanditData(arms: two, prior: BetaPrior(alpha: 1, beta: 2e6))) == "prior.beta")
        #expect(Self.refusal(BanditData(arms: two, stopping: BanditStoppingRule(expectedLossThreshold: -1))) == "stopping.expectedLossThreshold")
        #expect(
            Self.refusal(BanditData(arms: two, stopping: BanditStoppingRule(expectedLossThreshold: 0.01, probabilityToBeBest: 0.4)))
                == "stopping.probabilityToBeBest")
        #expect(
            Self.refusal(BanditData(arms: two, stopping: BanditStoppingRule(expectedLossThreshold: 0.01, maximumDurationSeconds: 60)))
                == "elapsedSeconds")
        #expect(Self.refusal(BanditData(arms: two, elapsedSeconds: -5)) == "elapsedSeconds")
        // The limits themselves are accepted.
        #expect(Self.refusal(BanditData(arms: Self.arms([(1e9, 1e9), (0, 0)]), prior: BetaPrior(alpha: 0.5, beta: 1e6), minimumShare: 0.5)) == nil)
        #expect(Self.refusal(BanditData(arms: Self.arms(Array(repeating: (10, 1), count: 20)), minimumShare: 0.05)) == nil)
    }

    @Test func theMessageSaysWhatIsWrong() throws {
        let error = try #require(throws: StatisticsError.self) {
            try BanditAllocator.allocate(BanditData(arms: Self.arms([(1, 0), (1, 0), (1, 0)]), minimumShare: 0.34))
        }
        #expect(error.description == "minimumShare: 0.34 for each of 3 arms is more than the whole; at most 0.3333")
    }

    static func decision(_ counts: [(Double, Double)], _ rule: BanditStoppingRule, elapsed: Double? = nil) throws -> BanditDecision {
        try BanditAllocator.allocate(BanditData(arms: Self.arms(counts), stopping: rule, elapsedSeconds: elapsed)).decision
    }

    @Test func theStoppingRule() throws {
        let rule = BanditStoppingRule(expectedLossThreshold: 0.0005, minimumUnitsPerArm: 1000, maximumDurationSeconds: 86_400)
        // A clear winner (P(best) ≈ 1).
        let winner = try Self.decision([(20_000, 1000), (20_000, 1300)], rule, elapsed: 60)
        #expect(winner.outcome == .winner && winner.arm == "arm1")
        // The same, before the control has its minimum units: keep collecting, naming it.
        let short = try Self.decision([(900, 45), (20_000, 1300)], rule, elapsed: 60)
        #expect(short.outcome == .keepCollecting && short.arm == nil)
        #expect(short.reason.contains("arm0 has 900.0 of the 1000.0 units"))
        // Equal arms with many units: no winner, but choosing either costs under 0.05 pp.
        let equal = try Self.decision([(2e6, 1e5), (2e6, 1e5)], rule, elapsed: 60)
        #expect(equal.outcome == .negligibleLoss && equal.arm == "arm0")
        // Equal arms with few units: keep collecting until the day is over.
        #expect(try Self.decision([(2000, 100), (2000, 100)], rule, elapsed: 60).outcome == .keepCollecting)
        let late = try Self.decision([(2000, 100), (2000, 100)], rule, elapsed: 86_400)
        #expect(late.outcome == .maximumDuration && late.arm == "arm0")
        // Without a rule, never stop.
        #expect(try BanditAllocator.allocate(BanditData(arms: Self.arms([(20_000, 1000), (20_000, 1300)]))).decision.outcome == .keepCollecting)
        // probabilityToBeBest 1 leaves the decision to the expected loss.
        let lossOnly = BanditStoppingRule(expectedLossThreshold: 0.0005, probabilityToBeBest: 1)
        let chosen = try Self.decision([(20_000, 1000), (20_000, 1300)], lossOnly)
        #expect(chosen.outcome == .negligibleLoss && chosen.arm == "arm1")
    }

    @Test func theAllocationRoundTripsThroughJSON() throws {
        let allocation = try BanditAllocator.allocate(
            BanditData(
                arms: Self.arms([(100, 5), (90, 9)]), prior: .uniform, minimumShare: 0.1,
                stopping: BanditStoppingRule(expectedLossThreshold: 0.001), elapsedSeconds: 10))
        let decoded = try JSONDecoder().decode(BanditAllocation.self, from: JSONEncoder().encode(allocation))
        #expect(decoded == allocation)
    }
}
