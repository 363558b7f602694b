import ArgumentParser
import FlagServerClient
import FlagStatistics
import FlagTooling
import Foundation

/// `flags stats`: the experiment statistics engine on sufficient statistics given as JSON, so
/// that any number on a results page can be recomputed from its export.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Analyse an experiment from its sufficient statistics, plan its sample size, or re-weight a bandit.",
        subcommands: [
            StatsAnalyzeCommand.self, StatsPlanCommand.self, StatsAdjustCommand.self, StatsQuantileCommand.self, StatsWinsorizeCommand.self,
            StatsBanditCommand.self,
        ]
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
            with "kind" conversion, mean, count or ratio; mean, count and ratio arms also give \
            "sumOfSquares", ratio arms "denominatorSum", "denominatorSumOfSquares" and \
            "sumOfProducts", CUPED arms "covariateSum", "covariateSumOfSquares" and "sumOfProducts", \
            and values summed minus a constant give it as "offset". Settings: "alpha" (1e-12 to \
            0.5), "minimumUnitsPerArm" (100), "sequentialMixingStandardDeviation", \
            "sampleRatioThreshold", "sampleRatioMinimumDeviation" and "correction": "bh" \
            (Benjamini–Hochberg, the default), "holm" or "dunnett" (many arms against one control; \
            the fixed-horizon test only, so the sequential p-values then get Holm). The output \
            echoes the input, then the sample ratio check and, per metric and arm, the absolute and \
            relative differences with intervals and p-values, the sequential interval, the Bayesian \
            view and the adjusted p-values, with "correction" and "sequentialCorrection" naming the \
            corrections used; arms without enough data are listed under \
            "notEnoughData" with the reason. Exit status: 0 analysed; 2 input that cannot be \
            analysed (the message names the field and its range).
            With --lines, each input line is one experiment and each output line its analysis \
            (compact JSON), in order; a line that cannot be analysed is answered by \
            {"error": "<path>: <problem>"} and the rest go on (exit status 2 at the end if any failed).
            """
    )

    @Argument(help: "The JSON file; standard input when absent or \"-\".")
    var file: String?

    @Flag(help: "Read one JSON experiment per line and write one JSON analysis per line (an error line for one that cannot be analysed).")
    var lines = false

    /// The most bytes read (with `--lines`, per line): an experiment's statistics are a few kilobytes.
    static let maximumBytes = 4 << 20

    func run() throws {
        let handle: FileHandle
        if let file, file != "-" {
            guard let opened = FileHandle(forReadingAtPath: file) else {
                throw ToolingError(.invalidInput, "cannot read \(file)")
            }
            handle = opened
        } else {
            handle = FileHandle.standardInput
        }
        if lines {
            try analyzeLines(from: handle)
            return
        }
        let data = try Self.read(handle, atMost: Self.maximumBytes + 1)
        guard data.count <= Self.maximumBytes else {
            throw ToolingError(.invalidInput, "the input is more than \(Self.maximumBytes) bytes; at most \(Self.maximumBytes) are read")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let input: ExperimentData
        do {
            input = try JSONDecoder().decode(ExperimentData.self, from: data)
        } catch {
            throw ToolingError(.invalidInput, "the input is not experiment data: \(Self.describe(error))")
        }
        switch Self.analyze(input) {
        case .success(let analysis):
            Output.standardOutput(String(decoding: try encoder.encode(analysis), as: UTF8.self) + "\n")
        case .failure(let error):
            throw ToolingError(.invalidInput, error.error)
        }
    }

    /// Why one experiment could not be analysed: `<path>: <problem>`.
    struct LineError: Error, Encodable {
        var error: String
    }

    /// The analysis of one JSON experiment, or why there is none.
    static func analyze(_ data: Data) -> Result<ExperimentAnalysis, LineError> {
        do {
            return analyze(try JSONDecoder().decode(ExperimentData.self, from: data))
        } catch {
            return .failure(LineError(error: describe(error)))
        }
    }

    static func analyze(_ input: ExperimentData) -> Result<ExperimentAnalysis, LineError> {
        do {
            return .success(try StatisticsEngine.analyze(input))
        } catch {
            return .failure(LineError(error: error.description))
        }
    }

    /// `--lines`: each line of `handle` analysed on its own, in order, one output line each, so
    /// that output line k answers input line k. A line that cannot be analysed (not JSON, a field
    /// out of range, longer than ``maximumBytes``, blank) answers `{"error": "<path>: <problem>"}`
    /// and the run goes on. Exit status 2 when any line was answered by an error, after all lines.
    func analyzeLines(from handle: FileHandle) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var failures = 0
        var number = 0
        func answer(_ line: Data?) {
            number += 1
            var text: String
            let result: Result<ExperimentAnalysis, LineError>
            if let line {
                let trimmed = line.last == UInt8(ascii: "\r") ? line.dropLast() : line
                result = trimmed.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") })
                    ? .failure(LineError(error: "line \(number): the line is blank; one JSON experiment per line"))
                    : Self.analyze(Data(trimmed))
            } else {
                result = .failure(LineError(error: "line \(number): the line is longer than \(Self.maximumBytes) bytes"))
            }
            switch result {
            case .success(let analysis):
                do {
                    text = String(decoding: try encoder.encode(analysis), as: UTF8.self)
                } catch {
                    failures += 1
                    text = Self.encodeError("the analysis: cannot be written as JSON: \(error)", with: encoder)
                }
            case .failure(let error):
                failures += 1
                text = Self.encodeError(error.error, with: encoder)
            }
            Output.standardOutput(text + "\n")
        }
        var buffer = Data()
        var skipping = false
        while true {
            let chunk = try Self.read(handle, atMost: 1 << 16, once: true)
            if chunk.isEmpty { break }
            buffer.append(chunk)
            while let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                if skipping {
                    skipping = false
                } else {
                    answer(buffer[buffer.startIndex..<end])
                }
                buffer = Data(buffer[(end + 1)...])
            }
            if buffer.count > Self.maximumBytes {
                if !skipping { answer(nil) }
                skipping = true
                buffer = Data()
            }
        }
        if !buffer.isEmpty, !skipping { answer(buffer) }
        if failures > 0 {
            throw ToolingError(.invalidInput, "\(failures) of \(number) lines could not be analysed (see their \"error\" lines)")
        }
    }

    static func encodeError(_ message: String, with encoder: JSONEncoder) -> String {
        (try? encoder.encode(LineError(error: message))).map { String(decoding: $0, as: UTF8.self) } ?? #"{"error": "unknown"}"#
    }

    /// Up to `count` bytes of `handle` (all of them when it has fewer); with `once`, one read.
    static func read(_ handle: FileHandle, atMost count: Int, once: Bool = false) throws -> Data {
        var data = Data()
        do {
            while data.count < count {
                guard let chunk = try handle.read(upToCount: count - data.count), !chunk.isEmpty else { break }
                data.append(chunk)
                if once { break }
            }
        } catch {
            throw ToolingError(.invalidInput, "cannot read the input: \(error)")
        }
        return data
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
        abstract: "The units (and days) an experiment needs to detect an effect, or the effect it can detect.",
        discussion: """
              flags stats plan --baseline 0.08 --effect 0.01 --units-per-day 4000
              flags stats plan --standard-deviation 12.5 --effect 1 --alpha 0.05 --power 0.9 --arms 3 --metrics 2
              flags stats plan --baseline 0.08 --units-per-arm 20000
            A conversion metric takes --baseline (a rate); a mean metric --standard-deviation. \
            --effect is the minimum absolute difference worth detecting (--relative: a fraction of the \
            baseline); with --units-per-arm instead, the plan gives the minimum detectable effect at \
            that size. The plan sizes the sequential test the engine and the server decide with \
            (--test fixed-horizon for a test read once), at α shared by every comparison \
            ((arms − 1) × metrics).
            """
    )

    @Option(help: "The control's conversion rate, between 0 and 1.")
    var baseline: Double?

    @Option(help: "The per-unit standard deviation of a mean metric.")
    var standardDeviation: Double?

    @Option(help: "The minimum difference worth detecting.")
    var effect: Double?

    @Option(help: "Units per arm: plan the minimum detectable effect at this size instead of the size for --effect.")
    var unitsPerArm: Double?

    @Flag(help: "Read --effect as a fraction of --baseline (0.1 = 10 % lift), and give a detectable effect as one.")
    var relative = false

    @Option(help: "Significance level (two-sided), shared by all comparisons: 1e-12 to 0.5.")
    var alpha = 0.05

    @Option(help: "Power: the chance to detect the effect when it is there.")
    var power = 0.8

    @Option(help: "Arms, the control included.")
    var arms = 2

    @Option(help: "Metrics decided on (each arm is compared on each).")
    var metrics = 1

    @Option(help: "The test sized: sequential (what the engine decides with) or fixed-horizon.")
    var test: SampleSizePlan.Test = .sequential

    @Option(help: "The sequential test's mixing standard deviation, as a share of the metric's standard deviation (0.1).")
    var mixingWidth: Double?

    @Option(help: "Units entering the experiment per day, all arms together.")
    var unitsPerDay: Double?

    func validate() throws {
        guard (baseline == nil) != (standardDeviation == nil) else {
            throw ValidationError("Give either --baseline (conversion) or --standard-deviation (mean).")
        }
        guard (effect == nil) != (unitsPerArm == nil) else {
            throw ValidationError("Give either --effect (the units it needs) or --units-per-arm (the effect they detect).")
        }
        if relative, baseline == nil { throw ValidationError("--relative needs --baseline.") }
    }

    /// The detectable effect at a given size.
    struct DetectableEffect: Encodable {
        var unitsPerArm: Double
        var minimumDetectableEffect: Double
        var relativeEffect: Double?
        var test: SampleSizePlan.Test
        var alpha: Double
        var power: Double
        var comparisons: Int
    }

    func run() throws {
        let metric: SampleSizePlan.Metric = baseline.map { .conversion(baseline: $0) } ?? .mean(standardDeviation: standardDeviation!)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            if let unitsPerArm {
                let effect = try SampleSizePlan.minimumDetectableEffect(
                    metric: metric, unitsPerArm: unitsPerArm, alpha: alpha, power: power, arms: arms, metrics: metrics, test: test,
                    mixingWidth: mixingWidth)
                let result = DetectableEffect(
                    unitsPerArm: unitsPerArm, minimumDetectableEffect: effect, relativeEffect: baseline.map { effect / $0 }, test: test,
                    alpha: alpha, power: power, comparisons: (arms - 1) * metrics)
                Output.standardOutput(String(decoding: try encoder.encode(result), as: UTF8.self) + "\n")
                return
            }
            let absolute = relative ? effect! * baseline! : effect!
            let plan = try SampleSizePlan(
                metric: metric, effect: absolute, alpha: alpha, power: power, arms: arms, metrics: metrics, test: test,
                mixingWidth: mixingWidth, unitsPerDay: unitsPerDay)
            Output.standardOutput(String(decoding: try encoder.encode(plan), as: UTF8.self) + "\n")
        } catch let error as StatisticsError {
            throw ToolingError(.invalidInput, error.description)
        }
    }
}

extension SampleSizePlan.Test: ExpressibleByArgument {}
