import Foundation
import Testing

/// Expected failures of a replay: `ExpectedFailures/<name>.txt` beside the tests, one case id per
/// line, then ` # ` and the reason. A listed case that passes fails the test, so the list stays true.
struct ReplayTally {
    let name: String
    let expected: [String: String]
    var passed: [String] = []
    var failed: [(id: String, detail: String)] = []

    init(name: String, expectedFailures file: String) throws {
        self.name = name
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ExpectedFailures/\(file)")
        var expected: [String: String] = [:]
        for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty, !text.hasPrefix("#") else { continue }
            let parts = text.components(separatedBy: " # ")
            expected[parts[0].trimmingCharacters(in: .whitespaces)] = parts.dropFirst().joined(separator: " # ")
        }
        self.expected = expected
    }

    mutating func record(_ id: String, problems: [String], name caseName: String) {
        if problems.isEmpty { passed.append(id) } else { failed.append((id, "\(caseName): \(problems.joined(separator: "; "))")) }
    }

    /// Prints `N passed, N failed` and records an issue for each unexpected failure or pass.
    func finish(sourceLocation: SourceLocation = #_sourceLocation) {
        print("\(name): \(passed.count) passed, \(failed.count) failed (\(failed.filter { expected[$0.id] != nil }.count) expected)")
        for failure in failed {
            if let reason = expected[failure.id] {
                print("  expected failure \(failure.id): \(reason)")
            } else {
                Issue.record("\(name): unexpected failure \(failure.id): \(failure.detail)", sourceLocation: sourceLocation)
            }
        }
        for id in passed where expected[id] != nil {
            Issue.record("\(name): \(id) is listed as an expected failure but passes; remove it from the list", sourceLocation: sourceLocation)
        }
        let ids = Set(passed).union(failed.map(\.id))
        for id in expected.keys.sorted() where !ids.contains(id) {
            Issue.record("\(name): expected failure \(id) names no case", sourceLocation: sourceLocation)
        }
    }
}
