import Foundation
import Testing

/// Tallies a conformance suite against its checked-in expected-failure list.
///
/// The list (`ExpectedFailures/<name>.txt`) has one case id per line followed by `# reason`;
/// blank lines and lines starting with `#` are comments. Any failure not on the list fails the
/// test, and so does a listed case that now passes, so the list stays honest.
struct ConformanceReport {
    let suiteName: String
    let expected: [String: String]
    private(set) var passed: [String] = []
    private(set) var failed: [(id: String, detail: String)] = []

    init(suiteName: String, expectedFailuresFile: String) throws {
        self.suiteName = suiteName
        let url = ConformanceFiles.expectedFailuresDirectory.appendingPathComponent(expectedFailuresFile)
        let text = try String(contentsOf: url, encoding: .utf8)
        var expected: [String: String] = [:]
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.components(separatedBy: " # ")
            let id = parts[0].trimmingCharacters(in: .whitespaces)
            let reason = parts.count > 1 ? parts[1...].joined(separator: " # ") : ""
            expected[id] = reason
        }
        self.expected = expected
    }

    mutating func record(_ id: String, passed didPass: Bool, detail: @autoclosure () -> String) {
        if didPass { passed.append(id) } else { failed.append((id, detail())) }
    }

    /// Prints the tally and records an issue for every unexpected failure or unexpected pass.
    func finish(sourceLocation: SourceLocation = #_sourceLocation) {
        let expectedCount = failed.filter { expected[$0.id] != nil }.count
        print("\(suiteName): \(passed.count) passed, \(failed.count) failed (\(expectedCount) expected)")
        for failure in failed where expected[failure.id] == nil {
            Issue.record("\(suiteName): unexpected failure \(failure.id): \(failure.detail)", sourceLocation: sourceLocation)
        }
        for failure in failed where expected[failure.id] != nil {
            print("  expected failure \(failure.id): \(expected[failure.id]!)")
        }
        let nowPassing = passed.filter { expected[$0] != nil }
        for id in nowPassing {
            Issue.record(
                "\(suiteName): \(id) is listed as an expected failure but now passes; remove it from the list",
                sourceLocation: sourceLocation
            )
        }
        let allIds = Set(passed).union(failed.map(\.id))
        for id in expected.keys.sorted() where !allIds.contains(id) {
            Issue.record("\(suiteName): expected failure \(id) names no case of this suite", sourceLocation: sourceLocation)
        }
    }
}
