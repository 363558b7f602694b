import FlagEvaluation
import Foundation
import Testing

/// Runs flagd's evaluator test kit (`../shared/conformance/flagd-evaluator`): its Gherkin features
/// against its flag file, every case with the bucketing its tags name (`@fractional-v1` -> legacy,
/// otherwise current).
///
/// Skipped, not passed, when the shared conformance folder is not checked out beside the package
/// (a bare package checkout has no such folder); under CI (`CI` set) it runs and fails instead.
@Suite(ConformanceMaterial.required("flagd-evaluator/gherkin"))
struct FlagdEvaluatorConformanceTests {
    @Test func conformanceMaterialIsPresent() {
        ConformanceFiles.requirePresent("flagd-evaluator/gherkin")
    }

    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    static func loadTestKitFlags() throws -> (FlagDefinitions, [FlagDefinitionError]) {
        let data = try ConformanceFiles.data("flagd-evaluator/flags/testkit-flags.json")
        let (definitions, errors) = FlagDefinitions.load([FlagSource(name: "testkit-flags.json", data: data)])
        return (definitions, errors)
    }

    static func allCases() throws -> [GherkinCase] {
        var cases: [GherkinCase] = []
        for url in try FileManager.default.contentsOfDirectory(at: ConformanceFiles.url("flagd-evaluator/gherkin"), includingPropertiesForKeys: nil)
            .filter({ $0.pathExtension == "feature" })
            .sorted(by: { $0.lastPathComponent < $1.lastPathComponent })
        {
            let text = try String(contentsOf: url, encoding: .utf8)
            cases += try GherkinReader.cases(fileName: url.lastPathComponent, text: text)
        }
        return cases
    }

    @Test func testKitFlagsLoad() throws {
        let (definitions, errors) = try Self.loadTestKitFlags()
        #expect(definitions.keys.count == 60)
        // Every flag loads; the file deliberately contains rules flagd's schema rejects (they must
        // fall back at evaluation time) and one $ref to a missing evaluator.
        #expect(errors.allSatisfy { $0.effect == .nonConforming || $0.effect == .flagFailsEvaluation })
        let failing = errors.filter { $0.effect == .flagFailsEvaluation }.compactMap(\.flagKey)
        #expect(failing == ["ref-to-nonexistent-evaluator-flag"])
    }

    @Test func testKit() throws {
        let (definitions, _) = try Self.loadTestKitFlags()
        let evaluators: [FractionalBucketing: FlagEvaluator] = [
            .current: FlagEvaluator(definitions: definitions, bucketing: .current),
            .legacy: FlagEvaluator(definitions: definitions, bucketing: .legacy),
        ]
        let cases = try Self.allCases()
        #expect(cases.count == 140, "the test kit should expand to 140 cases")

        var report = try ConformanceReport(suiteName: "flagd evaluator conformance", expectedFailuresFile: "flagd-evaluator.txt")
        for testCase in cases {
            let bucketing: FractionalBucketing = testCase.tags.contains("fractional-v1") ? .legacy : .current
            var runner = ScenarioRunner(evaluator: evaluators[bucketing]!)
            let problems = runner.run(testCase.steps)
            report.record(testCase.id, passed: problems.isEmpty, detail: "\(testCase.name): \(problems.joined(separator: "; "))")
        }
        report.finish()
    }
}

/// Executes the test kit's step vocabulary against a ``FlagEvaluator``.
private struct ScenarioRunner {
    let evaluator: FlagEvaluator
    var flagKey = ""
    var flagType = ""
    var fallback: JSONValue = .null
    var context = EvaluationContext()
    var result: EvaluationResult?
    var problems: [String] = []

    init(evaluator: FlagEvaluator) {
        self.evaluator = evaluator
    }

    mutating func run(_ steps: [GherkinCase.Step]) -> [String] {
        for step in steps {
            let (template, arguments) = Self.extractQuoted(step.text)
            perform(template, arguments, step)
        }
        return problems
    }

