import FlagServerAPI
import Testing

struct RolloutStepRulesTests {
    @Test func rulesFollowedGiveNoProblems() {
        #expect(RolloutStepRules.problems(steps: [(5, 3600), (25.25, 7200), (100, 1)]).isEmpty)
        let most = (1...RolloutStepRules.maximumSteps).map { (Double($0) * 100 / Double(RolloutStepRules.maximumSteps), 60) }
        #expect(RolloutStepRules.problems(steps: most).isEmpty)
    }

    @Test func eachBrokenRuleNamesItsField() {
        #expect(RolloutStepRules.problems(steps: []) == ["steps: 1 to 20 steps"])
        let tooMany = (1...21).map { (Double($0) * 100 / 21, 60) }
        #expect(RolloutStepRules.problems(steps: Array(tooMany)).contains("steps: 1 to 20 steps"))
        #expect(
            RolloutStepRules.problems(steps: [(50, 60), (50, 60), (100.5, 60)]) == [
                "steps[1].percent: must be above the previous step's (50.0) and at most 100",
                "steps[2].percent: must be above the previous step's (50.0) and at most 100",
                "steps: the last step must be 100 (percent)",
            ])
        #expect(RolloutStepRules.problems(steps: [(0.125, 60), (100, 1)]) == ["steps[0].percent: at most two decimals"])
        #expect(
            RolloutStepRules.problems(steps: [(5, 0), (100, 90 * 86_400 + 1)]) == [
                "steps[0].durationSeconds: 1 to 7776000", "steps[1].durationSeconds: 1 to 7776000",
            ])
    }

    @Test func twoDecimalsAreTheFinestShare() {
        #expect(RolloutStepRules.hasAtMostTwoDecimals(0.01))
        #expect(RolloutStepRules.hasAtMostTwoDecimals(12.25))
        #expect(!RolloutStepRules.hasAtMostTwoDecimals(0.005))
    }
}
