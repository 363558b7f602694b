import Foundation

/// The result of one guardrail at one evaluation: the counts it read, the rates, the always-valid
/// interval of the difference and whether it proves a regression.
public struct GuardrailFinding: Sendable, Hashable, Codable {
    /// ``RolloutGuardrail/name``: `crash rate`, …
    public var metric: String
    /// The variant served before the rollout.
    public var oldVariant: String
    /// The variant being rolled out.
    public var newVariant: String
    /// Sessions (`$session` and `$crash` events) attributed to each variant since the run started;
    /// for an experiment-metric guardrail, units.
    public var oldTrials: Int
    /// The new variant's trials, counted as ``oldTrials`` is.
    public var newTrials: Int
    /// Numerator events (`$crash`, …) attributed to each variant.
    public var oldEvents: Int
    /// The new variant's numerator events, counted as ``oldEvents`` is.
    public var newEvents: Int
    /// Units (the assignment unit) behind each variant's sessions: the test's independent draws.
    /// `nil` for an experiment-metric guardrail, whose trials are units already.
    public var oldUnits: Int? = nil
    /// The units behind the new variant's sessions; `nil` for an experiment-metric guardrail.
    public var newUnits: Int? = nil
    /// The old variant's events per trial.
    public var oldRate: Double
    /// The new variant's events per trial.
    public var newRate: Double
    /// newRate − oldRate.
    public var difference: Double
    /// The always-valid (1 − α) interval of the difference (mixture sequential test).
    public var lower: Double
    /// The upper end of the always-valid (1 − α) interval of the difference.
    public var upper: Double
    /// The sequential test's error rate the interval was computed with.
    public var alpha: Double
    /// The harm tolerated, in the rate's units: a regression is a difference proven beyond it.
    public var tolerance: Double
    /// Which way of the difference is harmful.
    public var direction: RolloutGuardrail.Direction
    /// Whether the interval lies entirely beyond the tolerance in the harmful direction.
    public var regression: Bool
    /// For an experiment-metric guardrail, the metric's kind (`conversion`, `mean`, `count`,
    /// `ratio`): its trials are units and its events the sum (a ratio's numerators) per variant;
    /// `nil` for the rate guardrails.
    public var kind: String? = nil
    /// The stratum the finding judged, when it is not the pooled look: the event source's app
    /// version (with its platform), or a platform alone (`Server/Docs/Rollouts.md`).
    public var appVersion: String? = nil
    /// The stratum's platform, when the finding judged one; `nil` for the pooled look.
    public var platform: String? = nil

    /// How the summary names the stratum: ` in appVersion 2.3.0 (iOS)`, ` on Android`; empty
    /// for the pooled look.
    public var scope: String {
        switch (appVersion, platform) {
        case let (version?, platform?): " in appVersion \(version) (\(platform))"
        case let (version?, nil): " in appVersion \(version)"
        case let (nil, platform?): " on \(platform)"
        case (nil, nil): ""
        }
    }

    /// The bound that crossed (or would cross) the tolerance: the lower bound for an increase,
    /// the upper one for a decrease.
    public var bound: Double { direction == .increase ? lower : upper }

    /// One sentence: "crash rate 4.10 % (new) vs 2.02 % (old): +2.08 points, 95 % interval
    /// [+0.61, +3.55], lower bound above the tolerance +0.00"; a stratum's names it after the
    /// metric ("crash rate in appVersion 2.3.0 (iOS) 4.10 % …"). For a `decrease` guardrail it is
    /// the upper bound against the tolerance below zero: "upper bound below the tolerance -0.50"
    /// (a tolerance of 0 reads +0.00 in both directions).
    public var summary: String {
        func points(_ x: Double) -> String { Self.signed(x * 100, format: "%.2f") }
        let level = String(format: "%g", (1 - alpha) * 100)
        let side = direction == .increase ? "lower bound" : "upper bound"
        let relation = regression ? (direction == .increase ? "above" : "below") : (direction == .increase ? "not above" : "not below")
        let tolerated = direction == .increase ? tolerance : -tolerance
        if kind == "mean" || kind == "count" || kind == "ratio" {
            func plain(_ x: Double, signed: Bool = false) -> String { signed ? Self.signed(x, format: "%.4g") : String(format: "%.4g", x) }
            let per = kind == "ratio" ? "" : " per unit"
            return "\(metric)\(scope) \(kind ?? "") \(plain(newRate))\(per) (\(newVariant), \(newTrials) units) vs \(plain(oldRate)) "
                + "(\(oldVariant), \(oldTrials) units): \(plain(difference, signed: true)), \(level) % always-valid interval "
                + "[\(plain(lower, signed: true)), \(plain(upper, signed: true))], \(side) \(relation) the tolerance \(plain(tolerated, signed: true))"
        }
        return "\(metric)\(scope) \(String(format: "%.2f", newRate * 100)) % (\(newVariant), \(newEvents)/\(newTrials)) vs "
            + "\(String(format: "%.2f", oldRate * 100)) % (\(oldVariant), \(oldEvents)/\(oldTrials)): \(points(difference)) points, "
            + "\(level) % always-valid interval [\(points(lower)), \(points(upper))], \(side) \(relation) the tolerance \(points(tolerated))"
    }

    /// `x` in `format` with its sign always written: `+0.61`, `-0.50`; zero (negative zero
    /// included, as a `decrease` guardrail's tolerance of 0 is) reads `+0`, never `+-0`.
    static func signed(_ x: Double, format: String) -> String {
        let text = String(format: format, x == 0 ? 0 : x)
        return text.hasPrefix("-") ? text : "+" + text
    }

    /// A finding with every number given, as a guardrail's evaluation computes it.
    package init(
        metric: String, oldVariant: String, newVariant: String, oldTrials: Int, newTrials: Int, oldEvents: Int,
        newEvents: Int, oldUnits: Int? = nil, newUnits: Int? = nil, oldRate: Double, newRate: Double,
        difference: Double, lower: Double, upper: Double, alpha: Double, tolerance: Double,
        direction: RolloutGuardrail.Direction, regression: Bool, kind: String? = nil, appVersion: String? = nil,
        platform: String? = nil
    ) {
        self.metric = metric
        self.oldVariant = oldVariant
        self.newVariant = newVariant
        self.oldTrials = oldTrials
        self.newTrials = newTrials
        self.oldEvents = oldEvents
        self.newEvents = newEvents
        self.oldUnits = oldUnits
        self.newUnits = newUnits
        self.oldRate = oldRate
        self.newRate = newRate
        self.difference = difference
        self.lower = lower
        self.upper = upper
        self.alpha = alpha
        self.tolerance = tolerance
        self.direction = direction
        self.regression = regression
        self.kind = kind
        self.appVersion = appVersion
        self.platform = platform
    }
}
