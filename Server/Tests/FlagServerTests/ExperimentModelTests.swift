import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import FlagStatistics
import Foundation
import Testing

/// The experiment model: validation, the allocation read from a flag's rule, the lifecycle.
struct ExperimentModelTests {
    static let time = Date(timeIntervalSince1970: 1_800_000_000)

    /// Production with flag `checkout` (on/off/maybe) serving `targeting`, and segment `beta`.
    static func state(targeting: JSONValue?) -> ServerState {
        var state = ServerState()
        state.flags["checkout"] = FlagRecord(key: "checkout", type: .boolean, variants: ["on": true, "off": false, "maybe": false])
        state.environments["production"] = EnvironmentState(
            key: "production", settings: ["checkout": FlagSettings(enabled: true, defaultVariant: "off", targeting: targeting)],
            segments: ["beta": ["in": ["@beta", ["var": "email"]]]])
        return state
    }

    static let split: JSONValue = ["fractional": [["var": "targetingKey"], ["on", 30], ["off", 70]]]

    static func draft(arms: [String] = ["off", "on"], metrics: [String] = ["buy"]) -> Experiment {
        Experiment(
            id: "exp-1", environment: "production", flag: "checkout", control: "off", arms: arms, metrics: metrics, createdAt: time,
            createdBy: "alice")
    }

    static let metric = ExperimentMetric(key: "buy", name: "Purchases", event: "purchase", kind: .conversion)

    @Test
    func anExperimentNamesEachProblemField() {
        let state = Self.state(targeting: Self.split)
        #expect(Self.draft().problems(in: state, metrics: ["buy": Self.metric]).isEmpty)
        var bad = Self.draft(arms: ["off", "ghost", "off"], metrics: [])
        bad.control = "nope"
        bad.alpha = 0.5
        bad.id = "bad id"
        let fields = Set(bad.problems(in: state, metrics: [:]).map(\.field))
        #expect(fields == ["id", "arms", "control", "metrics", "alpha"])
        var unknown = Self.draft(metrics: ["ghost"])
        unknown.flag = "nothing"
        #expect(Set(unknown.problems(in: state, metrics: ["buy": Self.metric]).map(\.field)) == ["flag", "metrics"])
        #expect(Self.draft(arms: ["off"]).problems(in: state, metrics: ["buy": Self.metric]).map(\.field) == ["arms"])
    }

    @Test
    func aMetricNamesEachProblemField() {
        #expect(Self.metric.problems.isEmpty)
        let bad = ExperimentMetric(key: "a b", name: "", event: String(repeating: "e", count: 201), kind: .mean, windowHours: 0)
        #expect(Set(bad.problems.map(\.field)) == ["key", "name", "event", "windowHours"])
        #expect(Self.metric.queryMetric.window == 7 * 24 * 3_600_000)
    }

    @Test
    func theAllocationIsReadFromASplitAloneOrBehindACondition() throws {
        let alone = try #require(ExperimentAllocation.current(flag: "checkout", environment: "production", in: Self.state(targeting: Self.split)))
        #expect(alone.buckets == [.init(variant: "on", weight: 30), .init(variant: "off", weight: 70)])
        #expect(alone.bucketing == ["var": "targetingKey"])
        #expect(alone.condition == nil)
        #expect(alone.variants == ["on": true, "off": false])
        let shares = alone.shares(of: ["off", "on"])
        #expect(shares["on"] == 0.3 && shares["off"] == 0.7)

        let gated: JSONValue = ["if": [["$ref": "beta"], ["fractional": [["on", 1], ["off", 1]]], "off"]]
        let behind = try #require(ExperimentAllocation.current(flag: "checkout", environment: "production", in: Self.state(targeting: gated)))
        #expect(behind.condition == ["$ref": "beta"])
        #expect(behind.segments["beta"] == ["in": ["@beta", ["var": "email"]]])
        #expect(behind.bucketing == nil)

        #expect(ExperimentAllocation.current(flag: "checkout", environment: "production", in: Self.state(targeting: nil)) == nil)
        #expect(ExperimentAllocation.current(flag: "checkout", environment: "production", in: Self.state(targeting: ["if": [true, "on", "off"]])) == nil)
    }

