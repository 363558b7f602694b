import FlagServerModel
import Foundation

/// One guardrail of a rollout plan over its run: at each evaluation, the new variant's difference
/// from the old one as a point and its always-valid interval as a bar, with the line at zero and
/// the tolerance line on the harmful side; an interval entirely beyond that line is the regression
/// that pauses or rolls back the plan. Drawn like ``SequentialChart``.
struct GuardrailChart: Sendable {
    let guardrail: RolloutGuardrail
    /// The guardrail's point at each evaluation that judged it, oldest first.
    let points: [(time: Date, step: Int, point: GuardrailEvaluation.Point)]
    let id: String

    init(guardrail: RolloutGuardrail, evaluations: [GuardrailEvaluation], id: String) {
        self.guardrail = guardrail
        self.id = id
        points = evaluations.flatMap { evaluation in
            evaluation.points.filter { $0.metric == guardrail.name && $0.appVersion == nil && $0.platform == nil }.map { (evaluation.time, evaluation.step, $0) }
        }
    }

    static let height = 260.0
    static let left = 80.0
    static let right = 24.0
    static let top = 24.0
    static let bottom = 40.0
    static var plotWidth: Double { ExperimentCharts.width - left - right }
    static var plotHeight: Double { height - top - bottom }

    /// Rates are drawn in percentage points; an experiment metric in its own units.
    var factor: Double { guardrail.metric == .experimentMetric ? 1 : 100 }
    var unit: String { guardrail.metric == .experimentMetric ? "" : " points" }
    /// The tolerance line: above zero for a harmful increase, below for a harmful decrease.
    var threshold: Double { guardrail.direction == .increase ? guardrail.tolerance : -guardrail.tolerance }

    var scale: (lower: Double, upper: Double, step: Double) {
        let values = (points.flatMap { [$0.point.lower, $0.point.upper] } + [threshold]).filter(\.isFinite).map { $0 * factor }
        return ExperimentCharts.scale(values.min() ?? -1, values.max() ?? 1)
    }

    func x(_ index: Int) -> Double {
        Self.left + (Double(index) + 0.5) * Self.plotWidth / Double(max(1, points.count))
    }

    func y(_ value: Double) -> Double {
        let scale = scale
        let clamped = min(max(value * factor, scale.lower), scale.upper)
        return Self.top + Self.plotHeight - (clamped - scale.lower) / (scale.upper - scale.lower) * Self.plotHeight
    }

    func number(_ value: Double) -> String { ReportFormat.number(value * factor) }

    var title: String {
        "Always-valid interval of the difference in \(guardrail.name) (new minus old variant) at each evaluation of the run"
    }

    var summary: String {
        guard let first = points.first, let last = points.last else { return "No evaluation has judged this guardrail yet." }
        let beyond = points.firstIndex { $0.point.regression }
        return "\(points.count) evaluation(s) from \(ConsoleRoutes.shortTime(first.time)) to \(ConsoleRoutes.shortTime(last.time)). "
            + "Latest: \(number(last.point.difference))\(unit), interval \(number(last.point.lower)) to \(number(last.point.upper)); "
            + "tolerance line at \(number(threshold))\(unit). "
            + (beyond.map { "The interval first lay beyond the tolerance at \(ConsoleRoutes.shortTime(points[$0].time))." }
                ?? "The interval never lay beyond the tolerance.")
    }

    var svg: String {
        let scale = scale
        let right = ExperimentCharts.width - Self.right
        var out = ExperimentCharts.svgOpen(id: id, height: Self.height, title: title, summary: summary, classes: "chart sequential-chart guardrail-chart")
        // The axis is in displayed units (points for a rate): `y` takes the metric's own.
        out += ExperimentCharts.valueAxis(scale, left: Self.left, right: right) { y($0 / factor) }
        out += #"<line class="tolerance" x1="\#(Self.left.svg)" x2="\#(right.svg)" y1="\#(y(threshold).svg)" y2="\#(y(threshold).svg)"/>"#
        if let first = points.first, let last = points.last {
            out += #"<text class="axis" x="\#(x(0).svg)" y="\#((Self.height - Self.bottom + 24).svg)" text-anchor="start">\#(InsightsChart.escape(ConsoleRoutes.shortTime(first.time)))</text>"#
            if points.count > 1 {
                out += #"<text class="axis" x="\#(x(points.count - 1).svg)" y="\#((Self.height - Self.bottom + 24).svg)" text-anchor="end">\#(InsightsChart.escape(ConsoleRoutes.shortTime(last.time)))</text>"#
            }
        }
        out += #"<g class="series-group \#(InsightsChart.seriesClass(0))">"#
        for (index, entry) in points.enumerated() {
            let at = x(index)
            out += #"<line class="interval\#(entry.point.regression ? " excludes-zero regression" : "")" data-evaluation="\#(index)" data-step="\#(entry.step + 1)" x1="\#(at.svg)" x2="\#(at.svg)" y1="\#(y(entry.point.lower).svg)" y2="\#(y(entry.point.upper).svg)"/>"#
            out += #"<circle class="estimate" data-evaluation="\#(index)" cx="\#(at.svg)" cy="\#(y(entry.point.difference).svg)" r="3.5"/>"#
        }
        return out + "</g></svg>"
    }
}
