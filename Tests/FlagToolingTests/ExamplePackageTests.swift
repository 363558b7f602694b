import Foundation
import Testing

extension Tag {
    /// Builds a whole Swift package: takes a minute or more.
    @Tag static var slow: Self
}

/// Whether the slow tests run: with `FEATURE_FLAGS_SLOW_TESTS=1`, and always in CI (`CI=true`),
/// so that a plain `swift test` stays quick for people changing the code.
enum SlowTests {
    static let variable = "FEATURE_FLAGS_SLOW_TESTS"

    static func enabled(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        environment[variable] == "1" || environment["CI"]?.lowercased() == "true"
    }

    static let skipMessage: Comment = """
        Skipped: builds a whole Swift package (minutes). Run with FEATURE_FLAGS_SLOW_TESTS=1 swift test \
        (CI=true runs it too).
        """
}

/// SLOW: generates code for the example manifest into a temporary package that depends on
/// this library by path, builds and runs it; then removes a flag with `flags remove`,
/// rebuilds and runs it again. One test, so the package is compiled once (the second build is
/// incremental). Runs only with `FEATURE_FLAGS_SLOW_TESTS=1` or `CI=true` (see ``SlowTests``).
@Suite(.tags(.slow), .enabled(if: SlowTests.enabled(), SlowTests.skipMessage))
struct ExamplePackageTests {
    @Test func generatedCodeBuildsRunsAndRoundTrips() throws {
        let (package, sources) = try Self.makeAppPackage(
            named: "ExampleApp", products: ["FeatureFlags", "FeatureFlagsTesting"])
        defer { try? FileManager.default.removeItem(at: package) }
        let manifest = package.appendingPathComponent("flags.json")
        try FileManager.default.copyItem(at: TestPaths.exampleManifest, to: manifest)
        for name in ["main.swift", "Views.swift"] {
            try FileManager.default.copyItem(
                at: TestPaths.fixtures.appendingPathComponent("ExampleApp/\(name)"),
                to: sources.appendingPathComponent(name))
        }

        let generated = try FlagsTool.run(["generate", "--manifest", manifest.path, "--output", sources.path])
        #expect(generated.status == 0, "\(generated)")

        let before = try Self.buildAndRun(package)
        let parts = before.components(separatedBy: "---\n")
        #expect(
            parts.first == """
                chat: classic
                guard: off
                combined: classic-or-offline,voice
                ternary: off
                gated: []
                styled: [title]
                page size: 50
                retry: {"attempts":3,"backoffSeconds":1.5}

                """)
        // Manifest → Swift → manifest gives the manifest back.
        #expect(parts.last == (try String(contentsOf: TestPaths.exampleManifest, encoding: .utf8)))

        // Remove chat_view_redesign as if it were always on: the code still builds, behaves as
        // "on", and its registry is the rewritten manifest.
        let removed = try FlagsTool.run(
            ["remove", "chat_view_redesign", "--keep", "on", "--manifest", "flags.json", "--sources", "Sources"],
            in: package)
        #expect(removed.status == 0, "\(removed)")
        #expect(removed.standardOutput.hasSuffix("""
            Removed 'chat_view_redesign', kept on: 2 files rewritten, manifest updated.
              Sources/App/AppFlag.swift: removed a switch case, removed the enum case, removed the flag from a list (×2)
              Sources/App/main.swift: kept the body of an if, removed a guard that always passes, simplified a ternary, simplified an if condition (×3), simplified featureGated, simplified withFeature

            """))
        let after = try Self.buildAndRun(package).components(separatedBy: "---\n")
        #expect(
            after.first == """
                chat: redesigned
                guard: on
                combined: chat+voice,voice
                ternary: on
                gated: [banner]
                styled: [**title**]
                page size: 50
                retry: {"attempts":3,"backoffSeconds":1.5}

                """)
        #expect(after.last == (try String(contentsOf: manifest, encoding: .utf8)))
        #expect(!(try String(contentsOf: manifest, encoding: .utf8)).contains("chat_view_redesign"))
    }

    /// SLOW (builds `flags` and swift-syntax inside the temporary package): the build-tool
    /// plugin generates the enum from `flags.json` in the target on build.
    @Test func buildToolPluginGeneratesOnBuild() throws {
        let (package, sources) = try Self.makeAppPackage(
            named: "PluginApp", products: ["FeatureFlags"], plugins: ["FlagsGeneratePlugin"])
        defer { try? FileManager.default.removeItem(at: package) }
        try FileManager.default.copyItem(at: TestPaths.exampleManifest, to: sources.appendingPathComponent("flags.json"))
        try """
            import FeatureFlags

            let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
            print(AppFlag.allCases.count, flags.isEnabled(.chatViewRedesign), flags.pageSize)

            """.write(to: sources.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
        #expect(try Self.buildAndRun(package) == "32 true 10\n")
    }

    /// A temporary package with an executable target `App` that depends on this library's
    /// `products` and uses its `plugins`; returns the package and the target's source folder.
    static func makeAppPackage(
        named name: String, products: [String], plugins: [String] = []
    ) throws -> (package: URL, sources: URL) {
        let package = try TestPaths.temporaryDirectory()
        let sources = package.appendingPathComponent("Sources/App")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        let root = TestPaths.packageRoot
        let rootName = literal(root.lastPathComponent)
        let dependencies = products.map { ".product(name: \(literal($0)), package: \(rootName))" }
        let pluginUses = plugins.map { ".plugin(name: \(literal($0)), package: \(rootName))" }
        try """
            // swift-tools-version: 6.1
            import PackageDescription

            let package = Package(
                name: \(literal(name)),
                platforms: [.macOS(.v15)],
                dependencies: [.package(path: \(literal(root.path)))],
                targets: [
                    .executableTarget(
                        name: "App",
                        dependencies: [\(dependencies.joined(separator: ", "))],
                        plugins: [\(pluginUses.joined(separator: ", "))]
                    )
                ]
            )

            """.write(to: package.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        return (package, sources)
    }

    static func literal(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// `swift build` then the built `App`; returns its standard output.
    static func buildAndRun(_ package: URL) throws -> String {
        let build = try run("/usr/bin/env", ["swift", "build", "--package-path", package.path, "--product", "App"])
        #expect(build.status == 0, "swift build failed:\n\(build.output)")
        guard build.status == 0 else { return "" }
        let app = try run(package.appendingPathComponent(".build/debug/App").path, [])
        #expect(app.status == 0, "App failed:\n\(app.output)")
        return app.output
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let scratch = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("out")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        let handle = try FileHandle(forWritingTo: outURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        return (process.terminationStatus, try String(contentsOf: outURL, encoding: .utf8))
    }
}

struct SlowTestsTests {
    @Test func slowTestsRunWhenAskedForAndAlwaysInCI() {
        #expect(!SlowTests.enabled(environment: [:]))
        #expect(!SlowTests.enabled(environment: ["FEATURE_FLAGS_SLOW_TESTS": "0", "CI": "false"]))
        #expect(SlowTests.enabled(environment: ["FEATURE_FLAGS_SLOW_TESTS": "1"]))
        #expect(SlowTests.enabled(environment: ["CI": "true"]))
        #expect(SlowTests.enabled(environment: ["CI": "TRUE"]))
    }
}