    @Test
    func theLifecycleAllowsOnlyItsTransitions() throws {
        let state = Self.state(targeting: Self.split)
        var experiment = Self.draft()
        #expect(throws: AdminError.self) { try experiment.stop(at: Self.time, by: "a", note: nil) }
        #expect(throws: AdminError.self) { try experiment.ship(arm: "on", at: Self.time, by: "a", note: nil) }
        // No split giving every arm a weight: refused, naming the allocation.
        let onlyOn = ExperimentAllocation(buckets: [.init(variant: "on", weight: 1)])
        do {
            try experiment.start(allocation: onlyOn, at: Self.time, by: "a")
            Issue.record("started without a weight for off")
        } catch {
            guard case .invalid(let problems) = error else { throw error }
            #expect(problems.map(\.field) == ["allocation"])
        }
        #expect(throws: AdminError.self) { try experiment.start(allocation: nil, at: Self.time, by: "a") }
        #expect(experiment.status == .draft)

        try experiment.start(allocation: ExperimentAllocation.current(flag: "checkout", environment: "production", in: state), at: Self.time, by: "a")
        #expect(experiment.status == .running)
        #expect(experiment.armShares == ["on": 0.3, "off": 0.7])
        #expect(throws: AdminError.self) { try experiment.start(allocation: experiment.allocation, at: Self.time, by: "a") }
        let query = experiment.resultsQuery(metrics: [Self.metric])
        #expect(query.start == 1_800_000_000_000 && query.end == nil && query.arms == ["off", "on"])
        #expect(query.metrics.map(\.key) == ["buy"])

        try experiment.stop(at: Self.time.addingTimeInterval(60), by: "b", note: "enough")
        #expect(experiment.status == .stopped && experiment.endedAt == Self.time.addingTimeInterval(60))
        #expect(throws: AdminError.self) { try experiment.stop(at: Self.time, by: "b", note: nil) }
        #expect(throws: AdminError.self) { try experiment.ship(arm: "maybe", at: Self.time, by: "c", note: nil) }
        try experiment.ship(arm: "on", at: Self.time, by: "c", note: nil)
        #expect(experiment.status == .shipped && experiment.shippedArm == "on")
        #expect(experiment.history.map(\.action) == ["created", "started", "stopped", "shipped"])
        #expect(experiment.version == 4)
    }

    @Test
    func shippingReplacesTheSplitWithTheArm() {
        let alone = Experiments.shipped("on", FlagSettings(enabled: true, defaultVariant: "off", targeting: Self.split))
        #expect(alone == FlagSettings(enabled: true, defaultVariant: "on", targeting: nil))
        let gated: JSONValue = ["if": [["$ref": "beta"], ["fractional": [["on", 1], ["off", 1]]], "off"]]
        let behind = Experiments.shipped("on", FlagSettings(enabled: true, defaultVariant: "off", targeting: gated))
        #expect(behind.targeting == ["if": [["$ref": "beta"], "on", "off"]])
        #expect(behind.defaultVariant == "on")
    }

    @Test
    func theGuardRefusesAChangedAllocationOnly() throws {
        let before = Self.state(targeting: Self.split)
        var experiment = Self.draft()
        try experiment.start(allocation: ExperimentAllocation.current(flag: "checkout", environment: "production", in: before), at: Self.time, by: "a")
        var delta = StateDelta()
        delta.settings["production"] = ["checkout"]
        var reweighted = before
        reweighted.environments["production"]?.settings["checkout"]?.targeting = ["fractional": [["var": "targetingKey"], ["on", 50], ["off", 50]]]
        let message = try #require(ExperimentGuard.refusal([experiment], after: reweighted, changedBy: delta, exempting: nil))
        #expect(message.contains("\"exp-1\"") && message.contains("stop") && message.contains("weights"))
        #expect(ExperimentGuard.refusal([experiment], after: reweighted, changedBy: delta, exempting: "exp-1") == nil)
        var killed = before
        killed.environments["production"]?.settings["checkout"]?.enabled = false
        killed.environments["production"]?.settings["checkout"]?.defaultVariant = "on"
        #expect(ExperimentGuard.refusal([experiment], after: killed, changedBy: delta, exempting: nil) == nil)
        var rebucketed = before
        rebucketed.environments["production"]?.settings["checkout"]?.targeting = ["fractional": [["cat": ["x", ["var": "targetingKey"]]], ["on", 30], ["off", 70]]]
        #expect(ExperimentGuard.refusal([experiment], after: rebucketed, changedBy: delta, exempting: nil)?.contains("bucketing") == true)
        var revalued = before
        revalued.flags["checkout"]?.variants["on"] = false
        var definition = StateDelta()
        definition.flags = ["checkout"]
        #expect(ExperimentGuard.refusal([experiment], after: revalued, changedBy: definition, exempting: nil)?.contains("values") == true)
    }
}
