import ArgumentParser
import FlagServerClient
import FlagStatistics
import FlagTooling
import Foundation

/// `flags stats quantile`: a percentile metric from per-unit values given as JSON.
struct StatsQuantileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quantile",
        abstract: "Compare two arms' percentiles (p-quantiles) from their per-unit values.",
        discussion: """
            The input (a file or standard input) is
              {"probability": 0.9, "alpha": 0.05, "control": [812.5, 640.1, ...], "treatment": [...]}
            with one value per unit in each arm ("alpha" is 0.05 when absent), or an array of such \
            objects. The output is, per comparison, each arm's quantile with the order statistics \
            and exact coverage behind its standard error, and the difference treatment − control \
            with its interval and p-value (an array for an array). Exit status: 0 compared; 2 \
            input that cannot be used (the message names the comparison and the field).
            """
    )

    @Argument(help: "The JSON file; standard input when absent or \"-\".")
    var file: String?

    /// The most bytes read: about 3 million values in all.
    static let maximumBytes = 64 << 20

    struct Input: Decodable {
        var probability: Double
        var alpha: Double?
        var control: [Double]
        var treatment: [Double]
    }

    func run() throws {
        let data = try StatsAdjustCommand.read(file, maximumBytes: Self.maximumBytes)
        let isArray = data.first { !" \n\r\t".utf8.contains($0) } == UInt8(ascii: "[")
        let inputs = isArray
            ? try StatsAdjustCommand.decode([Input].self, from: data)
            : [try StatsAdjustCommand.decode(Input.self, from: data)]
        var results: [QuantileDifference] = []
        for (index, input) in inputs.enumerated() {
            do {
                results.append(
                    try QuantileDifference(
                        treatment: input.treatment, control: input.control, probability: input.probability,
                        alpha: input.alpha ?? 0.05))
            } catch {
                throw ToolingError(.invalidInput, isArray ? "[\(index)].\(error.description)" : error.description)
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let output = isArray ? try encoder.encode(results) : try encoder.encode(results[0])
        Output.standardOutput(String(decoding: output, as: UTF8.self) + "\n")
    }
}
