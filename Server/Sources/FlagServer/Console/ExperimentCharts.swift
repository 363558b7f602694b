import Foundation
import FlagStatistics

/// The charts of an experiment's results page, drawn by the server as inline SVG in the house
/// style of ``InsightsChart``: a title and a description that say in words what the chart shows,
/// colours only through classes of the console's style sheet (`better`, `worse`, `neutral`,
/// `series-N`), every text escaped.
enum ExperimentCharts {
    static let width = 1000.0

    /// A round axis over `lower…upper` (0 always inside): about `ticks` steps of 1, 2, 2.5 or 5
    /// times a power of ten.
    static func scale(_ lower: Double, _ upper: Double, ticks: Int = 4) -> (lower: Double, upper: Double, step: Double) {
        var low = min(lower, 0)
        var high = max(upper, 0)
        if !(low.isFinite && high.isFinite) { (low, high) = (-1, 1) }
        if high - low <= 0 { (low, high) = (low - 1, high + 1) }
        let rough = (high - low) / Double(ticks)
        let magnitude = pow(10, (log10(rough)).rounded(.down))
        let step = [1, 2, 2.5, 5, 10].map { $0 * magnitude }.first { $0 >= rough * (1 - 1e-12) } ?? 10 * magnitude
        return ((low / step).rounded(.down) * step, (high / step).rounded(.up) * step, step)
    }

    /// The ticks of a scale, from its lower to its upper end.
    static func ticks(_ scale: (lower: Double, upper: Double, step: Double)) -> [Double] {
        let count = Int(((scale.upper - scale.lower) / scale.step).rounded())
        // Computed from the integer count, so that 0 is exactly 0 (no -0.0000001).
        return (0...max(0, count)).map { index in
            let value = scale.lower + Double(index) * scale.step
            return abs(value) < scale.step * 1e-9 ? 0 : value
        }
    }

    /// A vertical value axis: a grid line and a label at each tick of `scale` from `left` to
    /// `right`, then the line at zero; `y` places an axis value.
    static func valueAxis(
        _ scale: (lower: Double, upper: Double, step: Double), left: Double, right: Double, y: (Double) -> Double
    ) -> String {
        var out = ""
        for tick in ticks(scale) {
            let at = y(tick)
            out += #"<line class="grid" x1="\#(left.svg)" x2="\#(right.svg)" y1="\#(at.svg)" y2="\#(at.svg)"/>"#
            out += #"<text class="axis" x="\#((left - 8).svg)" y="\#((at + 5).svg)" text-anchor="end">\#(InsightsChart.escape(ReportFormat.number(tick)))</text>"#
        }
        return out + #"<line class="zero" x1="\#(left.svg)" x2="\#(right.svg)" y1="\#(y(0).svg)" y2="\#(y(0).svg)"/>"#
    }

    static func svgOpen(id: String, height: Double, title: String, summary: String, classes: String = "chart") -> String {
        let id = InsightsChart.escape(id)
        return #"<svg class="\#(classes)" viewBox="0 0 \#(width.svg) \#(height.svg)" role="img" aria-labelledby="\#(id)-title \#(id)-desc" xmlns="http://www.w3.org/2000/svg">"#
            + #"<title id="\#(id)-title">\#(InsightsChart.escape(title))</title>"#
            + #"<desc id="\#(id)-desc">\#(InsightsChart.escape(summary))</desc>"#
    }

    /// The class of an arm's decision: `better`, `worse` (also a harmed guardrail) or `neutral`.
    static func tone(_ decision: ExperimentReport.Decision?) -> String {
        guard let decision, decision.state == .significant || decision.state == .guardrailHarmed else { return "neutral" }
        return decision.direction == .worse ? "worse" : "better"
    }

    /// The decision in a few words beside a lift: "significant, better", "guardrail harmed".
    static func verdict(_ decision: ExperimentReport.Decision?) -> String {
        guard let decision else { return "no analysis yet" }
        switch decision.state {
        case .significant: return "significant, \(decision.direction?.rawValue ?? "")"
        case .guardrailHarmed: return "guardrail harmed"
        case .keepCollecting: return "not significant: keep collecting"
        case .sampleRatioMismatch: return "sample ratio mismatch: no decision"
        }
    }
}

/// One metric's lift chart: per arm its relative lift from the control as a point, the
/// fixed-horizon interval (delta method) as a thin line, the always-valid interval (relative to the
/// control's mean) as a thick one, a line at zero; significant arms coloured and said so in words.
struct LiftChart: Sendable {
    let report: ExperimentReport
    let metric: ExperimentReport.MetricReport
    let id: String

