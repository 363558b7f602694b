import Foundation

/// Runs the built `flags` executable, found next to the test bundle in the build products
/// directory (as swift-argument-parser's example tests do).
enum FlagsTool {
    struct Result: Equatable, CustomStringConvertible {
        var status: Int32
        var standardOutput: String
        var standardError: String

        var description: String { "exit \(status)\n--- stdout\n\(standardOutput)--- stderr\n\(standardError)" }
    }

    private final class BundleLocator {}

    /// The build products directory.
    static var productsDirectory: URL {
        let bundleURL = Bundle(for: BundleLocator.self).bundleURL
        return bundleURL.lastPathComponent.hasSuffix("xctest") ? bundleURL.deletingLastPathComponent() : bundleURL
    }

    /// Runs `flags` with `arguments` in `directory`, reading `standardInput` (a file) if given;
    /// the outputs are captured through files, so large outputs cannot fill a pipe.
    static func run(_ arguments: [String], in directory: URL? = nil, standardInput: URL? = nil) throws -> Result {
        let scratch = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("stdout")
        let errURL = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = productsDirectory.appendingPathComponent("flags")
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.standardOutput = out
        process.standardError = err
        if let standardInput { process.standardInput = try FileHandle(forReadingFrom: standardInput) }
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Result(
            status: process.terminationStatus,
            standardOutput: try String(contentsOf: outURL, encoding: .utf8),
            standardError: try String(contentsOf: errURL, encoding: .utf8))
    }
}