    private mutating func perform(_ template: String, _ arguments: [String], _ step: GherkinCase.Step) {
        switch template {
        case "an evaluator":
            return
        case _ where template.hasPrefix("a ") && template.hasSuffix("-flag with key {} and a fallback value {}"):
            flagType = String(template.dropFirst(2).prefix { $0 != "-" })
            flagKey = arguments[0]
            guard let value = Self.typedValue(arguments[1], type: flagType) else {
                problems.append("cannot read fallback \"\(arguments[1])\" as \(flagType)")
                return
            }
            fallback = value
        case "a context containing a key {}, with type {} and with value {}":
            guard let value = Self.typedValue(arguments[2], type: arguments[1]) else {
                problems.append("cannot read context value \"\(arguments[2])\" as \(arguments[1])")
                return
            }
            context.attributes[arguments[0]] = value
        case "a context containing a nested property with outer key {} and inner key {}, with value {}":
            var outer = context.attributes[arguments[0]]?.objectValue ?? [:]
            outer[arguments[1]] = .string(arguments[2])
            context.attributes[arguments[0]] = .object(outer)
        case "a context containing a targeting key with value {}":
            context.targetingKey = arguments[0]
        case "the flag was evaluated with details":
            guard let type = Self.valueType(flagType) else {
                problems.append("unknown flag type \(flagType)")
                return
            }
            result = evaluator.evaluate(flag: flagKey, type: type, default: fallback, context: context, now: FlagdEvaluatorConformanceTests.now)
        case "the resolved details value should be {}":
            guard let result else { return problems.append("no evaluation before \"\(step.text)\"") }
            guard let expected = Self.typedValue(arguments[0], type: flagType) else {
                return problems.append("cannot read expected value \"\(arguments[0])\" as \(flagType)")
            }
            if result.value != expected || result.value.typeName != expected.typeName {
                problems.append("value: expected \(expected), got \(result.value) (\(Self.describe(result)))")
            }
        case "the reason should be {}":
            guard let result else { return problems.append("no evaluation before \"\(step.text)\"") }
            if result.reason.rawValue != arguments[0] {
                problems.append("reason: expected \(arguments[0]), got \(result.reason.rawValue) (\(Self.describe(result)))")
            }
        case "the error-code should be {}":
            guard let result else { return problems.append("no evaluation before \"\(step.text)\"") }
            if (result.errorCode?.rawValue ?? "") != arguments[0] {
                problems.append("error code: expected \(arguments[0]), got \(result.errorCode?.rawValue ?? "none") (\(Self.describe(result)))")
            }
        case "the resolved metadata should contain":
            guard let result else { return problems.append("no evaluation before \"\(step.text)\"") }
            guard let header = step.table.first, header == ["key", "metadata_type", "value"] else {
                return problems.append("unexpected metadata table header")
            }
            for row in step.table.dropFirst() {
                guard let expected = Self.typedValue(row[2], type: row[1]) else {
                    problems.append("cannot read metadata \(row)")
                    continue
                }
                let actual = result.metadata[row[0]]
                if actual != expected || actual?.typeName != expected.typeName {
                    problems.append("metadata \(row[0]): expected \(expected), got \(actual.map(\.description) ?? "nothing")")
                }
            }
        case "the resolved metadata is empty":
            guard let result else { return problems.append("no evaluation before \"\(step.text)\"") }
            if !result.metadata.isEmpty { problems.append("metadata: expected none, got \(JSONValue.object(result.metadata))") }
        default:
            problems.append("unsupported step \"\(step.keyword) \(step.text)\"")
        }
    }

    private static func describe(_ result: EvaluationResult) -> String {
        result.jsonValue.serialized()
    }

    private static func valueType(_ name: String) -> EvaluationType? {
        switch name {
        case "Boolean": .boolean
        case "String": .string
        case "Integer": .integer
        case "Float": .float
        case "Object": .object
        default: nil
        }
    }

    /// Reads a step's text value as the test kit's type name says.
    static func typedValue(_ text: String, type: String) -> JSONValue? {
        switch type {
        case "Boolean": text == "true" ? .bool(true) : text == "false" ? .bool(false) : nil
        case "String": .string(text)
        case "Integer": Int(text).map(JSONValue.int)
        case "Float": Double(text).map(JSONValue.double)
        case "Object": try? JSONValue(parsing: text)
        default: nil
        }
    }

    /// Replaces each `"quoted"` argument (with `\"` escapes, as cucumber expressions read them)
    /// by `{}` and returns the arguments.
    static func extractQuoted(_ text: String) -> (String, [String]) {
        var template = ""
        var arguments: [String] = []
        var current: String?
        var characters = text[...]
        while let character = characters.first {
            characters = characters.dropFirst()
            if current != nil {
                if character == "\\", let next = characters.first, next == "\"" || next == "\\" {
                    current!.append(next)
                    characters = characters.dropFirst()
                } else if character == "\"" {
                    arguments.append(current!)
                    current = nil
                    template += "{}"
                } else {
                    current!.append(character)
                }
            } else if character == "\"" {
                current = ""
            } else {
                template.append(character)
            }
        }
        return (template, arguments)
    }
}