    static let top = 40.0
    static let row = 56.0
    static let bottom = 40.0
    static let left = 150.0
    static let right = 290.0
    static var plotWidth: Double { ExperimentCharts.width - left - right }

    /// The arms besides the control.
    var rows: [ExperimentReport.ArmResult] { Array(metric.arms.dropFirst()) }
    var height: Double { Self.top + Double(max(1, rows.count)) * Self.row + Self.bottom }

    /// The control's mean, to show the always-valid interval of the difference relative to it.
    var controlMean: Double? { metric.arms.first?.mean }

    /// The always-valid interval of an arm relative to the control's mean (its bounds divided by
    /// it): it excludes 0 exactly when the interval of the difference does.
    func sequential(_ arm: ExperimentReport.ArmResult) -> (lower: Double, upper: Double)? {
        guard let comparison = arm.comparison, let mean = controlMean, mean != 0 else { return nil }
        let bounds = [comparison.sequential.lower / mean, comparison.sequential.upper / mean]
        return (bounds.min()!, bounds.max()!)
    }

    var scale: (lower: Double, upper: Double, step: Double) {
        var values: [Double] = [0]
        for arm in rows {
            if let relative = arm.comparison?.relative { values += [relative.lower, relative.upper, relative.estimate] }
            if let interval = sequential(arm) { values += [interval.lower, interval.upper] }
        }
        let finite = values.filter(\.isFinite)
        let (lower, upper) = (finite.min() ?? -0.1, finite.max() ?? 0.1)
        // A little room on both sides, so that 0 or an interval's end is not on the plot's edge.
        let pad = (upper - lower) * 0.05
        return ExperimentCharts.scale(lower - pad, upper + pad)
    }

    func x(_ value: Double) -> Double {
        let scale = scale
        return Self.left + (value - scale.lower) / (scale.upper - scale.lower) * Self.plotWidth
    }

    func y(row index: Int) -> Double { Self.top + (Double(index) + 0.5) * Self.row }

    var title: String {
        "Relative lift of \(metric.name)\(metric.guardrail ? " (guardrail)" : "") against \(report.control), with intervals at α = \(ReportFormat.number(report.alpha))"
    }

    var summary: String {
        guard !rows.isEmpty, rows.contains(where: { $0.comparison != nil }) else {
            return "No analysis yet. " + (report.problem ?? "")
        }
        return rows.map { arm -> String in
            guard let comparison = arm.comparison else { return "\(arm.arm): no analysis." }
            guard let relative = comparison.relative else {
                return "\(arm.arm): no relative lift (the control's mean is 0); \(ExperimentCharts.verdict(arm.decision))."
            }
            var text = "\(arm.arm): \(ReportFormat.change(relative.estimate)), interval \(ReportFormat.change(relative.lower)) to \(ReportFormat.change(relative.upper))"
            if let interval = sequential(arm) {
                text += ", always-valid \(ReportFormat.change(interval.lower)) to \(ReportFormat.change(interval.upper))"
            }
            return text + "; \(ExperimentCharts.verdict(arm.decision))."
        }.joined(separator: " ")
    }

    var svg: String {
        let scale = scale
        let bottom = height - Self.bottom
        var out = ExperimentCharts.svgOpen(id: id, height: height, title: title, summary: summary, classes: "chart lift-chart")
        for tick in ExperimentCharts.ticks(scale) {
            let at = x(tick)
            out += #"<line class="grid" x1="\#(at.svg)" x2="\#(at.svg)" y1="\#(Self.top.svg)" y2="\#(bottom.svg)"/>"#
            out += #"<text class="axis" x="\#(at.svg)" y="\#((bottom + 24).svg)" text-anchor="middle">\#(InsightsChart.escape(ReportFormat.change(tick)))</text>"#
        }
        out += #"<line class="zero" x1="\#(x(0).svg)" x2="\#(x(0).svg)" y1="\#((Self.top - 8).svg)" y2="\#(bottom.svg)"/>"#
        for (index, arm) in rows.enumerated() {
            let at = y(row: index)
            let tone = ExperimentCharts.tone(arm.decision)
            let name = InsightsChart.escape(arm.arm)
            out += #"<g class="arm \#(tone)\#(metric.guardrail ? " guardrail" : "")" data-arm="\#(name)">"#
            out += #"<text class="arm-name" x="\#((Self.left - 12).svg)" y="\#((at + 5).svg)" text-anchor="end">\#(name)</text>"#
            var words = ExperimentCharts.verdict(arm.decision)
            if let relative = arm.comparison?.relative, relative.estimate.isFinite {
                out += #"<line class="interval fixed" x1="\#(x(relative.lower).svg)" x2="\#(x(relative.upper).svg)" y1="\#(at.svg)" y2="\#(at.svg)"/>"#
                if let interval = sequential(arm) {
                    out += #"<line class="interval sequential" x1="\#(x(interval.lower).svg)" x2="\#(x(interval.upper).svg)" y1="\#((at + 10).svg)" y2="\#((at + 10).svg)"/>"#
                }
                out += #"<circle class="estimate" cx="\#(x(relative.estimate).svg)" cy="\#(at.svg)" r="6"/>"#
                words = ReportFormat.change(relative.estimate) + " · " + words
            } else if arm.comparison != nil {
                words = "no relative lift (control mean 0) · " + words
            }
            if metric.guardrail { words += " · guardrail" }
            out += #"<text class="verdict" x="\#((ExperimentCharts.width - Self.right + 16).svg)" y="\#((at + 5).svg)">\#(InsightsChart.escape(words))</text>"#
            out += "</g>"
        }
        return out + "</svg>"
    }
}

