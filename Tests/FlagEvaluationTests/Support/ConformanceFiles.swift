import Foundation

/// Locates the shared conformance material (`../shared/conformance` beside the package root) and
/// this target's expected-failure lists, from this file's path so tests work from any directory.
enum ConformanceFiles {
    /// `Tests/FlagEvaluationTests/Support/ConformanceFiles.swift` -> package root.
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // FlagEvaluationTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    static let conformanceRoot = packageRoot
        .deletingLastPathComponent()
        .appendingPathComponent("shared/conformance", isDirectory: true)

    static let expectedFailuresDirectory = packageRoot
        .appendingPathComponent("Tests/FlagEvaluationTests/ExpectedFailures", isDirectory: true)

    static func exists(_ relativePath: String) -> Bool {
        FileManager.default.fileExists(atPath: conformanceRoot.appendingPathComponent(relativePath).path)
    }

    static func url(_ relativePath: String) -> URL {
        conformanceRoot.appendingPathComponent(relativePath)
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
