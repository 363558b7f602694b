import FlagServerModel
public import FlagStatistics
import Foundation

/// Guardrails on a stored experiment metric (``RolloutGuardrail/Metric/experimentMetric``): the
/// metric per unit, counted by the event store's incremental experiment counter
/// (``ExperimentResultsStore``) under a key of the plan's run, and judged by the same mixture
/// sequential test as the rate guardrails (`Server/Docs/Rollouts.md`).
extension RolloutGuardrail {
    /// Compares the new variant's mean per unit with the old one's from each arm's sufficient
    /// statistics (units n, Σy, Σy²): the difference of the means, its Welch variance
    /// s²_new/n_new + s²_old/n_old with the sample variances s² = (Σy² − (Σy)²/n)/(n − 1) (for a
    /// conversion Σy² = Σy), and the mixture sequential test with τ² = 0.01 × the pooled variance,
    /// as ``evaluate(old:new:oldVariant:newVariant:alpha:)`` does for rates. A ratio metric
    /// compares the arms' ratios Σn/Σd, each with its delta-method variance
    /// (``StatisticalTests/ratio(units:numeratorSum:numeratorSumOfSquares:denominatorSum:denominatorSumOfSquares:sumOfProducts:)``),
    /// τ² from the variance per unit of denominator pooled over both arms, as the rate guardrails
    /// do per session. A regression is the always-valid interval entirely beyond the tolerance in
    /// the harmful direction.
    ///
    /// The finding's trials are the units, its events the sum Σy (rounded: converted units for a
    /// conversion, events for a count, the summed value for a mean or the numerators of a
    /// ratio), its rates the means (the ratios).
    ///
    /// - Returns: `nil` while either variant has fewer than `minimumUnits` units, a ratio's
    ///   denominators sum to 0 in either, or the difference has no variance: not enough data.
    public func evaluate(
        old: ArmStatistics, new: ArmStatistics, kind: MetricData.Kind, oldVariant: String, newVariant: String, alpha: Double,
        minimumUnits: Int = RolloutGuardrail.defaultMinimumUnits
    ) -> GuardrailFinding? {
        let least = Double(max(2, minimumUnits))
        guard old.units >= least, new.units >= least else { return nil }
        /// The arm's mean (a ratio metric's ratio), the variance of that estimate, and the
        /// variance of one draw (a unit; for a ratio, one unit of the denominator) with its weight.
        func arm(_ statistics: ArmStatistics) -> (mean: Double, variance: Double, spread: Double, weight: Double)? {
            let units = statistics.units
            if kind == .ratio {
                guard let denominators = statistics.denominatorSum,
                    let ratio = StatisticalTests.ratio(
                        units: units, numeratorSum: statistics.sum, numeratorSumOfSquares: statistics.sumOfSquares ?? 0,
                        denominatorSum: denominators, denominatorSumOfSquares: statistics.denominatorSumOfSquares ?? 0,
                        sumOfProducts: statistics.sumOfProducts ?? 0)
                else { return nil }
                return (ratio.ratio, ratio.variance, ratio.variance * denominators, denominators)
            }
            let squares = kind == .conversion ? statistics.sum : (statistics.sumOfSquares ?? statistics.sum)
            let variance = max(0, (squares - statistics.sum * statistics.sum / units) / (units - 1))
            return (statistics.sum / units, variance / units, variance, units - 1)
        }
        guard let a = arm(old), let b = arm(new) else { return nil }
        let difference = b.mean - a.mean
        let variance = b.variance + a.variance
        let pooled = (a.weight * a.spread + b.weight * b.spread) / (a.weight + b.weight)
        guard
            let interval = StatisticalTests.mixtureSequential(
                difference: difference, variance: variance, mixingVariance: 0.01 * pooled, alpha: alpha)
        else { return nil }
        let regression = direction == .increase ? interval.lower > tolerance : interval.upper < -tolerance
        return GuardrailFinding(
            metric: name, oldVariant: oldVariant, newVariant: newVariant, oldTrials: Int(old.units), newTrials: Int(new.units),
            oldEvents: Int(old.sum.rounded()), newEvents: Int(new.sum.rounded()), oldRate: a.mean, newRate: b.mean,
            difference: difference, lower: interval.lower, upper: interval.upper, alpha: alpha, tolerance: tolerance,
            direction: direction, regression: regression, kind: kind.rawValue)
    }
}

