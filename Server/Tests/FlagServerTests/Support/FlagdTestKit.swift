import FlagEvaluation
import Foundation
import Testing

/// flagd's evaluator test kit (`flagd-evaluator` in the conformance material, ``ConformanceMaterial``):
/// its flag file, and its Gherkin features expanded into cases (one per scenario, one per
/// example row of an outline, background steps first).
///
/// The reader covers the Gherkin the kit uses: tags, `Feature`, `Background`, `Scenario`,
/// `Scenario Outline` with tagged `Examples`, steps and data tables.
enum FlagdTestKit {
    struct Step {
        var text: String
        var table: [[String]]
    }

    struct Case {
        /// `<feature file>:<line>` of the scenario, or of the example row for an outline.
        var id: String
        var name: String
        var tags: Set<String>
        var steps: [Step]
    }

    /// The kit's folder (see ``ConformanceMaterial`` for when its suites run, skip or fail).
    static let root = ConformanceMaterial.current.url("flagd-evaluator")

    static func flagFile() throws -> String {
        try String(contentsOf: root.appendingPathComponent("flags/testkit-flags.json"), encoding: .utf8)
    }

    static func cases() throws -> [Case] {
        let features = try FileManager.default.contentsOfDirectory(
            at: root.appendingPathComponent("gherkin"), includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "feature" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        return try features.flatMap { try cases(file: $0.lastPathComponent, text: String(contentsOf: $0, encoding: .utf8)) }
    }

    private struct Scenario {
        var name: String
        var line: Int
        var tags: Set<String>
        var steps: [Step] = []
        var isOutline: Bool
        var examples: [(tags: Set<String>, header: [String]?, rows: [(line: Int, cells: [String])])] = []
    }

    struct SyntaxError: Error, CustomStringConvertible {
        var description: String
    }

    static func cases(file: String, text: String) throws -> [Case] {
        var featureTags: Set<String> = []
        var tags: Set<String> = []
        var background: [Step] = []
        var scenarios: [Scenario] = []
        var inBackground = false
        var inExamples = false
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            let number = offset + 1
            func fail(_ problem: String) -> SyntaxError { SyntaxError(description: "\(file):\(number): \(problem)") }
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("@") {
                tags.formUnion(line.split(separator: " ").filter { $0.hasPrefix("@") }.map { String($0.dropFirst()) })
            } else if line.hasPrefix("|") {
                let cells = tableCells(line)
                if inExamples, !scenarios.isEmpty, !scenarios[scenarios.count - 1].examples.isEmpty {
                    let last = scenarios[scenarios.count - 1].examples.count - 1
                    if scenarios[scenarios.count - 1].examples[last].header == nil {
                        scenarios[scenarios.count - 1].examples[last].header = cells
                    } else {
                        scenarios[scenarios.count - 1].examples[last].rows.append((number, cells))
                    }
                } else if inBackground, !background.isEmpty {
                    background[background.count - 1].table.append(cells)
                } else if let index = scenarios.indices.last, !scenarios[index].steps.isEmpty {
                    scenarios[index].steps[scenarios[index].steps.count - 1].table.append(cells)
                } else {
                    throw fail("a table without a step")
                }
            } else if line.hasPrefix("Feature:") {
                featureTags = tags
                tags = []
            } else if line.hasPrefix("Background:") {
                inBackground = true
                tags = []
            } else if line.hasPrefix("Scenario Outline:") || line.hasPrefix("Scenario:") {
                let outline = line.hasPrefix("Scenario Outline:")
                let name = line.drop { $0 != ":" }.dropFirst().trimmingCharacters(in: .whitespaces)
                scenarios.append(Scenario(name: name, line: number, tags: featureTags.union(tags), isOutline: outline))
                tags = []
                inBackground = false
                inExamples = false
            } else if line.hasPrefix("Examples:") {
                guard !scenarios.isEmpty else { throw fail("Examples outside a scenario") }
                scenarios[scenarios.count - 1].examples.append((tags, nil, []))
                tags = []
                inExamples = true
            } else if let keyword = ["Given ", "When ", "Then ", "And ", "But "].first(where: { line.hasPrefix($0) }) {
                let step = Step(text: String(line.dropFirst(keyword.count)), table: [])
                if inBackground {
                    background.append(step)
                } else if let index = scenarios.indices.last, !inExamples {
                    scenarios[index].steps.append(step)
                } else {
                    throw fail("a step outside a scenario")
                }
            } else {
                throw fail("unrecognised line: \(line)")
            }
        }
        var cases: [Case] = []
        for scenario in scenarios {
            guard scenario.isOutline else {
                cases.append(Case(id: "\(file):\(scenario.line)", name: scenario.name, tags: scenario.tags, steps: background + scenario.steps))
                continue
            }
            for examples in scenario.examples {
                guard let header = examples.header else { continue }
                for row in examples.rows {
                    func substitute(_ text: String) -> String {
                        zip(header, row.cells).reduce(text) { $0.replacingOccurrences(of: "<\($1.0)>", with: $1.1) }
                    }
                    let steps = (background + scenario.steps).map {
                        Step(text: substitute($0.text), table: $0.table.map { $0.map(substitute) })
                    }
                    cases.append(Case(
                        id: "\(file):\(row.line)", name: "\(substitute(scenario.name)) [\(row.cells.joined(separator: " | "))]",
                        tags: scenario.tags.union(examples.tags), steps: steps))
                }
            }
        }
        return cases
    }

    /// `| a | b\|c |` → `["a", "b|c"]` (Gherkin's `\|`, `\\` and `\n` escapes).
    static func tableCells(_ line: String) -> [String] {
        var cells: [String] = []
        var current = ""
        var escaped = false
        for character in line.dropFirst() {
            if escaped {
                switch character {
                case "|", "\\": current.append(character)
                case "n": current.append("\n")
                default: current += "\\" + String(character)
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "|" {
                cells.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(character)
            }
        }
        return cells
    }

    /// Splits a step into its text with `{}` for each `"quoted"` argument (with `\"` escapes), and
    /// the arguments.
    static func template(of text: String) -> (String, [String]) {
        var template = ""
        var arguments: [String] = []
        var current: String?
        var escaped = false
        for character in text {
            if var argument = current {
                if escaped {
                    if character != "\"" && character != "\\" { argument.append("\\") }
                    argument.append(character)
                    escaped = false
                    current = argument
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    arguments.append(argument)
                    current = nil
                    template += "{}"
                } else {
                    argument.append(character)
                    current = argument
                }
            } else if character == "\"" {
                current = ""
            } else {
                template.append(character)
            }
        }
        return (template, arguments)
    }

    /// A step's text value read as the kit's type name (`Boolean`, `String`, `Integer`, `Float`,
    /// `Object`) says.
    static func value(_ text: String, type: String) -> JSONValue? {
        switch type {
        case "Boolean": text == "true" ? .bool(true) : text == "false" ? .bool(false) : nil
        case "String": .string(text)
        case "Integer": Int(text).map(JSONValue.int)
        case "Float": Double(text).map(JSONValue.double)
        case "Object": try? JSONValue(parsing: text)
        default: nil
        }
    }
}