/// One metric's always-valid interval of the difference from the control at the end of each day:
/// it narrows as units arrive; the line at zero shows when it stopped including "no difference".
struct SequentialChart: Sendable {
    let report: ExperimentReport
    let metric: ExperimentReport.MetricReport
    let id: String

    static let height = 300.0
    static let left = 80.0
    static let right = 24.0
    static let top = 24.0
    static let bottom = 40.0
    static var plotWidth: Double { ExperimentCharts.width - left - right }
    static var plotHeight: Double { height - top - bottom }

    var arms: [String] { Array(report.arms.dropFirst()) }
    var intervals: [(day: Int, interval: ExperimentReport.Interval)] {
        report.days.enumerated().flatMap { index, day in
            day.intervals.filter { $0.metric == metric.key }.map { (index, $0) }
        }
    }

    var scale: (lower: Double, upper: Double, step: Double) {
        let values = intervals.flatMap { [$0.interval.lower, $0.interval.upper] }.filter(\.isFinite)
        return ExperimentCharts.scale(values.min() ?? -1, values.max() ?? 1)
    }

    /// The x of arm `position` on day `index`: arms side by side in the day's slot.
    func x(day index: Int, arm position: Int) -> Double {
        let slot = Self.plotWidth / Double(max(1, report.days.count))
        let offset = arms.count > 1 ? (Double(position) - Double(arms.count - 1) / 2) * min(12, slot / Double(arms.count + 1)) : 0
        return Self.left + (Double(index) + 0.5) * slot + offset
    }

    func y(_ value: Double) -> Double {
        let scale = scale
        return Self.top + Self.plotHeight - (value - scale.lower) / (scale.upper - scale.lower) * Self.plotHeight
    }

    static func day(_ milliseconds: Int64) -> String {
        InsightsChart.label(Date(timeIntervalSince1970: Double(milliseconds) / 1000), hourly: false)
    }

    var title: String {
        "Always-valid interval of the difference in \(metric.name) from \(report.control), at the end of each day"
    }

    var summary: String {
        guard !intervals.isEmpty else { return "No day has enough units for an analysis yet." }
        var parts: [String] = []
        for arm in arms {
            let series = intervals.filter { $0.interval.arm == arm }
            guard let first = series.first, let last = series.last else { continue }
            func words(_ entry: (day: Int, interval: ExperimentReport.Interval)) -> String {
                "\(ReportFormat.number(entry.interval.lower)) to \(ReportFormat.number(entry.interval.upper)) on \(Self.day(report.days[entry.day].day))"
            }
            let excludes = series.first { $0.interval.lower > 0 || $0.interval.upper < 0 }
            parts.append(
                "\(arm): \(words(first))" + (series.count > 1 ? ", narrowing to \(words(last))" : "")
                    + (excludes.map { "; first excludes 0 on \(Self.day(report.days[$0.day].day))" } ?? "; includes 0 every day"))
        }
        let missing = report.days.filter { $0.problem != nil }.count
        return parts.joined(separator: ". ") + "." + (missing > 0 ? " \(missing) day(s) had too few units for an analysis." : "")
    }

