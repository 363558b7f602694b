@testable import FlagServer
@testable import FlagServerModel
import FlagServerAPI
import Testing

/// The console's steps field, the admin API's plan validation and `flags rollout` share one limit
/// on steps and one duration grammar (``RolloutStepRules``, ``DurationGrammar``).
struct RolloutStepLimitTests {
    /// `count` steps rising to 100 %, each held an hour, as the console's field takes them.
    static func field(steps count: Int) -> String {
        (1...count).map { "\(Double($0) * 100 / Double(count)) 1h" }.joined(separator: ", ")
    }

    @Test
    func theConsoleRefusesMoreStepsThanAPlanHoldsSayingTheLimitItChecks() throws {
        let most = try ConsoleRoutes.parseSteps(Self.field(steps: 20)).get()
        #expect(most.count == 20)
        for count in [21, 50, 51] {
            #expect(throws: ConsoleRoutes.FormProblems.self) { try ConsoleRoutes.parseSteps(Self.field(steps: count)).get() }
            if case .failure(let failure) = ConsoleRoutes.parseSteps(Self.field(steps: count)) {
                #expect(failure.problems == ["steps: at most \(RolloutStepRules.maximumSteps) steps"])
            }
        }
        #expect(RolloutPlan.maximumSteps == RolloutStepRules.maximumSteps)
        #expect(RolloutPlan.maximumDurationSeconds == RolloutStepRules.maximumDurationSeconds)
    }

    @Test
    func theConsoleReadsDurationsWithTheSharedGrammar() {
        for text in ["90s", "30m", "30min", "2h", "2d", "1h30m", "1d12h", "2H"] {
            #expect(ConsoleRoutes.parseDuration(text) == (try? DurationGrammar.seconds(text)))
        }
        #expect(ConsoleRoutes.parseDuration("90") == 90)
        #expect(ConsoleRoutes.parseDuration("366d") == 366 * 86_400)
        #expect(ConsoleRoutes.parseDuration("367d") == nil)
    }

    @Test
    func thePlansValidationIsTheSharedRules() {
        let steps: [RolloutPlan.Step] = [.init(percent: 5, durationSeconds: 0), .init(percent: 2.5, durationSeconds: 60)]
        #expect(
            RolloutPlan.problems(steps: steps, guardrails: [], alpha: 0.05, interval: 60)
                == RolloutStepRules.problems(steps: steps.map { ($0.percent, $0.durationSeconds) }))
    }
}
