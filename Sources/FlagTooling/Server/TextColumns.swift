/// Left-aligned columns two spaces apart, the last one unpadded.
enum TextColumns {
    static func render(header: [String], rows: [[String]]) -> String {
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ values: [String]) -> String {
            values.enumerated().map { index, value in
                index == values.count - 1 ? value : value + String(repeating: " ", count: widths[index] - value.count)
            }.joined(separator: "  ")
        }
        return ([header] + rows).map { line($0) + "\n" }.joined()
    }
}
