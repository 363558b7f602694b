import Foundation

/// One evaluation of a plan's guardrails: for each guardrail judged, the difference of the new
/// variant from the old one and its always-valid interval, as the console charts them over time.
public struct GuardrailEvaluation: Sendable, Hashable, Codable {
    /// When the guardrails were evaluated.
    public var time: Date
    /// The index of the step served when the guardrails were evaluated.
    public var step: Int
    /// One point per guardrail judged (and per stratum that regressed).
    public var points: [Point]

    /// One guardrail's numbers at one evaluation (the parts of a ``GuardrailFinding`` a chart needs).
    public struct Point: Sendable, Hashable, Codable {
        /// ``GuardrailFinding/metric``: the guardrail's name.
        public var metric: String
        /// The new variant's rate minus the old one's.
        public var difference: Double
        /// The lower end of the difference's always-valid interval.
        public var lower: Double
        /// The upper end of the difference's always-valid interval.
        public var upper: Double
        /// The old variant's trials (sessions, or units for an experiment-metric guardrail).
        public var oldTrials: Int
        /// The new variant's trials (sessions, or units for an experiment-metric guardrail).
        public var newTrials: Int
        /// Whether the guardrail found a regression at this evaluation.
        public var regression: Bool
        /// ``GuardrailFinding/appVersion`` and ``GuardrailFinding/platform``: set for a stratum's
        /// finding (kept only when it regressed), absent for the pooled one the chart draws.
        public var appVersion: String?
        /// The stratum's platform; absent for the pooled finding.
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
    package mutating func recordEvaluation(at time: Date, step: Int, findings: [GuardrailFinding]) {
        let points = findings.filter { ($0.appVersion == nil && $0.platform == nil) || $0.regression }
        guard !points.isEmpty else { return }
        var kept = evaluations ?? []
        kept.append(GuardrailEvaluation(time: time, step: step, points: points.map(GuardrailEvaluation.Point.init)))
        if kept.count > Self.maximumEvaluations { kept.removeFirst(kept.count - Self.maximumEvaluations) }
        evaluations = kept
    }
}
