import ArgumentParser
import FlagStatistics
import FlagTooling
import Foundation

/// `flags stats`: the experiment statistics engine on sufficient statistics given as JSON, so
/// that any number on a results page can be recomputed from its export.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Analyse an experiment from its sufficient statistics, or plan its sample size.",
        subcommands: [StatsAnalyzeCommand.self, StatsPlanCommand.self]
    )
}

/// `flags stats analyze`.
struct StatsAnalyzeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Analyse an experiment: JSON sufficient statistics in, JSON analysis out.",
        discussion: """
            The input (a file or standard input) is
              {"control": "off", "allocation": {"off": 50, "on": 50}, "alpha": 0.05,
               "metrics": [{"name": "checkout", "kind": "conversion",
                            "arms": {"off": {"units": 5000, "sum": 410}, "on": {"units": 5021, "sum": 468}}}]}
            with "kind" conversion, mean or count; mean and count arms also give "sumOfSquares", and \
            CUPED arms "covariateSum", "covariateSumOfSquares" and "sumOfProducts". The output \
            echoes the input, then the sample ratio check and, per metric and arm, the absolute and \
            relative differences with intervals and p-values, the sequential interval, the Bayesian \
            view and Benjamini–Hochberg adjusted p-values. Exit status: 0 analysed; 2 input that \
            cannot be analysed (the message names the field).
            """
    )

    @Argument(help: "The JSON file; standard input when absent or \"-\".")
    var file: String?

    /// The most bytes read: an experiment's statistics are a few kilobytes.
    static let maximumBytes = 4 << 20

    func run() throws {
        let data: Data
        if let file, file != "-" {
            guard let contents = FileManager.default.contents(atPath: file) else {
                throw ToolingError(.invalidInput, "cannot read \(file)")
            }
            data = contents
        } else {
            data = FileHandle.standardInput.readDataToEndOfFile()
        }
        guard data.count <= Self.maximumBytes else {
            throw ToolingError(.invalidInput, "the input is \(data.count) bytes; at most \(Self.maximumBytes) are read")
        }
        let input: ExperimentData
        do {
            input = try JSONDecoder().decode(ExperimentData.self, from: data)
        } catch {
            throw ToolingError(.invalidInput, "the input is not experiment data: \(Self.describe(error))")
        }
        let analysis: ExperimentAnalysis
        do {
            analysis = try StatisticsEngine.analyze(input)
        } catch {
            throw ToolingError(.invalidInput, error.description)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        Output.standardOutput(String(decoding: try encoder.encode(analysis), as: UTF8.self) + "\n")
    }

    /// A decoding error as a path and a problem.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return path.isEmpty ? "the document" : String(path.drop { $0 == "." })
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context)): \"\(key.stringValue)\" is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}

/// `flags stats plan`.
struct StatsPlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "The units (and days) an experiment needs to detect an effect.",
        discussion: """
              flags stats plan --baseline 0.08 --effect 0.01 --units-per-day 4000
              flags stats plan --standard-deviation 12.5 --effect 1 --alpha 0.05 --power 0.9
            A conversion metric takes --baseline (a rate); a mean metric --standard-deviation. \
            --effect is the minimum absolute difference worth detecting (--relative: a fraction of the baseline).
            """
    )

    @Option(help: "The control's conversion rate, between 0 and 1.")
    var baseline: Double?

    @Option(help: "The per-unit standard deviation of a mean metric.")
    var standardDeviation: Double?

    @Option(help: "The minimum difference worth detecting.")
    var effect: Double

    @Flag(help: "Read --effect as a fraction of --baseline (0.1 = 10 % lift).")
    var relative = false

    @Option(help: "Significance level (two-sided).")
    var alpha = 0.05

    @Option(help: "Power: the chance to detect the effect when it is there.")
    var power = 0.8

    @Option(help: "Arms, the control included.")
    var arms = 2

    @Option(help: "Units entering the experiment per day, all arms together.")
    var unitsPerDay: Double?

    func validate() throws {
        guard (baseline == nil) != (standardDeviation == nil) else {
            throw ValidationError("Give either --baseline (conversion) or --standard-deviation (mean).")
        }
        if relative, baseline == nil { throw ValidationError("--relative needs --baseline.") }
    }

    func run() throws {
        let metric: SampleSizePlan.Metric = baseline.map { .conversion(baseline: $0) } ?? .mean(standardDeviation: standardDeviation!)
        let absolute = relative ? effect * baseline! : effect
        let plan: SampleSizePlan
        do {
            plan = try SampleSizePlan(metric: metric, effect: absolute, alpha: alpha, power: power, arms: arms, unitsPerDay: unitsPerDay)
        } catch {
            throw ToolingError(.invalidInput, error.description)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        Output.standardOutput(String(decoding: try encoder.encode(plan), as: UTF8.self) + "\n")
    }
}
