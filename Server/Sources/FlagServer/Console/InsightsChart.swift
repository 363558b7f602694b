import Foundation

/// The flag page's chart of evaluations per variant over time, drawn by the server as inline SVG:
/// one line per variant, the flag's revisions as vertical markers on the same time axis, axis
/// labels, and a title and description that say what it shows for screen readers (the numbers
/// are also in a table beside it).
///
/// Colours come from the console's style sheet (`series-N` classes over its design tokens), so
/// the chart follows the light and the dark theme; the SVG carries no style of its own (the
/// console's Content-Security-Policy allows none). Every text is escaped.
struct InsightsChart: Sendable {
    let insights: FlagInsights
    /// Prefix of the ids inside the SVG (title, description).
    let id: String

    static let width = 1000.0
    static let height = 320.0
    static let left = 64.0
    static let right = 24.0
    static let top = 44.0
    static let bottom = 40.0
    /// Revisions closer than this on the x axis share one marker.
    static let markerMerge = 6.0
    /// The height of a row of marker labels above the plot.
    static let labelRow = 16.0
    static var plotWidth: Double { width - left - right }
    static var plotHeight: Double { height - top - bottom }
    /// Colours before they repeat (`series-0` … `series-5`); later variants repeat them dashed.
    static let colours = 6

    /// The `series-N` class of the variant at `position`.
    static func seriesClass(_ position: Int) -> String {
        "series-\(position % colours)" + (position >= colours ? " dashed" : "")
    }

    /// The largest value the y axis shows: a round number at or above `maximum`, split in 4 ticks.
    static func scale(_ maximum: Int) -> (top: Int, step: Int) {
        guard maximum > 0 else { return (4, 1) }
        var magnitude = 1
        while magnitude <= maximum / 10 { magnitude *= 10 }
        for factor in [1, 2, 5, 10, 20, 50] {
            let step = max(1, magnitude * factor / 10)
            if step * 4 >= maximum { return (step * 4, step) }
        }
        return (magnitude * 20, magnitude * 5)
    }

    var buckets: Int { insights.buckets.count }
    var start: Double { insights.from.timeIntervalSince1970 }
    var end: Double { insights.to.timeIntervalSince1970 }

    /// The x of a time.
    func x(_ time: Date) -> Double {
        Self.left + (time.timeIntervalSince1970 - start) / max(1, end - start) * Self.plotWidth
    }

    /// The x of the middle of bucket `index`.
    func x(bucket index: Int) -> Double {
        Self.left + (Double(index) + 0.5) / Double(max(1, buckets)) * Self.plotWidth
    }

    /// The y of a value on a scale whose top is `top`.
    func y(_ value: Int, top: Int) -> Double {
        Self.top + Self.plotHeight - Double(value) / Double(max(1, top)) * Self.plotHeight
    }

    var maximum: Int { insights.variants.flatMap(\.evaluations).max() ?? 0 }

    /// "on" for a variant, "(no variant)" for "".
    static func name(_ variant: String) -> String { variant.isEmpty ? "(no variant)" : variant }

    /// The chart's one-line title.
    var title: String {
        "Evaluations of \(insights.flag) in \(insights.environment) per \(insights.granularity), "
            + "\(Self.label(insights.from, hourly: true)) to \(Self.label(insights.to, hourly: true))"
    }

    /// The chart in words: totals per variant and the marked changes.
    var summary: String {
        var parts = insights.variants.filter { $0.totalEvaluations > 0 }.map { series in
            "\(Self.name(series.variant)): \(Self.number(series.totalEvaluations)) evaluations (at most \(Self.number(series.evaluations.max() ?? 0)) in one \(insights.granularity))"
        }
        if parts.isEmpty { parts.append("no evaluations") }
        var text = parts.joined(separator: "; ") + "."
        if !insights.revisions.isEmpty {
            text += " Changes marked: " + insights.revisions.map { "r\($0.revision) at \(Self.label($0.time, hourly: true)), \($0.summary)" }
                .joined(separator: "; ") + "."
        }
        return text
    }

