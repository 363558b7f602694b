import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import FlagStatistics
import Foundation
import NIOHTTP1
import Synchronization
import Testing

/// Guardrails on a stored experiment metric (`experiment_metric`, Server/Docs/Rollouts.md): the
/// evaluation on sufficient statistics against hand-computed numbers, the executor on exposures
/// and tracked events, and the check of the metric's key where plans and templates are made.
struct RolloutMetricGuardrailTests {
    static let conversion = RolloutGuardrail(metric: .experimentMetric, metricKey: "checkout-conversion", tolerance: 0.01, direction: .decrease)

    @Test
    func aConversionDropIsJudgedPerUnitByTheWelchVariance() throws {
        // 4,000 units per variant; 800 (20 %) converted on "off", 600 (15 %) on "on".
        // s²_off = (800 − 800²/4000)/3999 = 0.1600400, s²_on = (600 − 600²/4000)/3999 = 0.1275319,
        // V = (s²_off + s²_on)/4000 = 7.189297e-5, pooled = 0.1437859, τ² = 0.001437859,
        // half-width √(V(V+τ²)/τ² · (2 ln 20 + ln((V+τ²)/V))) = 0.0261171:
        // −0.05 ± 0.0261171 = [−0.0761171, −0.0238829], entirely below −0.01.
        let old = ArmStatistics(units: 4_000, sum: 800)
        let new = ArmStatistics(units: 4_000, sum: 600)
        let finding = try #require(Self.conversion.evaluate(old: old, new: new, kind: .conversion, oldVariant: "off", newVariant: "on", alpha: 0.05))
        #expect(abs(finding.difference - -0.05) < 1e-12)
        #expect(abs(finding.lower - -0.0761171432) < 1e-9)
        #expect(abs(finding.upper - -0.0238828568) < 1e-9)
        #expect(finding.regression && finding.bound == finding.upper)
        #expect(finding.oldTrials == 4_000 && finding.newTrials == 4_000 && finding.oldEvents == 800 && finding.newEvents == 600)
        #expect(finding.metric == "metric \"checkout-conversion\"" && finding.kind == "conversion")
        #expect(finding.summary.contains("metric \"checkout-conversion\" 15.00 % (on, 600/4000) vs 20.00 % (off, 800/4000): -5.00 points"))
        #expect(finding.summary.contains("upper bound below the tolerance -1.00"))

        // A tolerance wider than the proven drop holds; more conversions are no harm.
        var tolerant = Self.conversion
        tolerant.tolerance = 0.03
        #expect(tolerant.evaluate(old: old, new: new, kind: .conversion, oldVariant: "off", newVariant: "on", alpha: 0.05)?.regression == false)
        let better = try #require(Self.conversion.evaluate(
            old: new, new: old, kind: .conversion, oldVariant: "off", newVariant: "on", alpha: 0.05))
        #expect(!better.regression)
        // Fewer than two units in a variant: nothing to say yet.
        #expect(Self.conversion.evaluate(
            old: ArmStatistics(units: 1, sum: 1), new: new, kind: .conversion, oldVariant: "off", newVariant: "on", alpha: 0.05) == nil)
    }

    @Test
    func aMeanIsJudgedFromTheSumOfSquares() throws {
        // 10,000 units each; "off" mean 10, "on" mean 9.5, both sample variances 4:
        // Σy² = 4 · 9999 + (Σy)²/10000. V = 4/10000 + 4/10000 = 0.0008, pooled 4, τ² = 0.04,
        // half-width √(0.0008 · 0.0408/0.04 · (2 ln 20 + ln 51)) = 0.0899856:
        // −0.5 ± 0.0899856 = [−0.5899856, −0.4100144].
        let old = ArmStatistics(units: 10_000, sum: 100_000, sumOfSquares: 4 * 9_999 + 1_000_000)
        let new = ArmStatistics(units: 10_000, sum: 95_000, sumOfSquares: 4 * 9_999 + 902_500)
        let revenue = RolloutGuardrail(metric: .experimentMetric, metricKey: "revenue", tolerance: 0.1, direction: .decrease)
        let finding = try #require(revenue.evaluate(old: old, new: new, kind: .mean, oldVariant: "off", newVariant: "on", alpha: 0.05))
        #expect(abs(finding.oldRate - 10) < 1e-12 && abs(finding.newRate - 9.5) < 1e-12)
        #expect(abs(finding.lower - -0.5899855810) < 1e-8)
        #expect(abs(finding.upper - -0.4100144190) < 1e-8)
        #expect(finding.regression)
        #expect(finding.summary.contains("metric \"revenue\" mean 9.5 per unit (on, 10000 units) vs 10 (off, 10000 units): -0.5"))
        #expect(finding.summary.contains("upper bound below the tolerance -0.1"))
        // A drop of at most half a unit tolerated: the interval reaches above −0.5.
        var tolerant = revenue
        tolerant.tolerance = 0.5
        #expect(tolerant.evaluate(old: old, new: new, kind: .mean, oldVariant: "off", newVariant: "on", alpha: 0.05)?.regression == false)
        // As an increase guardrail the drop is no harm.
        var increase = revenue
        increase.direction = .increase
        #expect(increase.evaluate(old: old, new: new, kind: .mean, oldVariant: "off", newVariant: "on", alpha: 0.05)?.regression == false)
    }

    @Test
    func guardrailsAreCheckedFieldByField() {
        func problems(_ guardrail: RolloutGuardrail) -> [String] {
            RolloutPlan.problems(steps: [.init(percent: 100, durationSeconds: 60)], guardrails: [guardrail], alpha: 0.05, interval: 60)
        }
        #expect(problems(Self.conversion).isEmpty)
        #expect(problems(RolloutGuardrail(metric: .experimentMetric)).contains { $0.hasPrefix("guardrails[0].metricKey") })
        #expect(problems(RolloutGuardrail(metric: .experimentMetric, metricKey: "no spaces")).contains { $0.hasPrefix("guardrails[0].metricKey") })
        #expect(problems(RolloutGuardrail(metric: .crashRate, metricKey: "buy")) == ["guardrails[0].metricKey: only for experiment_metric"])
        #expect(problems(RolloutGuardrail(metric: .experimentMetric, event: "buy", metricKey: "buy")) == [
            "guardrails[0].event: only for event_rate"
        ])
    }

    // MARK: - Through the admin API

    @Test
    func anUnknownMetricKeyIsA400NamingTheField() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout", enabled: true, defaultVariant: "off")
            let token = server.adminToken
            let metric = try await server.request(
                .POST, "/admin/v1/metrics", token: token,
                body: #"{"key": "checkout-conversion", "name": "Checkout", "event": "purchase", "kind": "conversion"}"#)
            #expect(metric.status == 201)
            let plans = "/admin/v1/environments/production/rollouts"
            func plan(_ key: String) -> String {
                #"{"flag": "checkout", "oldVariant": "off", "newVariant": "on", "steps": [{"percent": 10, "durationSeconds": 60}, {"percent": 100, "durationSeconds": 60}], "guardrails": [{"metric": "crash_rate", "tolerance": 0, "direction": "increase"}, {"metric": "experiment_metric", "metricKey": ""#
                    + key + #"", "tolerance": 0.01, "direction": "decrease"}]}"#
            }
            let unknown = try await server.request(.POST, plans, token: token, body: plan("nope"))
            #expect(unknown.status == 400)
            #expect(unknown.json?["error"]?["message"]?.stringValue?.contains(#"guardrails[1].metricKey: metric "nope" does not exist"#) == true)
            #expect(try await server.request(.GET, plans, token: token).json?.arrayValue?.isEmpty == true)

            let known = try await server.request(.POST, plans, token: token, body: plan("checkout-conversion"))
            #expect(known.status == 201)
            #expect(known.json?["guardrails"]?.arrayValue?.last?["metricKey"] == "checkout-conversion")
            #expect(known.json?["guardrails"]?.arrayValue?.last?["metric"] == "experiment_metric")

            let missing = try await server.request(
                .POST, plans, token: token,
                body: #"{"flag": "checkout", "oldVariant": "off", "newVariant": "on", "steps": [{"percent": 100, "durationSeconds": 60}], "guardrails": [{"metric": "experiment_metric", "tolerance": 0, "direction": "decrease"}]}"#)
            #expect(missing.status == 400)
            #expect(missing.json?["error"]?["message"]?.stringValue?.contains("guardrails[0].metricKey") == true)

            let template = try await server.request(
                .PUT, "/admin/v1/rollout-templates/careful", token: token,
                body: #"{"steps": [{"percent": 100, "durationSeconds": 60}], "guardrails": [{"metric": "experiment_metric", "metricKey": "nope", "tolerance": 0, "direction": "decrease"}]}"#)
            #expect(template.status == 400)
            #expect(template.json?["error"]?["message"]?.stringValue?.contains(#"guardrails[0].metricKey: metric "nope" does not exist"#) == true)
            #expect(try await server.request(.GET, "/admin/v1/rollout-templates/careful", token: token).status == 404)
        }
    }

    // MARK: - The executor

    static let base = 1_800_000_000.0

    /// A rollout of `checkout` (off → on, 10 % first) guarded by the conversion metric
    /// `checkout-conversion` (event `purchase`): 20,000 units exposed to the variant the flag
    /// serves them, of which the share `oldRate` or `newRate` (by variant, every n-th unit)
    /// purchases; then one evaluation interval passes and the executor ticks once.
    static func run(
        _ kind: StoreKind, oldRate: Double, newRate: Double,
        _ check: (TestServer, RolloutExecutor.Outcome?, RolloutPlan) async throws -> Void
    ) async throws {
        let clock = ManualSeconds()
        let now: @Sendable () -> Date = { Date(timeIntervalSince1970: Self.base + clock.value) }
        try await FlagEventStoreCompatibilityTests.with(kind) { events, _ in
            try await TestServer.with(eventStore: events, now: now, rolloutTickInterval: nil) { server in
                try await server.booleanFlag("checkout", enabled: true, defaultVariant: "off")
                let metric = try await server.request(
                    .POST, "/admin/v1/metrics", token: server.adminToken,
                    body: #"{"key": "checkout-conversion", "name": "Checkout", "event": "purchase", "kind": "conversion", "windowHours": 24}"#)
                guard metric.status == 201 else { throw TestFailure("metric: \(metric.status) \(metric.body)") }
                let rollouts = try #require(server.server.rollouts)
                let executor = RolloutExecutor(rollouts: rollouts, replica: "test")
                var plan = RolloutGuardrailTests.plan()
                plan.guardrails = [Self.conversion]
                plan.createdAt = now()
                _ = try await rollouts.create(plan)
                plan = try await rollouts.start(id: plan.id, environment: "production", actor: "ada")

                clock.advance(by: 60)
                let evaluator = try #require(server.server.publisher.current.environments["production"]?.evaluator)
                let time = Int64((now().timeIntervalSince1970 * 1000).rounded())
                var exposures: [EventBatch.Exposure] = []
                var tracked: [EventBatch.Tracked] = []
                var seen: [String: Int] = [:]
                for unit in 0..<20_000 {
                    let key = "user-\(unit)"
                    let variant = evaluator.evaluate(
                        flag: "checkout", type: .boolean, default: false, context: EvaluationContext(targetingKey: key), now: now()
                    ).variant ?? "default"
                    exposures.append(EventBatch.Exposure(
                        flag: "checkout", variant: variant, value: .bool(variant == "on"), reason: "SPLIT", revision: nil, unit: key, time: time))
                    // Every n-th unit of its variant purchases: exact shares, no randomness.
                    let index = seen[variant, default: 0]
                    seen[variant] = index + 1
                    let rate = variant == "on" ? newRate : oldRate
                    if Int(Double(index + 1) * rate) > Int(Double(index) * rate) {
                        tracked.append(EventBatch.Tracked(name: "purchase", unit: key, variants: ["checkout": variant], time: time + 1_000))
                    }
                }
                #expect((seen["on"] ?? 0) > 1_500 && (seen["off"] ?? 0) > 17_000)
                let batch = EventBatch(
                    id: "b1", environment: "production", receivedAt: time + 2_000,
                    source: EventBatch.EventSource(appVersion: "4.2", buildConfiguration: "release", platform: "iOS"),
                    dropped: EventBatch.DroppedEvents(), exposures: exposures, summaries: [], tracked: tracked)
                #expect(try await events.ingest([batch]) == [true])

                clock.advance(by: Double(plan.evaluationIntervalSeconds))
                let outcome = await executor.tick()[plan.id]
                plan = try await rollouts.plan(id: plan.id, environment: "production")
                try await check(server, outcome, plan)
            }
        }
    }

    /// The executor's test runs on both event stores (PostgreSQL with `FLAG_SERVER_TEST_DATABASE_URL`).
    static let kinds: [StoreKind] = [.sqliteMemory, .postgres]

    @Test(arguments: kinds)
    func aConversionThatDropsForTheNewVariantRollsTheRolloutBack(_ kind: StoreKind) async throws {
        try await Self.run(kind, oldRate: 0.2, newRate: 0.1) { server, outcome, plan in
            #expect(outcome == .rolledBack)
            #expect(plan.status == .rolledBack)
            let finding = try #require(plan.history.last?.finding)
            #expect(plan.history.last?.action == .rolledBack)
            #expect(finding.metric == "metric \"checkout-conversion\"" && finding.kind == "conversion" && finding.regression)
            #expect(abs(finding.oldRate - 0.2) < 0.001 && abs(finding.newRate - 0.1) < 0.001)
            #expect(finding.oldTrials + finding.newTrials == 20_000)
            #expect(finding.upper < -0.01)
            let settings = await server.server.admin.state.environments["production"]?.settings["checkout"]
            #expect(settings == FlagSettings(enabled: true, defaultVariant: "off", targeting: nil))
            let audit = try await server.server.admin.store.audit(environment: "production", key: "checkout", limit: 1)
            let reason = try #require(audit.first?.reason)
            #expect(reason.contains("rollout plan-1: rolled back at 10 %"))
            #expect(reason.contains("metric \"checkout-conversion\"") && reason.contains("upper bound below the tolerance -1.00"))
        }
    }

    @Test(arguments: kinds)
    func anEqualConversionKeepsTheRolloutRunning(_ kind: StoreKind) async throws {
        try await Self.run(kind, oldRate: 0.2, newRate: 0.2) { _, outcome, plan in
            #expect(outcome == .evaluated)
            #expect(plan.status == .running && plan.currentStep == 0)
            #expect(!plan.history.contains { $0.action == .regression })
            #expect(plan.lastEvaluatedAt != nil)
        }
    }

    @Test
    func theRunIsCountedUnderItsOwnKeyAndForgottenWhenRolledBack() async throws {
        let clock = ManualSeconds()
        let now: @Sendable () -> Date = { Date(timeIntervalSince1970: Self.base + clock.value) }
        try await TestServer.with(now: now, rolloutTickInterval: nil) { server in
            try await server.booleanFlag("checkout", enabled: true, defaultVariant: "off")
            let metric = try await server.request(
                .POST, "/admin/v1/metrics", token: server.adminToken,
                body: #"{"key": "checkout-conversion", "name": "Checkout", "event": "purchase", "kind": "conversion", "windowHours": 2, "cuped": true}"#)
            #expect(metric.status == 201)
            let counter = RecordingResultsCounter(totals: ExperimentTotals(
                units: ["off": 4_000, "on": 4_000], reassignedUnits: [:],
                metrics: ["checkout-conversion": ["off": ArmStatistics(units: 4_000, sum: 800), "on": ArmStatistics(units: 4_000, sum: 600)]],
                daily: [], countedThrough: 0))
            let stored = try #require(server.server.rollouts)
            let rollouts = Rollouts(admin: stored.admin, store: stored.store, events: counter, results: counter, now: now)
            var plan = RolloutGuardrailTests.plan()
            plan.guardrails = [Self.conversion, RolloutGuardrail(metric: .crashRate)]
            _ = try await rollouts.create(plan)
            plan = try await rollouts.start(id: plan.id, environment: "production", actor: "ada")
            let start = Int64(Self.base * 1000)
            clock.advance(by: 600)
            #expect(await RolloutExecutor(rollouts: rollouts, replica: "test").tick()[plan.id] == .rolledBack)

            let query = try #require(counter.queries.withLock { $0.first })
            #expect(query.experiment == "rollout:plan-1:\(start)")
            #expect(query.environment == "production" && query.flag == "checkout" && query.arms == ["off", "on"])
            #expect(query.start == start && query.end == nil)
            #expect(query.metrics == [.init(key: "checkout-conversion", event: "purchase", kind: .conversion, window: 7_200_000, covariate: false)])
            // The crash-rate guardrail still reads its own per-unit sums (none here).
            #expect(counter.rates.withLock { $0 } == ["$crash"])
            #expect(counter.deleted.withLock { $0 } == ["rollout:plan-1:\(start)"])
            let finding = try #require(try await rollouts.plan(id: plan.id, environment: "production").history.last?.finding)
            #expect(finding.metric == "metric \"checkout-conversion\"" && finding.regression)
        }
    }

    // MARK: - The console

    @Test
    func theConsoleFormTakesAMetricKeyAndThePlanPageShowsAMeanInItsUnits() async throws {
        let clock = ManualSeconds()
        let now: @Sendable () -> Date = { Date(timeIntervalSince1970: Self.base + clock.value) }
        // No executor of the server's own: one ticking after the clock moved would lease the plan
        // first (with the server's empty counter) and the test's executor would find it held.
        try await TestServer.withConsole(now: now, rolloutTickInterval: nil) { server in
            try await server.booleanFlag("checkout", defaultVariant: "off")
            try await server.consoleUser("ada", role: .admin)
            for body in [
                #"{"key": "checkout-conversion", "name": "Checkout", "event": "purchase", "kind": "conversion"}"#,
                #"{"key": "revenue", "name": "Revenue", "event": "purchase", "kind": "mean"}"#,
            ] {
                #expect(try await server.request(.POST, "/admin/v1/metrics", token: server.adminToken, body: body).status == 201)
            }
            let client = ConsoleClient(server)
            try await client.signIn("ada")
            let base = "/console/environments/production/rollouts"
            let csrf = try await client.csrf()
            let blank = try await client.get(base + "/new")
            #expect(blank.body.contains(#"<option value="experiment_metric">"#) && blank.body.contains(#"name="guardrail1-metricKey""#))
            var form: [(String, String)] = [
                ("flag", "checkout"), ("oldVariant", "off"), ("newVariant", "on"), ("template", ""), ("steps", "10 1h, 100"),
                ("guardrail1-metric", "experiment_metric"), ("guardrail1-metricKey", "nope"), ("guardrail1-tolerance", "0.01"),
                ("guardrail1-direction", "decrease"), ("onRegression", ""), ("restart", ""), ("alpha", ""), ("interval", "10m"),
            ]
            // An unknown key: the form comes back as typed, the problem naming the field.
            let refused = try await client.post(base + "/new", form, csrf: csrf)
            #expect(refused.status == 400)
            #expect(refused.body.contains("guardrails[0].metricKey: metric &quot;nope&quot; does not exist"))
            #expect(refused.body.contains(#"value="nope""#))
            form[6] = ("guardrail1-metricKey", "revenue")
            let created = try await client.post(base + "/new", form, csrf: csrf)
            #expect(created.status == 303)
            let id = String(try #require(created.location).dropFirst(base.count + 1).prefix { $0 != "?" })

            // A mean that drops by 0.5 per unit, from fixed totals: rolled back with the finding.
            let counter = RecordingResultsCounter(totals: ExperimentTotals(
                units: ["off": 10_000, "on": 10_000], reassignedUnits: [:],
                metrics: ["revenue": [
                    "off": ArmStatistics(units: 10_000, sum: 100_000, sumOfSquares: 4 * 9_999 + 1_000_000),
                    "on": ArmStatistics(units: 10_000, sum: 95_000, sumOfSquares: 4 * 9_999 + 902_500),
                ]],
                daily: [], countedThrough: 0))
            let stored = try #require(server.server.rollouts)
            let rollouts = Rollouts(admin: stored.admin, store: stored.store, events: counter, results: counter, now: now)
            _ = try await rollouts.start(id: id, environment: "production", actor: "ada")
            clock.advance(by: 600)
            #expect(await RolloutExecutor(rollouts: rollouts, replica: "test").tick()[id] == .rolledBack)

            let page = try await client.get(base + "/" + id)
            #expect(page.status == 200)
            #expect(page.body.contains("metric &quot;revenue&quot;"))
            #expect(page.body.contains(#"<th scope="col">Units</th><th scope="col">Sum</th><th scope="col">Mean per unit</th>"#))
            #expect(page.body.contains("<td>10000</td><td>95000</td><td>9.5</td>"))
            #expect(page.body.contains("Difference -0.5; 95 % always-valid interval [-0.59, -0.41]"))
            #expect(page.body.contains("a tolerance of 0.01 (the metric&#39;s units per unit)") || page.body.contains("a tolerance of 0.01 (the metric&#x27;s units per unit)"))
        }
    }
}

/// Records the experiment-results queries and deletions of the rollout executor and answers
/// fixed totals; no rate counts.
final class RecordingResultsCounter: RolloutEventCounting, ExperimentResultsStore {
    let totals: ExperimentTotals
    let queries = Mutex<[ExperimentResultsQuery]>([])
    let deleted = Mutex<[String]>([])
    let rates = Mutex<[String]>([])

    init(totals: ExperimentTotals) { self.totals = totals }

    func updateResults(_ query: ExperimentResultsQuery, now: Int64) async throws(StoreError) -> ExperimentTotals {
        queries.withLock { $0.append(query) }
        return totals
    }

    func deleteResults(experiment: String) async throws(StoreError) { deleted.withLock { $0.append(experiment) } }

    func unitRatesByVariant(
        environment: String, name: String, sessions: [String], flag: String, since: Int64, capAtSessions: Bool
    ) async throws(StoreError) -> [String: UnitRateSums] {
        rates.withLock { $0.append(name) }
        return [:]
    }

    func guardrailMoments(
        environment: String, name: String, sessions: [String], flag: String, variants: [String], stepStarts: [Int64],
        capAtSessions: Bool
    ) async throws(StoreError) -> [GuardrailMoments] {
        rates.withLock { $0.append(name) }
        return []
    }
}
