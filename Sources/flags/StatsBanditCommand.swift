import ArgumentParser
import FlagServerClient
import FlagStatistics
import FlagTooling
import Foundation

/// `flags stats bandit`: the bandit allocator (Thompson sampling's allocation, computed) on
/// per-arm units and conversions given as JSON, so that every weight a bandit served can be
/// recomputed from its counts.
struct StatsBanditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bandit",
        abstract: "Each arm's chance of being best, expected loss and next weight for a Thompson-sampling bandit.",
        discussion: """
            The input (a file or standard input) is
              {"arms": [{"name": "off", "units": 5000, "conversions": 410},
                        {"name": "on", "units": 5021, "conversions": 468}],
               "prior": {"alpha": 1, "beta": 1}, "minimumShare": 0.05,
               "stopping": {"expectedLossThreshold": 0.0005, "probabilityToBeBest": 0.95,
                            "minimumUnitsPerArm": 1000, "maximumDurationSeconds": 1209600},
               "elapsedSeconds": 86400}
            with 2 to 20 arms of at most 1e9 units; "prior" (Beta(1, 1) when absent; alpha and \
            beta from 0.5 to 1e6), "minimumShare" (0.01 when absent; whole basis points, at most \
            1/arms), "stopping" and "elapsedSeconds" are optional. The output echoes the input, \
            then per arm (in input order) the posterior, its mean, the chance of being best, the \
            expected loss, and the next share and weight (basis points adding up to exactly \
            "weightTotal", 10000: a fractional rule's bucket weights), the leader and the \
            stopping rule's decision ("keepCollecting", "winner", "negligibleLoss" or \
            "maximumDuration", with the arm and the reason). Exit status: 0 allocated; 2 input \
            that cannot be used (the message names the field and its range).
            With --lines, each input line is one bandit and each output line its allocation \
            (compact JSON), in order; a line that cannot be used is answered by \
            {"error": "<path>: <problem>"} and the rest go on (exit status 2 at the end if any failed).
            """
    )

    @Argument(help: "The JSON file; standard input when absent or \"-\".")
    var file: String?

    @Flag(help: "Read one JSON bandit per line and write one JSON allocation per line (an error line for one that cannot be used).")
    var lines = false

    /// The most bytes read: a bandit's counts are a few kilobytes; with `--lines`, a simulation's
    /// batch of a few thousand.
    static let maximumBytes = 64 << 20

    func run() throws {
        let data = try StatsAdjustCommand.read(file, maximumBytes: Self.maximumBytes)
        if lines {
            try allocateLines(data)
            return
        }
        let input = try StatsAdjustCommand.decode(BanditData.self, from: data)
        let allocation: BanditAllocation
        do {
            allocation = try BanditAllocator.allocate(input)
        } catch {
            throw ToolingError(.invalidInput, error.description)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        Output.standardOutput(String(decoding: try encoder.encode(allocation), as: UTF8.self) + "\n")
    }

    /// `--lines`: each line allocated on its own, one output line each, in order.
    func allocateLines(_ data: Data) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var failures = 0
        var number = 0
        var output = ""
        var inputLines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if inputLines.last?.isEmpty == true { inputLines.removeLast() }
        for line in inputLines {
            number += 1
            let trimmed = line.last == UInt8(ascii: "\r") ? line.dropLast() : line
            let result: Result<BanditAllocation, StatsAnalyzeCommand.LineError>
            do {
                if trimmed.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) {
                    throw StatisticsError("line \(number)", "the line is blank; one JSON bandit per line")
                }
                let input = try JSONDecoder().decode(BanditData.self, from: Data(trimmed))
                result = .success(try BanditAllocator.allocate(input))
            } catch let error as StatisticsError {
                result = .failure(.init(error: error.description))
            } catch {
                result = .failure(.init(error: "line \(number): \(StatsAnalyzeCommand.describe(error))"))
            }
            switch result {
            case .success(let allocation):
                do {
                    output += String(decoding: try encoder.encode(allocation), as: UTF8.self) + "\n"
                } catch {
                    failures += 1
                    output += StatsAnalyzeCommand.encodeError("line \(number): the allocation cannot be written as JSON: \(error)", with: encoder) + "\n"
                }
            case .failure(let error):
                failures += 1
                output += StatsAnalyzeCommand.encodeError(error.error, with: encoder) + "\n"
            }
        }
        Output.standardOutput(output)
        if failures > 0 {
            throw ToolingError(.invalidInput, "\(failures) of \(number) lines could not be used (see their \"error\" lines)")
        }
    }
}
