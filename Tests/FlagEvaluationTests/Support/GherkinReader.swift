import Foundation

/// A small reader for the Gherkin subset the flagd test kit uses: `Feature`, `Background`,
/// `Scenario`, `Scenario Outline` with `Examples` (each with its own tags), steps
/// (`Given`/`When`/`Then`/`And`/`But`), data tables, tags and `#` comments.
///
/// Outlines are expanded: every example row becomes one ``GherkinCase`` with `<placeholders>`
/// replaced, the feature's background steps first.
struct GherkinCase {
    struct Step {
        var keyword: String
        var text: String
        var table: [[String]]
    }

    /// `<file>:<line>`: the scenario's line, or for an outline the example row's line.
    var id: String
    var name: String
    /// Feature, scenario and examples tags, without `@`.
    var tags: Set<String>
    var steps: [Step]
}

enum GherkinReader {
    struct SyntaxError: Error, CustomStringConvertible {
        var description: String
    }

    private struct Scenario {
        var name: String
        var line: Int
        var tags: Set<String>
        var isOutline: Bool
        var steps: [GherkinCase.Step] = []
        var examples: [Examples] = []
    }

    private struct Examples {
        var tags: Set<String>
        var header: [String]?
        var rows: [(line: Int, cells: [String])] = []
    }

    static func cases(fileName: String, text: String) throws -> [GherkinCase] {
        var featureTags: Set<String> = []
        var pendingTags: Set<String> = []
        var background: [GherkinCase.Step] = []
        var scenarios: [Scenario] = []
        enum Section { case none, background, scenario, examples }
        var section = Section.none

        func appendStep(_ step: GherkinCase.Step) throws {
            switch section {
            case .background: background.append(step)
            case .scenario: scenarios[scenarios.count - 1].steps.append(step)
            default: throw SyntaxError(description: "\(fileName): step outside a scenario: \(step.text)")
            }
        }

        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = offset + 1
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("@") {
                for tag in line.split(separator: " ") where tag.hasPrefix("@") { pendingTags.insert(String(tag.dropFirst())) }
                continue
            }
            if line.hasPrefix("|") {
                let cells = tableCells(line)
                switch section {
                case .examples:
                    let index = scenarios.count - 1
                    let last = scenarios[index].examples.count - 1
                    if scenarios[index].examples[last].header == nil {
                        scenarios[index].examples[last].header = cells
                    } else {
                        scenarios[index].examples[last].rows.append((lineNumber, cells))
                    }
                case .background:
                    background[background.count - 1].table.append(cells)
                case .scenario:
                    let index = scenarios.count - 1
                    guard !scenarios[index].steps.isEmpty else {
                        throw SyntaxError(description: "\(fileName):\(lineNumber): table without a step")
                    }
                    scenarios[index].steps[scenarios[index].steps.count - 1].table.append(cells)
                case .none:
                    throw SyntaxError(description: "\(fileName):\(lineNumber): table outside a scenario")
                }
                continue
            }
            if keywordValue(line, "Feature") != nil {
                featureTags = pendingTags
                pendingTags = []
                section = .none
            } else if keywordValue(line, "Background") != nil {
                section = .background
                pendingTags = []
            } else if let name = keywordValue(line, "Scenario Outline") ?? keywordValue(line, "Scenario Template") {
                scenarios.append(Scenario(name: name, line: lineNumber, tags: featureTags.union(pendingTags), isOutline: true))
                pendingTags = []
                section = .scenario
            } else if let name = keywordValue(line, "Scenario") ?? keywordValue(line, "Example") {
                scenarios.append(Scenario(name: name, line: lineNumber, tags: featureTags.union(pendingTags), isOutline: false))
                pendingTags = []
                section = .scenario
            } else if keywordValue(line, "Examples") != nil || keywordValue(line, "Scenarios") != nil {
                guard !scenarios.isEmpty else { throw SyntaxError(description: "\(fileName):\(lineNumber): Examples outside a scenario") }
                scenarios[scenarios.count - 1].examples.append(Examples(tags: pendingTags))
                pendingTags = []
                section = .examples
            } else if let (keyword, text) = step(line) {
                if section == .examples {
                    throw SyntaxError(description: "\(fileName):\(lineNumber): step after Examples")
                }
                try appendStep(GherkinCase.Step(keyword: keyword, text: text, table: []))
            } else {
                throw SyntaxError(description: "\(fileName):\(lineNumber): unrecognised line: \(line)")
            }
        }

        var cases: [GherkinCase] = []
        for scenario in scenarios {
            if !scenario.isOutline {
                cases.append(GherkinCase(
                    id: "\(fileName):\(scenario.line)", name: scenario.name, tags: scenario.tags,
                    steps: background + scenario.steps
                ))
                continue
            }
            for examples in scenario.examples {
                guard let header = examples.header else { continue }
                for row in examples.rows {
                    guard row.cells.count == header.count else {
                        throw SyntaxError(description: "\(fileName):\(row.line): row has \(row.cells.count) cells, header \(header.count)")
                    }
                    func substitute(_ text: String) -> String {
                        var result = text
                        for (name, value) in zip(header, row.cells) { result = result.replacingOccurrences(of: "<\(name)>", with: value) }
                        return result
                    }
                    let steps = (background + scenario.steps).map {
                        GherkinCase.Step(keyword: $0.keyword, text: substitute($0.text), table: $0.table.map { $0.map(substitute) })
                    }
                    let values = row.cells.joined(separator: " | ")
                    cases.append(GherkinCase(
                        id: "\(fileName):\(row.line)", name: "\(substitute(scenario.name)) [\(values)]",
                        tags: scenario.tags.union(examples.tags), steps: steps
                    ))
                }
            }
        }
        return cases
    }

    private static func keywordValue(_ line: String, _ keyword: String) -> String? {
        guard line.hasPrefix(keyword + ":") else { return nil }
        return line.dropFirst(keyword.count + 1).trimmingCharacters(in: .whitespaces)
    }

    private static func step(_ line: String) -> (String, String)? {
        for keyword in ["Given", "When", "Then", "And", "But", "*"] where line.hasPrefix(keyword + " ") {
            return (keyword, String(line.dropFirst(keyword.count + 1)))
        }
        return nil
    }

    /// Splits `| a | b\|c |` into cells, unescaping `\|`, `\\` and `\n` as Gherkin does.
    static func tableCells(_ line: String) -> [String] {
        var cells: [String] = []
        var current = ""
        var characters = line.dropFirst()[...]  // leading |
        while let character = characters.first {
            characters = characters.dropFirst()
            switch character {
            case "\\":
                guard let next = characters.first else {
                    current.append("\\")
                    continue
                }
                characters = characters.dropFirst()
                switch next {
                case "|": current.append("|")
                case "\\": current.append("\\")
                case "n": current.append("\n")
                default:
                    current.append("\\")
                    current.append(next)
                }
            case "|":
                cells.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            default:
                current.append(character)
            }
        }
        return cells
    }
}
