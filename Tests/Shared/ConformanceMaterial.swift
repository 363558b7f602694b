// One file shared by every test target that reads conformance material: the root package's
// (Tests/FlagEvaluationTests/Support, Tests/FlagToolingTests/Support) and the flag server's
// (Server/Tests/FlagServerTests/Support) link to it, so that they all follow one rule.
import Foundation
import Testing

/// Material written by other projects that some suites run against (flagd's evaluator test kit,
/// the JSON Logic corpus, the flagd schemas, the OFREP specification): a folder checked out beside
/// the repository, `../shared/conformance`, or the folder `FEATURE_FLAGS_CONFORMANCE_DIR` names.
///
/// The rule, for every such suite: it runs when its material is there. When it is missing, the
/// suite is skipped with one line that says which folder is missing (a skip, not a pass), except
/// under CI (`CI` set to anything but `false` or `0`), where it runs and fails, so that CI never
/// passes by skipping.
///
/// ```swift
/// @Suite(ConformanceMaterial.required("jsonlogic/compatible.json"))
/// struct JSONLogicConformanceTests {
///     @Test func conformanceMaterialIsPresent() { ConformanceMaterial.current.requirePresent("jsonlogic/compatible.json") }
/// }
/// ```
struct ConformanceMaterial: Sendable {
    /// The environment variable naming another folder than `../shared/conformance`.
    static let folderVariable = "FEATURE_FLAGS_CONFORMANCE_DIR"

    /// The folder the material is read from.
    let root: URL
    /// How ``root`` is named in messages.
    let rootName: String
    /// Whether this is a CI run.
    let isCI: Bool

    /// The material of this test run, from the process's environment.
    static let current = ConformanceMaterial(environment: ProcessInfo.processInfo.environment)

    /// The material in `environment`'s folder (`FEATURE_FLAGS_CONFORMANCE_DIR`), else in
    /// `../shared/conformance` beside `repository`.
    init(environment: [String: String], repository: URL = ConformanceMaterial.repository) {
        if let folder = environment[Self.folderVariable], !folder.isEmpty {
            root = URL(fileURLWithPath: folder, isDirectory: true)
            rootName = folder
        } else {
            root = repository.deletingLastPathComponent().appendingPathComponent("shared/conformance", isDirectory: true)
            rootName = "../shared/conformance"
        }
        isCI = Self.isCI(environment)
    }

    /// Whether `environment` says this is a CI run: `CI` set to anything but empty, `false` or `0`.
    static func isCI(_ environment: [String: String]) -> Bool {
        guard let value = environment["CI"], !value.isEmpty else { return false }
        return value.lowercased() != "false" && value != "0"
    }

    /// The repository's root: the nearest folder above this file (or the file that links to it)
    /// holding the root package (`Sources/FeatureFlags`), so the server's tests find the same one.
    static let repository: URL = {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.path != "/" {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Sources/FeatureFlags").path) {
                return folder
            }
            folder = folder.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    }()

    /// A file or folder of the material.
    func url(_ relativePath: String) -> URL {
        root.appendingPathComponent(relativePath)
    }

    func isPresent(_ relativePath: String) -> Bool {
        FileManager.default.fileExists(atPath: url(relativePath).path)
    }

    /// Whether a suite over `relativePaths` runs: when they are all there, and under CI always.
    func shouldRun(_ relativePaths: [String]) -> Bool {
        isCI || relativePaths.allSatisfy(isPresent)
    }

    /// Why a suite over `relativePaths` is skipped: the one line the test run shows.
    func skipReason(_ relativePaths: [String]) -> String {
        let missing = relativePaths.filter { !isPresent($0) }.map { "\(rootName)/\($0)" }
        return "\(missing.joined(separator: " and ")) \(missing.count == 1 ? "is" : "are") not there "
            + "(conformance material from other projects; check it out there or name its folder in "
            + "\(Self.folderVariable)). Under CI this suite runs and fails instead."
    }

    /// Records a failure naming the missing folder when a suite runs without its material (under
    /// CI, see ``shouldRun(_:)``); nothing when it is there.
    func requirePresent(_ relativePath: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard !isPresent(relativePath) else { return }
        let why = isCI ? "CI is set, so the suite runs, but " : ""
        Issue.record(
            "\(why)\(rootName)/\(relativePath) is missing: check the conformance material out there or name its folder in \(Self.folderVariable).",
            sourceLocation: sourceLocation)
    }

    /// The trait of a suite or test over `relativePaths`: enabled by ``shouldRun(_:)``, with
    /// ``skipReason(_:)`` as the reason.
    static func required(_ relativePaths: String..., sourceLocation: SourceLocation = #_sourceLocation) -> ConditionTrait {
        let material = ConformanceMaterial.current
        return .enabled(
            if: material.shouldRun(relativePaths), Comment(rawValue: material.skipReason(relativePaths)),
            sourceLocation: sourceLocation)
    }
}
