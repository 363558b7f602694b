import ArgumentParser
import FlagEvaluation
import Foundation

/// `flags eval`: evaluates flags from flagd definition files, one request from the options or a
/// stream of JSON requests on standard input.
struct EvalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Evaluate flags from flagd flag-definition files.",
        discussion: """
            One evaluation:
              flags eval --definitions flags.json --flag new-checkout --type boolean --default false \\
                --context '{"targetingKey": "user-1", "plan": "pro"}'

            A batch: with --batch, each line of standard input is a request
              {"flag": KEY, "type": TYPE, "default": JSON, "context": {...}}
            and each line of output the result, in order
              {"flag": KEY, "value": JSON, "variant": STRING|null, "reason": STRING, "errorCode": STRING|null, "metadata": {...}}
            A malformed line gets an error result (PARSE_ERROR) on its own line and the stream goes on; \
            error messages go to standard error with the line number.

            Problems in the definition files are reported on standard error; flags that load are still \
            evaluated. Exit status: 0 evaluated (whatever the results say); 1 a flag asked for is not \
            defined (its FLAG_NOT_FOUND result is still written; a batch goes on to the end); 2 usage \
            error or a definition file that cannot be read at all.
            """
    )

    @Option(name: .customLong("definitions"), help: "A flagd flag-definition file; repeat to merge several (later files win).")
    var definitionFiles: [String] = []

    @Option(help: "The flag key to evaluate.")
    var flag: String?

    @Option(help: "The expected type: boolean, string, integer, float or object.")
    var type: String?

    @Option(name: .customLong("default"), help: "The caller's default value, as JSON.")
    var defaultJSON: String?

    @Option(name: .customLong("context"), help: "The evaluation context, as a JSON object (targetingKey and attributes).")
    var contextJSON: String?

    @Flag(help: "Read one JSON request per line from standard input and write one JSON result per line.")
    var batch = false

    @Option(help: "The fractional bucketing: current (flagd's v2, the default), legacy (v1) or v3 (CBOR-encoded bucketing values).")
    var fractional: FractionalBucketing = .current

    @Option(help: "Fix $flagd.timestamp to these Unix seconds instead of the current time.")
    var now: Int?

    func validate() throws {
        guard !definitionFiles.isEmpty else { throw ValidationError("Give at least one --definitions FILE.") }
        if batch {
            guard flag == nil, type == nil, defaultJSON == nil, contextJSON == nil else {
                throw ValidationError("--batch reads requests from standard input; drop --flag, --type, --default and --context.")
            }
        } else {
            guard flag != nil, type != nil, defaultJSON != nil else {
                throw ValidationError("Give --flag, --type and --default (or use --batch).")
            }
        }
    }

    func run() throws {
        let evaluator = FlagEvaluator(definitions: try loadDefinitions(), bucketing: fractional)
        let time = now.map { Date(timeIntervalSince1970: TimeInterval($0)) } ?? Date()
        if batch {
            var number = 0
            var unknownFlags = false
            while let line = readLine(strippingNewline: true) {
                number += 1
                if line.allSatisfy(\.isWhitespace) { continue }
                let result = Self.evaluate(line: line, with: evaluator, now: time)
                if let message = result.errorMessage {
                    Self.writeError("line \(number): \(message)")
                }
                if result.errorCode == .flagNotFound { unknownFlags = true }
                print(Self.render(result))
            }
            if unknownFlags { throw ExitCode(1) }
        } else {
            guard let type = EvaluationType(rawValue: type ?? "") else {
                throw ValidationError("--type must be one of boolean, string, integer, float, object.")
            }
            let defaultValue = try Self.parse(defaultJSON ?? "", option: "--default")
            let context = try contextJSON.map { try Self.parse($0, option: "--context") } ?? .object([:])
            guard case .object = context else { throw ValidationError("--context must be a JSON object.") }
            let result = evaluator.evaluate(
                flag: flag ?? "", type: type, default: defaultValue, context: EvaluationContext(json: context), now: time)
            print(Self.render(result))
            if result.errorCode == .flagNotFound {
                Self.writeError("error: \(result.errorMessage ?? "flag not found").")
                throw ExitCode(1)
            }
        }
    }

    /// Evaluates one batch line; a line that is not a JSON object gives a `PARSE_ERROR` result.
    static func evaluate(line: String, with evaluator: FlagEvaluator, now: Date) -> EvaluationResult {
        let request: JSONValue
        do {
            request = try JSONValue(parsing: line)
        } catch {
            return EvaluationResult(
                flagKey: "", value: .null, reason: .error, errorCode: .parseError,
                errorMessage: "the request is not JSON: \(error)")
        }
        guard case .object = request else {
            return EvaluationResult(
                flagKey: "", value: .null, reason: .error, errorCode: .parseError,
                errorMessage: "the request must be a JSON object")
        }
        return evaluator.evaluate(request: request, now: now)
    }

    /// The result as one line of JSON with the documented keys.
    static func render(_ result: EvaluationResult) -> String {
        var object: [String: JSONValue] = [:]
        if case .object(let members) = result.jsonValue { object = members }
        object["errorMessage"] = nil
        return JSONValue.object(object).serialized()
    }

    private func loadDefinitions() throws -> FlagDefinitions {
        var sources: [FlagSource] = []
        for path in definitionFiles {
            guard let data = FileManager.default.contents(atPath: path) else {
                Self.writeError("error: cannot read the definition file '\(path)'.")
                throw ExitCode(2)
            }
            sources.append(FlagSource(name: path, data: data))
        }
        let (definitions, problems) = FlagDefinitions.load(sources)
        for problem in problems {
            Self.writeError("warning: \(problem)")
        }
        if definitions.flags.isEmpty, !problems.isEmpty {
            Self.writeError("error: no flag could be loaded from the definition files.")
            throw ExitCode(2)
        }
        return definitions
    }

    private static func parse(_ text: String, option: String) throws -> JSONValue {
        do {
            return try JSONValue(parsing: text)
        } catch {
            throw ValidationError("\(option) is not valid JSON: \(error)")
        }
    }

    private static func writeError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

extension FractionalBucketing: ExpressibleByArgument {}
