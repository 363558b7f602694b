import ArgumentParser
import FlagServerClient
import FlagStatistics
import FlagTooling
import Foundation

/// `flags stats adjust`: multiple-comparison adjustments on plain numbers given as JSON, so that
/// any adjusted p-value or critical value on a results page can be recomputed.
struct StatsAdjustCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adjust",
        abstract: "Adjust p-values for multiple comparisons (Holm, Benjamini–Hochberg, or Dunnett's many-to-one test).",
        discussion: """
            The input (a file or standard input) is, for --method holm or bh,
              {"pValues": [0.01, 0.04, 0.03]}
            and for --method dunnett (k treatments against one control)
              {"controlUnits": 1000, "treatmentUnits": [980, 1012], "degreesOfFreedom": 2989,
               "tStatistics": [2.1, -0.7], "alpha": 0.05}
            where "degreesOfFreedom" is a number of at least 1 or "infinity" (the normal case) and \
            "alpha" (0.05 when absent) sets the critical value. The output is {"method", \
            "adjusted"} (in input order; with holm, null for an input that is not a probability), plus \
            "alpha" and "criticalValue" for Dunnett. Exit status: 0 adjusted; 2 input that \
            cannot be used (the message names the field).
            """
    )

    enum Method: String, ExpressibleByArgument, CaseIterable {
        case holm, bh, dunnett
    }

    @Option(help: "holm, bh (Benjamini–Hochberg) or dunnett.")
    var method: Method

    @Argument(help: "The JSON file; standard input when absent or \"-\".")
    var file: String?

    /// The most bytes read: a family of p-values is a few kilobytes.
    static let maximumBytes = 4 << 20

    /// The input of Holm and Benjamini–Hochberg.
    struct HolmInput: Decodable {
        var pValues: [Double]
    }

    struct DunnettInput: Decodable {
        var controlUnits: Double
        var treatmentUnits: [Double]
        var degreesOfFreedom: DegreesOfFreedom
        var tStatistics: [Double]
        var alpha: Double?
    }

    /// A number, or the string "infinity" (JSON has no infinite numbers).
    struct DegreesOfFreedom: Decodable {
        var value: Double

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Double.self) {
                value = number
            } else if let text = try? container.decode(String.self), text == "infinity" {
                value = .infinity
            } else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "a number of at least 1, or \"infinity\" for the normal case")
            }
        }
    }

    struct Result: Encodable {
        var method: String
        var adjusted: [Double?]
        var alpha: Double?
        var criticalValue: Double?
    }

    func run() throws {
        let data = try Self.read(file, maximumBytes: Self.maximumBytes)
        let result: Result
        switch method {
        case .holm:
            let input = try Self.decode(HolmInput.self, from: data)
            let adjusted = MultipleComparisons.holm(input.pValues).map { $0.isNaN ? nil : $0 }
            result = Result(method: method.rawValue, adjusted: adjusted)
        case .bh:
            let input = try Self.decode(HolmInput.self, from: data)
            result = Result(method: method.rawValue, adjusted: StatisticalTests.benjaminiHochberg(input.pValues))
        case .dunnett:
            let input = try Self.decode(DunnettInput.self, from: data)
            let alpha = input.alpha ?? 0.05
            do {
                let adjusted = try MultipleComparisons.dunnett(
                    tStatistics: input.tStatistics, controlUnits: input.controlUnits,
                    treatmentUnits: input.treatmentUnits, degreesOfFreedom: input.degreesOfFreedom.value)
                let critical = try MultipleComparisons.dunnettCriticalValue(
                    alpha: alpha, controlUnits: input.controlUnits, treatmentUnits: input.treatmentUnits,
                    degreesOfFreedom: input.degreesOfFreedom.value)
                result = Result(method: method.rawValue, adjusted: adjusted, alpha: alpha, criticalValue: critical)
            } catch {
                throw ToolingError(.invalidInput, error.description)
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        Output.standardOutput(String(decoding: try encoder.encode(result), as: UTF8.self) + "\n")
    }

    /// The file's bytes, or standard input's, refused beyond `maximumBytes`.
    static func read(_ file: String?, maximumBytes: Int) throws -> Data {
        let data: Data
        if let file, file != "-" {
            guard let contents = FileManager.default.contents(atPath: file) else {
                throw ToolingError(.invalidInput, "cannot read \(file)")
            }
            data = contents
        } else {
            data = FileHandle.standardInput.readDataToEndOfFile()
        }
        guard data.count <= maximumBytes else {
            throw ToolingError(.invalidInput, "the input is \(data.count) bytes; at most \(maximumBytes) are read")
        }
        return data
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw ToolingError(.invalidInput, "the input cannot be read: \(StatsAnalyzeCommand.describe(error))")
        }
    }
}
