import Foundation

/// Locations in the package, found from this file's path.
enum TestPaths {
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let exampleManifest = packageRoot.appendingPathComponent("Examples/Manifest/flags.json")
    static let fixtures = packageRoot.appendingPathComponent("Tests/FlagToolingTests/Fixtures")

    /// A new empty temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("flags-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
