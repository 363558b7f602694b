import Foundation
import Testing

/// The shared conformance material (see ``ConformanceMaterial``: when suites run, skip or fail)
/// and this target's expected-failure lists.
enum ConformanceFiles {
    /// `Tests/FlagEvaluationTests/Support/ConformanceFiles.swift` -> package root.
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // FlagEvaluationTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    static let expectedFailuresDirectory = packageRoot
        .appendingPathComponent("Tests/FlagEvaluationTests/ExpectedFailures", isDirectory: true)

    /// Whether a conformance suite over `relativePath` runs (``ConformanceMaterial/shouldRun(_:)``).
    static func shouldRun(_ relativePath: String) -> Bool {
        ConformanceMaterial.current.shouldRun([relativePath])
    }

    /// Fails the current test, naming the missing folder, when a suite runs without its material.
    static func requirePresent(_ relativePath: String, sourceLocation: SourceLocation = #_sourceLocation) {
        ConformanceMaterial.current.requirePresent(relativePath, sourceLocation: sourceLocation)
    }

    static func exists(_ relativePath: String) -> Bool {
        ConformanceMaterial.current.isPresent(relativePath)
    }

    static func url(_ relativePath: String) -> URL {
        ConformanceMaterial.current.url(relativePath)
    }

    static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: url(relativePath))
    }

    /// JSON files directly inside a conformance folder, sorted by name.
    static func jsonFiles(in relativePath: String) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: url(relativePath), includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }
}
