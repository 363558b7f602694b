import Foundation
import Testing

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

    /// Whether a conformance suite over `relativePath` runs: when the folder is there, and also
    /// when it is missing but the environment variable `CI` is set (to anything but `false` or
    /// `0`), so that a CI run without the material fails instead of passing by skipping. Outside
    /// CI a missing folder skips the suite with the reason the suite states.
    static func shouldRun(_ relativePath: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        shouldRun(exists: exists(relativePath), environment: environment)
    }

    static func shouldRun(exists: Bool, environment: [String: String]) -> Bool {
        exists || isCI(environment)
    }

    static func isCI(_ environment: [String: String]) -> Bool {
        guard let value = environment["CI"], !value.isEmpty else { return false }
        return value.lowercased() != "false" && value != "0"
    }

    /// Fails the current test, naming the missing folder, when a suite runs without its material
    /// (only under CI; see ``shouldRun(_:environment:)``).
    static func requirePresent(_ relativePath: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            exists(relativePath),
            "CI is set but ../shared/conformance/\(relativePath) is missing; check it out beside the package",
            sourceLocation: sourceLocation)
    }

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