    var svg: String {
        let scale = scale
        var out = ExperimentCharts.svgOpen(id: id, height: Self.height, title: title, summary: summary, classes: "chart sequential-chart")
        out += ExperimentCharts.valueAxis(scale, left: Self.left, right: ExperimentCharts.width - Self.right, y: y)
        let stride = max(1, Int((Double(report.days.count) / 7).rounded(.up)))
        for index in Swift.stride(from: 0, to: report.days.count, by: stride) {
            let at = x(day: index, arm: (arms.count - 1) / 2)
            out += #"<text class="axis" x="\#(at.svg)" y="\#((Self.height - Self.bottom + 24).svg)" text-anchor="middle">\#(InsightsChart.escape(Self.day(report.days[index].day)))</text>"#
        }
        for (position, arm) in arms.enumerated() {
            let name = InsightsChart.escape(arm)
            out += #"<g class="series-group \#(InsightsChart.seriesClass(position))" data-arm="\#(name)">"#
            for (index, interval) in intervals where interval.arm == arm {
                let at = x(day: index, arm: position)
                let excludes = interval.lower > 0 || interval.upper < 0
                out += #"<line class="interval\#(excludes ? " excludes-zero" : "")" data-day="\#(index)" x1="\#(at.svg)" x2="\#(at.svg)" y1="\#(y(interval.lower).svg)" y2="\#(y(interval.upper).svg)"/>"#
                out += #"<circle class="estimate" data-day="\#(index)" cx="\#(at.svg)" cy="\#(y(interval.estimate).svg)" r="3.5"/>"#
            }
            out += "</g>"
        }
        return out + "</svg>"
    }
}

/// Units per arm against the allocation: each arm's share of the units as a bar, the planned
/// share as a mark across it, and the sample ratio check in words.
struct AllocationChart: Sendable {
    let report: ExperimentReport
    let id: String

    static let top = 16.0
    static let row = 40.0
    static let left = 150.0
    static let right = 330.0
    static var plotWidth: Double { ExperimentCharts.width - left - right }
    var height: Double { Self.top * 2 + Double(report.units.count) * Self.row }

    func x(_ share: Double) -> Double { Self.left + min(max(share, 0), 1) * Self.plotWidth }

    var mismatch: Bool { report.sampleRatio?.mismatch ?? false }

    var title: String { "Units per arm against the planned allocation" }

    var summary: String {
        let arms = report.units.map {
            "\($0.arm): \(ReportFormat.integer($0.units)) units, \(ReportFormat.percent($0.observedShare)) (planned \(ReportFormat.percent($0.plannedShare)))"
        }.joined(separator: "; ")
        guard let check = report.sampleRatio else { return arms + ". No sample ratio check yet." }
        return arms + ". "
            + (check.mismatch
                ? "Sample ratio mismatch: p = \(ReportFormat.pValue(check.pValue)) is below \(ReportFormat.number(check.threshold))."
                : "The split matches the allocation (sample ratio check p = \(ReportFormat.pValue(check.pValue))).")
    }

    var svg: String {
        var out = ExperimentCharts.svgOpen(
            id: id, height: height, title: title, summary: summary, classes: "chart allocation-chart" + (mismatch ? " mismatch" : ""))
        for (index, arm) in report.units.enumerated() {
            let at = Self.top + Double(index) * Self.row
            let name = InsightsChart.escape(arm.arm)
            out += #"<g class="arm \#(InsightsChart.seriesClass(index))" data-arm="\#(name)">"#
            out += #"<text class="arm-name" x="\#((Self.left - 12).svg)" y="\#((at + 22).svg)" text-anchor="end">\#(name)</text>"#
            out += #"<rect class="track" x="\#(Self.left.svg)" y="\#((at + 8).svg)" width="\#(Self.plotWidth.svg)" height="20" rx="3"/>"#
            out += #"<rect class="observed" x="\#(Self.left.svg)" y="\#((at + 8).svg)" width="\#((x(arm.observedShare) - Self.left).svg)" height="20" rx="3"/>"#
            out += #"<line class="planned" x1="\#(x(arm.plannedShare).svg)" x2="\#(x(arm.plannedShare).svg)" y1="\#((at + 2).svg)" y2="\#((at + 34).svg)"/>"#
            let words = "\(ReportFormat.integer(arm.units)) · \(ReportFormat.percent(arm.observedShare)) (planned \(ReportFormat.percent(arm.plannedShare)))"
            out += #"<text class="verdict" x="\#((ExperimentCharts.width - Self.right + 16).svg)" y="\#((at + 22).svg)">\#(InsightsChart.escape(words))</text>"#
            out += "</g>"
        }
        return out + "</svg>"
    }
}
