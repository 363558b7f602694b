import Foundation
import Testing

/// The conformance suites skip when `../shared/conformance` is missing, except under CI, where
/// they must run and fail.
struct ConformanceGateTests {
    @Test func presentMaterialAlwaysRuns() {
        #expect(ConformanceFiles.shouldRun(exists: true, environment: [:]))
        #expect(ConformanceFiles.shouldRun(exists: true, environment: ["CI": "true"]))
    }

    @Test func missingMaterialSkipsOutsideCI() {
        #expect(!ConformanceFiles.shouldRun(exists: false, environment: [:]))
        #expect(!ConformanceFiles.shouldRun(exists: false, environment: ["CI": ""]))
        #expect(!ConformanceFiles.shouldRun(exists: false, environment: ["CI": "false"]))
        #expect(!ConformanceFiles.shouldRun(exists: false, environment: ["CI": "0"]))
    }

    @Test func missingMaterialRunsAndFailsUnderCI() {
        #expect(ConformanceFiles.shouldRun(exists: false, environment: ["CI": "true"]))
        #expect(ConformanceFiles.shouldRun(exists: false, environment: ["CI": "1"]))
        #expect(ConformanceFiles.shouldRun("no-such-folder", environment: ["CI": "true"]))
        #expect(!ConformanceFiles.shouldRun("no-such-folder", environment: [:]))
    }

    @Test func aSuiteRunningWithoutItsMaterialFails() {
        withKnownIssue("requirePresent records a failure naming the folder") {
            ConformanceFiles.requirePresent("no-such-folder")
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("../shared/conformance/no-such-folder is missing") }
        }
        ConformanceFiles.requirePresent("jsonlogic")  // present here: no issue
    }
}
