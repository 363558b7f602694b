/// A plain-text table whose columns are as wide as their widest cell, header included, two
/// spaces apart, so that every row fits its columns whatever its content.
///
/// ```swift
/// print(TextTable.render(header: ["flag", "debug"], rows: [["page_size", "10"]]), terminator: "")
/// // flag       debug
/// // ---------  -----
/// // page_size  10
/// ```
enum TextTable {
    static let gap = 2

    /// The header, a rule under each column, then the rows, each line ending in a newline and
    /// none in spaces. A row with fewer cells than the header leaves the last ones empty.
    static func render(header: [String], rows: [[String]]) -> String {
        let columns = max(header.count, rows.map(\.count).max() ?? 0)
        let widths = (0..<columns).map { column in
            ([header] + rows).map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (column, width) in widths.enumerated() {
                let cell = cells.indices.contains(column) ? cells[column] : ""
                text += cell + String(repeating: " ", count: width - cell.count + gap)
            }
            while text.last == " " { text.removeLast() }
            return text + "\n"
        }
        return line(header) + line(widths.map { String(repeating: "-", count: $0) }) + rows.map(line).joined()
    }
}
