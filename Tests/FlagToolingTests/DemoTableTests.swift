import Testing

@testable import FeatureFlagsDemo

/// The demo's table (`swift run feature-flags-demo`): every row fits its columns, whatever the
/// length of its cells.
struct DemoTableTests {
    @Test func columnsAreAsWideAsTheirWidestCell() {
        let text = TextTable.render(
            header: ["flag", "debug", "release"],
            rows: [
                ["page_size", "10", "50"],
                ["retry_policy", #"{"attempts":3,"backoffSeconds":1.5}"#, #"{"attempts":3}"#],
            ])
        #expect(text == """
            flag          debug                                release
            ------------  -----------------------------------  --------------
            page_size     10                                   50
            retry_policy  {"attempts":3,"backoffSeconds":1.5}  {"attempts":3}

            """)
    }

    /// Cells of every length, in every column: each cell starts where its column's header does
    /// and is followed by at least two spaces.
    @Test(arguments: [0, 1, 9, 10, 11, 40])
    func everyCellStartsAtItsColumn(length: Int) {
        let long = String(repeating: "x", count: length)
        let rows = [["a", long, "b", long], [long, "c", long, "d"], ["e", "f"]]
        let lines = TextTable.render(header: ["one", "two", "three", "four"], rows: rows).split(separator: "\n", omittingEmptySubsequences: false)
        let widths = (0..<4).map { column in ([["one", "two", "three", "four"]] + rows).map { $0.indices.contains(column) ? $0[column].count : 0 }.max()! }
        let starts = widths.indices.map { column in widths[..<column].reduce(0, +) + 2 * column }
        for (row, line) in zip(rows, lines.dropFirst(2)) {
            for (column, cell) in row.enumerated() {
                // Padded on the right: a line ends at its last non-empty cell.
                let characters = Array(line) + Array(repeating: " ", count: 200)
                #expect(String(characters[starts[column]..<starts[column] + cell.count]) == cell, "\(line)")
                if column < row.count - 1 {
                    #expect(characters[(starts[column] + cell.count)..<starts[column + 1]].allSatisfy { $0 == " " }, "\(line)")
                }
            }
            #expect(line.last != " ")
        }
        #expect(lines.count == 2 + rows.count + 1)  // header, rule, rows, the final newline
    }
}
