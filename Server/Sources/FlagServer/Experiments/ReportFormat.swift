import Foundation

/// How an experiment report writes its numbers for people: a few significant digits on the page
/// (the export carries every digit), thousands grouped, percentages with a sign where they are a
/// change.
enum ReportFormat {
    /// 0.05, 1.234, 12,345.7, 1.2e-06: four significant digits, no trailing zeros.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "—" : (value > 0 ? "∞" : "−∞") }
        if value == 0 { return "0" }
        let magnitude = abs(value)
        if magnitude < 1e-4 || magnitude >= 1e9 {
            return String(format: "%.3g", value)
        }
        if magnitude >= 1000 {
            let rounded = (value * 10).rounded() / 10
            let whole = Int(rounded.magnitude)
            let tenth = Int(((rounded.magnitude - Double(whole)) * 10).rounded())
            return (value < 0 ? "-" : "") + integer(whole) + (tenth > 0 && magnitude < 10_000 ? ".\(tenth)" : "")
        }
        var text = String(format: "%.4g", value)
        if text.contains("."), !text.contains("e") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text
    }

    /// 1234567 as "1,234,567".
    static func integer(_ value: Int) -> String { InsightsChart.number(value) }

    /// A share 0…1 as "50 %" or "50.3 %" (a no-break space before the sign).
    static func percent(_ share: Double) -> String {
        guard share.isFinite else { return "—" }
        let value = share * 100
        let text = abs(value - value.rounded()) < 0.05 ? String(Int(value.rounded())) : String(format: "%.1f", value)
        return text + "\u{00A0}%"
    }

    /// A relative change as "+4.21 %" or "−3.5 %".
    static func change(_ relative: Double) -> String {
        guard relative.isFinite else { return "—" }
        let value = relative * 100
        let rounded = (value * 100).rounded() / 100
        let text = String(format: "%.2f", abs(rounded)).replacingOccurrences(of: #"\.?0+$"#, with: "", options: .regularExpression)
        return (rounded > 0 ? "+" : rounded < 0 ? "−" : "") + text + "\u{00A0}%"
    }

    /// A p-value: "0.0312", "1.2e-06".
    static func pValue(_ p: Double) -> String { number(p) }
}