    /// The SVG element.
    var svg: String {
        let (top, step) = Self.scale(maximum)
        let hourly = insights.granularity == RollupGranularity.hour.rawValue
        var out = #"<svg class="chart" viewBox="0 0 \#(Self.width.svg) \#(Self.height.svg)" role="img" aria-labelledby="\#(Self.escape(id))-title \#(Self.escape(id))-desc" xmlns="http://www.w3.org/2000/svg">"#
        out += #"<title id="\#(Self.escape(id))-title">\#(Self.escape(title))</title>"#
        out += #"<desc id="\#(Self.escape(id))-desc">\#(Self.escape(summary))</desc>"#
        // Horizontal grid lines with the y axis labels.
        var tick = 0
        while tick <= top {
            let at = y(tick, top: top)
            out += #"<line class="grid" x1="\#(Self.left.svg)" x2="\#((Self.width - Self.right).svg)" y1="\#(at.svg)" y2="\#(at.svg)"/>"#
            out += #"<text class="axis" x="\#((Self.left - 8).svg)" y="\#((at + 5).svg)" text-anchor="end">\#(Self.escape(Self.compact(tick)))</text>"#
            tick += step
        }
        // The x axis: a label about every sixth of the buckets, at their middle.
        out += #"<line class="axis-line" x1="\#(Self.left.svg)" x2="\#((Self.width - Self.right).svg)" y1="\#((Self.top + Self.plotHeight).svg)" y2="\#((Self.top + Self.plotHeight).svg)"/>"#
        let stride = max(1, Int((Double(buckets) / 6).rounded(.up)))
        for index in Swift.stride(from: 0, to: buckets, by: stride) {
            let at = x(bucket: index)
            out += #"<text class="axis" x="\#(at.svg)" y="\#((Self.height - Self.bottom + 24).svg)" text-anchor="middle">\#(Self.escape(Self.label(insights.buckets[index], hourly: hourly)))</text>"#
        }
        // One line per variant (a dot when there is one bucket).
        for (position, series) in insights.variants.enumerated() where series.totalEvaluations > 0 {
            let points = series.evaluations.enumerated().map { "\(x(bucket: $0.offset).svg),\(y($0.element, top: top).svg)" }
            let name = Self.escape(Self.name(series.variant))
            if points.count == 1 {
                out += #"<circle class="series \#(Self.seriesClass(position))" data-variant="\#(name)" cx="\#(x(bucket: 0).svg)" cy="\#(y(series.evaluations[0], top: top).svg)" r="4"/>"#
            } else {
                out += #"<polyline class="series \#(Self.seriesClass(position))" data-variant="\#(name)" points="\#(points.joined(separator: " "))"/>"#
            }
        }
        // Revision markers: a line at the change's time (changes closer than a few pixels share
        // one) and its revision above the plot, on a second row when the first would overlap the
        // previous label, left to the list below the chart when both would.
        var groups: [[FlagInsights.Revision]] = []
        for revision in insights.revisions {
            if let first = groups.last?.first, x(revision.time) - x(first.time) < Self.markerMerge {
                groups[groups.count - 1].append(revision)
            } else {
                groups.append([revision])
            }
        }
        var rowEnds: [Double] = [-.infinity, -.infinity]
        for group in groups {
            let at = x(group[0].time)
            let text = group.count == 1 ? "r\(group[0].revision)" : "r\(group[0].revision)–r\(group[group.count - 1].revision)"
            let words = group.map { "r\($0.revision), \(Self.label($0.time, hourly: true)) UTC, \($0.actor): \($0.summary)" }
            let revert = group.contains { $0.revert }
            out += #"<g class="marker\#(revert ? " revert" : "")" data-revisions="\#(group.map { String($0.revision) }.joined(separator: " "))">"#
            out += "<title>\(Self.escape(words.joined(separator: "; ")))</title>"
            out += #"<line x1="\#(at.svg)" x2="\#(at.svg)" y1="\#((Self.top - 4).svg)" y2="\#((Self.top + Self.plotHeight).svg)"/>"#
            // About 8 units a character at the labels' size; kept inside the chart.
            let half = Double(text.count) * 4 + 4
            let centre = min(max(at, Self.left + half), Self.width - Self.right - half)
            if let row = rowEnds.firstIndex(where: { centre - half >= $0 }) {
                rowEnds[row] = centre + half
                out += #"<text x="\#(centre.svg)" y="\#((Self.top - 10 - Double(row) * Self.labelRow).svg)" text-anchor="middle">\#(Self.escape(text))</text>"#
            }
            out += "</g>"
        }
        return out + "</svg>"
    }

    // MARK: - Text

    /// "20 Nov" for a day, "20 Nov 14:00" for an hour (UTC).
    static func label(_ time: Date, hourly: Bool) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let parts = calendar.dateComponents([.day, .month, .hour, .minute], from: time)
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let day = "\(parts.day ?? 1) \(months[((parts.month ?? 1) - 1) % 12])"
        guard hourly else { return day }
        return day + " " + String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    /// 1234567 as "1,234,567".
    static func number(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var groups: [Substring] = []
        var end = digits.endIndex
        while end > digits.startIndex {
            let start = digits.index(end, offsetBy: -3, limitedBy: digits.startIndex) ?? digits.startIndex
            groups.insert(digits[start..<end], at: 0)
            end = start
        }
        return (value < 0 ? "-" : "") + groups.joined(separator: ",")
    }

    /// An axis label: 950, 9,500, 95k, 9.5M.
    static func compact(_ value: Int) -> String {
        switch value {
        case ..<100_000: number(value)
        case ..<10_000_000: Self.trimmed(Double(value) / 1000) + "k"
        default: Self.trimmed(Double(value) / 1_000_000) + "M"
        }
    }

    static func trimmed(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }

    /// `text` safe in SVG (XML) text and attribute values.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// A small bar (for the units table): `value` of `maximum` over `width`, hidden from screen
    /// readers (the number is in the cell beside it).
    static func bar(_ value: Int, of maximum: Int, position: Int, width: Double = 160) -> String {
        let length = maximum > 0 ? Double(value) / Double(maximum) * width : 0
        return #"<svg class="bar" viewBox="0 0 \#(width.svg) 12" width="\#(width.svg)" height="12" aria-hidden="true" focusable="false"><rect class="track" x="0" y="0" width="\#(width.svg)" height="12" rx="3"/><rect class="fill \#(seriesClass(position))" x="0" y="0" width="\#(length.svg)" height="12" rx="3"/></svg>"#
    }
}

extension Double {
    /// The number as SVG coordinates write it: at most one decimal, no trailing ".0".
    var svg: String {
        let rounded = (self * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%.1f", rounded)
    }
}