extension RolloutPlan {
    /// The key of this run's incremental counts in the event store:
    /// `rollout:<plan id>:<run start in milliseconds>` (a new run counts afresh).
    var metricResultsKey: String? {
        runStartedAt.map { "rollout:\(id):\(Self.milliseconds($0))" }
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }

    /// The stored metric keys its experiment-metric guardrails name.
    var experimentMetricKeys: [String] {
        var seen: Set<String> = []
        return guardrails.compactMap { $0.metric == .experimentMetric ? $0.metricKey : nil }.filter { seen.insert($0).inserted }
    }
}

extension Rollouts {
    /// Refuses guardrails naming a metric that is not stored, or is archived (400 naming the
    /// field). A plan's guardrail whose metric is archived afterwards keeps reading it.
    func checkMetricKeys(_ guardrails: [RolloutGuardrail]) async throws(AdminError) {
        guard guardrails.contains(where: { $0.metric == .experimentMetric }) else { return }
        guard let metrics = admin.store.capabilities.experiments else {
            throw .badRequest("guardrails: experiment_metric needs the experiments' metrics, which this server does not store")
        }
        let stored: [String: ExperimentMetric]
        do {
            stored = Dictionary(try await metrics.experimentMetrics().map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        } catch { throw AdminError(store: error) }
        for (index, guardrail) in guardrails.enumerated() where guardrail.metric == .experimentMetric {
            guard let key = guardrail.metricKey else { continue }
            guard let metric = stored[key] else {
                throw .badRequest("guardrails[\(index)].metricKey: metric \"\(key)\" does not exist")
            }
            if metric.archived {
                throw .badRequest("guardrails[\(index)].metricKey: metric \"\(key)\" is archived; restore it to name it in a guardrail")
            }
        }
    }

    /// The findings of `plan`'s experiment-metric guardrails: the run's units per variant (by
    /// first exposure at or after the run's start) and their metrics, counted incrementally by
    /// the event store under ``RolloutPlan/metricResultsKey``. None without a results-counting
    /// event store; a guardrail whose metric was deleted since is skipped.
    func metricFindings(_ plan: RolloutPlan) async throws(AdminError) -> [GuardrailFinding] {
        let keys = plan.experimentMetricKeys
        guard !keys.isEmpty, let key = plan.metricResultsKey, let runStart = plan.runStartedAt,
            let results = results, let metricStore = admin.store.capabilities.experiments
        else { return [] }
        do {
            let stored = Dictionary(try await metricStore.experimentMetrics().map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
            let metrics = keys.compactMap { stored[$0] }
            guard !metrics.isEmpty else { return [] }
            let query = ExperimentResultsQuery(
                experiment: key, environment: plan.environment, flag: plan.flag, arms: [plan.oldVariant, plan.newVariant],
                start: RolloutPlan.milliseconds(runStart), end: nil,
                metrics: metrics.map { metric in
                    var counted = metric.queryMetric
                    counted.covariate = false
                    return counted
                })
            let totals = try await results.updateResults(query, now: RolloutPlan.milliseconds(now()))
            var findings: [GuardrailFinding] = []
            for guardrail in plan.guardrails where guardrail.metric == .experimentMetric {
                guard let metricKey = guardrail.metricKey, let metric = stored[metricKey] else { continue }
                let arms = totals.metrics[metricKey] ?? [:]
                let empty = ArmStatistics(units: 0, sum: 0, sumOfSquares: 0)
                if let finding = guardrail.evaluate(
                    old: arms[plan.oldVariant] ?? empty, new: arms[plan.newVariant] ?? empty, kind: metric.kind,
                    oldVariant: plan.oldVariant, newVariant: plan.newVariant, alpha: plan.alpha,
                    minimumUnits: plan.minimumUnits ?? RolloutGuardrail.defaultMinimumUnits)
                {
                    findings.append(finding)
                }
            }
            return findings
        } catch {
            throw AdminError(store: error)
        }
    }

    /// Forgets the counts of `plan`'s current run (a finished, rolled-back or deleted plan); a
    /// failure only leaves the state behind.
    func forgetMetricCounts(_ plan: RolloutPlan) async {
        guard !plan.experimentMetricKeys.isEmpty, let key = plan.metricResultsKey, let results = results
        else { return }
        try? await results.deleteResults(experiment: key)
    }
}
