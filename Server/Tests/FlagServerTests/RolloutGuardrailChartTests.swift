@testable import FlagServer
@testable import FlagServerModel
import Foundation
import Testing

/// Each evaluation of a plan's guardrails is kept (the newest 96) and charted on the plan's page:
/// the difference and its always-valid interval over the run, with the tolerance line.
struct RolloutGuardrailChartTests {
    static let guardrail = RolloutGuardrail(metric: .crashRate, tolerance: 0.001, direction: .increase)

    static func finding(old: Int, new: Int) throws -> GuardrailFinding {
        try #require(guardrail.evaluate(old: (1000, old), new: (1000, new), oldVariant: "off", newVariant: "on", alpha: 0.05))
    }

    @Test
    func aPlanKeepsTheNewestEvaluationsAndNoneWithoutFindings() throws {
        var plan = RolloutGuardrailTests.plan()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        plan.recordEvaluation(at: start, step: 0, findings: [])
        #expect(plan.evaluations == nil)
        let finding = try Self.finding(old: 20, new: 22)
        for index in 0..<100 {
            plan.recordEvaluation(at: start.addingTimeInterval(Double(index) * 300), step: index / 50, findings: [finding])
        }
        let kept = try #require(plan.evaluations)
        #expect(kept.count == RolloutPlan.maximumEvaluations)
        #expect(kept.first?.time == start.addingTimeInterval(4 * 300))
        #expect(kept.last?.step == 1)
        #expect(kept.last?.points == [GuardrailEvaluation.Point(finding)])
        // The plan's document round-trips them; one without them (stored before) still decodes.
        let decoded = try JSONDecoder().decode(RolloutPlan.self, from: JSONEncoder().encode(plan))
        #expect(decoded.evaluations == kept)
        plan.evaluations = nil
        #expect(try JSONDecoder().decode(RolloutPlan.self, from: JSONEncoder().encode(plan)).evaluations == nil)
    }

    @Test
    func theExecutorRecordsEveryEvaluationOfTheRun() async throws {
        let outcome = try await RolloutSimulationTests.run(seed: 5, units: 400, oldRate: 0.02, newRate: 0.02)
        let evaluations = try #require(outcome.plan.evaluations)
        // One per interval once both variants have the plan's minimum of units (100): the first
        // step serves 10 % of 400 units, 40, so it is held without a finding.
        #expect(evaluations.count < outcome.intervals && evaluations.count > 1)
        #expect(evaluations.allSatisfy { $0.points.map(\.metric) == ["crash rate"] })
        #expect(evaluations.allSatisfy { $0.points[0].newTrials >= RolloutGuardrail.defaultMinimumUnits })
        #expect(evaluations.map(\.step) == evaluations.map(\.step).sorted())
        #expect(Set(evaluations.map(\.step)) == [1, 2])
        // The last interval is the narrowest: more sessions on both sides.
        let widths = evaluations.map { $0.points[0].upper - $0.points[0].lower }
        #expect(try #require(widths.last) < (try #require(widths.first)))
    }

    @Test
    func thePlanPageChartsEachGuardrailWithItsToleranceLine() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("search", defaultVariant: "off")
            let store = try #require(server.server.admin.store as? any RolloutStore)
            let time = Date(timeIntervalSince1970: 1_800_000_000)
            var plan = RolloutPlan(
                id: "ro-charted", flag: "search", environment: "production", oldVariant: "off", newVariant: "on",
                steps: [.init(percent: 10, durationSeconds: 60), .init(percent: 100, durationSeconds: 60)],
                guardrails: [Self.guardrail, RolloutGuardrail(metric: .errorRate, tolerance: 0.01, direction: .increase)],
                onRegression: .pause, salt: "salt", createdAt: time, actor: "test")
            plan.status = .paused
            plan.currentStep = 0
            plan.runStartedAt = time
            let findings = [try Self.finding(old: 20, new: 24), try Self.finding(old: 20, new: 40), try Self.finding(old: 20, new: 80)]
            for (index, finding) in findings.enumerated() {
                plan.recordEvaluation(at: time.addingTimeInterval(Double(index + 1) * 300), step: 0, findings: [finding])
            }
            try await store.insertRolloutPlan(plan)

            try await server.consoleUser("vera", role: .viewer)
            let client = ConsoleClient(server)
            try await client.signIn("vera")
            let page = try await client.get("/console/environments/production/rollouts/ro-charted")
            #expect(page.status == 200)
            #expect(page.body.contains(#"id="guardrail-1-chart-title""#))
            #expect(page.body.components(separatedBy: #"<line class="interval"#).count - 1 == 3)
            #expect(page.body.components(separatedBy: #"class="interval excludes-zero regression""#).count - 1 == findings.filter(\.regression).count)
            #expect(page.body.contains(#"<line class="tolerance""#))
            #expect(page.body.contains("3 evaluation(s) from 2027-01-15 08:05 UTC to 2027-01-15 08:15 UTC."))
            // The error-rate guardrail was never judged: no chart, and the page says so.
            #expect(!page.body.contains(#"id="guardrail-2-chart-title""#))
            #expect(page.body.contains("No evaluation has judged this guardrail yet."))
        }
    }

    @Test
    func aDecreaseGuardrailDrawsItsToleranceBelowZero() throws {
        let guardrail = RolloutGuardrail(metric: .eventRate, event: "purchase", tolerance: 0.02, direction: .decrease)
        let finding = try #require(guardrail.evaluate(old: (1000, 300), new: (1000, 200), oldVariant: "off", newVariant: "on", alpha: 0.05))
        let chart = GuardrailChart(
            guardrail: guardrail, evaluations: [GuardrailEvaluation(time: Date(timeIntervalSince1970: 0), step: 0, points: [.init(finding)])],
            id: "c")
        #expect(chart.threshold == -0.02)
        #expect(chart.y(chart.threshold) > chart.y(0))
        #expect(chart.summary.contains("tolerance line at -2 points"))
    }
}
