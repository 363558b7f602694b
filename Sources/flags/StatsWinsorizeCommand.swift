import ArgumentParser
import FlagServerClient
import FlagStatistics
import FlagTooling
import Foundation

/// `flags stats winsorize`: a metric's per-unit values capped from above, at a fixed value or at
/// their pooled percentile, as the flag server caps a metric with `cap`.
struct StatsWinsorizeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "winsorize",
        abstract: "Cap per-unit values from above at a fixed value or at their pooled percentile.",
        discussion: """
            The input (a file or standard input) is
              {"percentile": 0.99, "values": [12.5, 0, 3.75, ...]}
            or {"value": 100, "values": [...]}: exactly one of "percentile" (between 0.5 and 1, \
            exclusive; the threshold is the values' percentile by numpy's default linear \
            definition) and "value" (a fixed cap, above 0). The output is {"threshold", "capped" \
            (how many values were above it), "values" (capped, in input order)}. Exit status: 0 \
            capped; 2 input that cannot be used (the message names the field).
            """
    )

    @Argument(help: "The JSON file; standard input when absent or \"-\".")
    var file: String?

    /// The most bytes read: about 3 million values.
    static let maximumBytes = 64 << 20

    struct Input: Decodable {
        var percentile: Double?
        var value: Double?
        var values: [Double]
    }

    struct Result: Encodable {
        var threshold: Double
        var capped: Int
        var values: [Double]
    }

    func run() throws {
        let data = try StatsAdjustCommand.read(file, maximumBytes: Self.maximumBytes)
        let input = try StatsAdjustCommand.decode(Input.self, from: data)
        let result: Result
        do throws(StatisticsError) {
            switch (input.percentile, input.value) {
            case (let percentile?, nil):
                let (threshold, values, capped) = try Winsorization.winsorized(input.values, percentile: percentile)
                result = Result(threshold: threshold, capped: capped, values: values)
            case (nil, let value?):
                guard value > 0, value.isFinite else { throw StatisticsError("value", "must be a finite number above 0, not \(value)") }
                if let index = input.values.firstIndex(where: { !$0.isFinite }) {
                    throw StatisticsError("values[\(index)]", "must be a finite number, not \(input.values[index])")
                }
                let (values, capped) = Winsorization.capped(input.values, at: value)
                result = Result(threshold: value, capped: capped, values: values)
            default:
                throw StatisticsError("percentile", "give exactly one of \"percentile\" and \"value\"")
            }
        } catch {
            throw ToolingError(.invalidInput, error.description)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        Output.standardOutput(String(decoding: try encoder.encode(result), as: UTF8.self) + "\n")
    }
}
