import FlagEvaluation
import Foundation
import Testing

/// Runs the JSON Logic community corpus (`../shared/conformance/jsonlogic/compatible.json`).
///
/// Skipped, not passed, when the shared conformance folder is not checked out beside the package
/// (a bare package checkout has no such folder); under CI (`CI` set) it runs and fails instead.
@Suite(ConformanceMaterial.required("jsonlogic/compatible.json"))
struct JSONLogicConformanceTests {
    @Test func conformanceMaterialIsPresent() {
        ConformanceFiles.requirePresent("jsonlogic/compatible.json")
    }

    @Test func corpus() throws {
        let corpus = try JSONValue(parsing: ConformanceFiles.data("jsonlogic/compatible.json"))
        let cases = (corpus.arrayValue ?? []).filter { $0.objectValue != nil }
        #expect(cases.count == 278, "the corpus should have 278 cases")

        var report = try ConformanceReport(suiteName: "JSON Logic conformance", expectedFailuresFile: "jsonlogic.txt")
        for (offset, testCase) in cases.enumerated() {
            let id = "jsonlogic-\(offset + 1)"
            let rule = testCase["rule"] ?? .null
            let data = testCase["data"] ?? .null
            let expected = testCase["result"] ?? .null
            do {
                let actual = try JSONLogicRule(rule).evaluate(data: data)
                report.record(id, passed: actual == expected, detail: "\(rule) with \(data): expected \(expected), got \(actual)")
            } catch {
                report.record(id, passed: false, detail: "\(rule) did not compile: \(error)")
            }
        }
        report.finish()
    }
}
