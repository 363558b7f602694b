import Foundation
import Testing

/// The rule every suite over conformance material follows (``ConformanceMaterial``): it runs when
/// the material is there, is skipped with one line naming what is missing otherwise, and under CI
/// runs (and fails) whether it is there or not. Checked against folders these tests make, so the
/// result does not depend on what is checked out beside the repository.
struct ConformanceGateTests {
    /// A folder holding `jsonlogic/compatible.json` and nothing else.
    static func materialFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("jsonlogic"), withIntermediateDirectories: true)
        try Data("[]".utf8).write(to: folder.appendingPathComponent("jsonlogic/compatible.json"))
        return folder
    }

    static func material(_ folder: URL, _ environment: [String: String] = [:]) -> ConformanceMaterial {
        ConformanceMaterial(environment: environment.merging([ConformanceMaterial.folderVariable: folder.path]) { a, _ in a })
    }

    @Test func presentMaterialAlwaysRuns() throws {
        let folder = try Self.materialFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(Self.material(folder).shouldRun(["jsonlogic/compatible.json"]))
        #expect(Self.material(folder, ["CI": "true"]).shouldRun(["jsonlogic/compatible.json"]))
    }

    @Test(arguments: [[:], ["CI": ""], ["CI": "false"], ["CI": "FALSE"], ["CI": "0"]])
    func missingMaterialSkipsOutsideCI(environment: [String: String]) throws {
        let folder = try Self.materialFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let material = Self.material(folder, environment)
        #expect(!material.shouldRun(["flagd-evaluator/gherkin"]))
        #expect(!material.shouldRun(["jsonlogic/compatible.json", "flagd-evaluator/gherkin"]))
        #expect(!Self.material(folder.appendingPathComponent("nothing-here"), environment).shouldRun(["jsonlogic/compatible.json"]))
    }

    @Test(arguments: [["CI": "true"], ["CI": "1"], ["CI": "yes"]])
    func missingMaterialRunsUnderCI(environment: [String: String]) throws {
        let folder = try Self.materialFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(Self.material(folder, environment).shouldRun(["flagd-evaluator/gherkin"]))
    }

    /// The one line a skipped suite shows names what is missing and how to provide it.
    @Test func theSkipReasonNamesTheMissingFolder() throws {
        let folder = try Self.materialFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(
            Self.material(folder).skipReason(["jsonlogic/compatible.json", "flagd-evaluator/gherkin"])
                == "\(folder.path)/flagd-evaluator/gherkin is not there (conformance material from other projects; check it out there or name its folder in FEATURE_FLAGS_CONFORMANCE_DIR). Under CI this suite runs and fails instead.")
        let beside = ConformanceMaterial(environment: [:], repository: URL(fileURLWithPath: "/nowhere/repository"))
        #expect(beside.root.path == "/nowhere/shared/conformance")
        #expect(beside.skipReason(["jsonlogic"]).hasPrefix("../shared/conformance/jsonlogic is not there"))
    }

    /// A suite running without its material fails naming the folder, and says CI is set only when it is.
    @Test(arguments: [false, true])
    func aSuiteRunningWithoutItsMaterialFails(underCI: Bool) throws {
        let folder = try Self.materialFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let material = Self.material(folder, underCI ? ["CI": "true"] : [:])
        let expected =
            (underCI ? "CI is set, so the suite runs, but " : "")
            + "\(folder.path)/no-such-folder is missing: check the conformance material out there or name its folder in FEATURE_FLAGS_CONFORMANCE_DIR."
        withKnownIssue("requirePresent records a failure naming the folder") {
            material.requirePresent("no-such-folder")
        } matching: { issue in
            issue.comments.map(\.rawValue) == [expected]
        }
        material.requirePresent("jsonlogic/compatible.json")  // there: no issue
    }

    /// The repository is found from the shared file, whichever target compiles it.
    @Test func theRepositoryIsTheRootPackage() {
        #expect(FileManager.default.fileExists(atPath: ConformanceMaterial.repository.appendingPathComponent("Sources/FeatureFlags").path))
        #expect(ConformanceMaterial.repository.standardizedFileURL == ConformanceFiles.packageRoot.standardizedFileURL)
    }
}
