import Foundation

/// One evaluation of a plan's guardrails: for each guardrail judged, the difference of the new
/// variant from the old one and its always-valid interval, as the console charts them over time.
public struct GuardrailEvaluation: Sendable, Hashable, Codable {
    public var time: Date
    /// The index of the step served when the guardrails were evaluated.
    public var step: Int
    public var points: [Point]

    /// One guardrail's numbers at one evaluation (the parts of a ``GuardrailFinding`` a chart needs).
    public struct Point: Sendable, Hashable, Codable {
        /// ``GuardrailFinding/metric``: the guardrail's name.
        public var metric: String
        public var difference: Double
        public var lower: Double
        public var upper: Double
        public var oldTrials: Int
        public var newTrials: Int
        public var regression: Bool
        /// ``GuardrailFinding/appVersion`` and ``GuardrailFinding/platform``: set for a stratum's
        /// finding (kept only when it regressed), absent for the pooled one the chart draws.
        public var appVersion: String?
        public var platform: String?

        init(_ finding: GuardrailFinding) {
            metric = finding.metric
            difference = finding.difference
            lower = finding.lower
            upper = finding.upper
            oldTrials = finding.oldTrials
            newTrials = finding.newTrials
            regression = finding.regression
            appVersion = finding.appVersion
            platform = finding.platform
        }
    }
}

extension RolloutPlan {
    /// The most evaluations a plan keeps (the newest): enough for a chart, small enough to keep
    /// the plan's document, written at every evaluation, to a few kilobytes per guardrail.
    static let maximumEvaluations = 96

    /// Records the guardrails' findings of the evaluation at `time` (none: nothing recorded): the
    /// pooled ones, and a stratum's (app version, platform) only when it regressed, so the plan's
    /// document does not grow with the number of app versions.
    mutating func recordEvaluation(at time: Date, step: Int, findings: [GuardrailFinding]) {
        let points = findings.filter { ($0.appVersion == nil && $0.platform == nil) || $0.regression }
        guard !points.isEmpty else { return }
        var kept = evaluations ?? []
        kept.append(GuardrailEvaluation(time: time, step: step, points: points.map(GuardrailEvaluation.Point.init)))
        if kept.count > Self.maximumEvaluations { kept.removeFirst(kept.count - Self.maximumEvaluations) }
        evaluations = kept
    }
}
