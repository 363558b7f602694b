import FlagServer
import Foundation
import Testing

/// What a release promises and the repository's files must keep true: the version the server
/// prints is the newest in CHANGELOG.md, and the server's manifest pins each direct dependency
/// exactly (its Package.resolved is not committed: UPGRADING.md says why) and names each product
/// once per target.
struct ReleaseTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func theServerPrintsTheChangelogsNewestVersion() throws {
        // `## [0.1.0] - 2026-…`, newest first; `## [Unreleased]` (changes without a version) is skipped.
        let versions = try Self.text("CHANGELOG.md").split(separator: "\n")
            .filter { $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]") }
            .compactMap { $0.dropFirst(4).split(separator: "]").first.map(String.init) }
        #expect(versions.first == FlagServer.version)
        let parts = FlagServer.version.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) })
        #expect(try Self.text("UPGRADING.md").contains("## To \(FlagServer.version)"))
    }

    @Test func everyDirectDependencyIsPinnedExactly() throws {
        let lines = try Self.text("Server/Package.swift").split(separator: "\n").filter { $0.contains(".package(url:") }
        #expect(lines.count >= 10)
        for line in lines {
            #expect(line.contains(", exact: \""), "not pinned exactly: \(line.trimmingCharacters(in: .whitespaces))")
        }
    }

    @Test func noTargetNamesAProductTwice() throws {
        let manifest = try Self.text("Server/Package.swift")
        #expect(Self.productsNamedTwice(inTargetsOf: manifest).isEmpty)
        // The check sees a repeated product, as the FlagServer target's AsyncHTTPClient was.
        let repeated = """
            package.targets = [
                .target(
                    name: "A",
                    dependencies: [
                        .product(name: "AsyncHTTPClient", package: "async-http-client"),
                        .product(name: "Logging", package: "swift-log"),
                        .product(name: "AsyncHTTPClient", package: "async-http-client"),
                    ]
                ),
                .testTarget(name: "ATests", dependencies: [.product(name: "Logging", package: "swift-log")]),
            ]
            """
        #expect(Self.productsNamedTwice(inTargetsOf: repeated) == ["A: .product(name: \"AsyncHTTPClient\", package: \"async-http-client\")"])
    }

    /// `target: product` for each product a target's declaration lists more than once.
    static func productsNamedTwice(inTargetsOf manifest: String) -> [String] {
        let declarations = manifest.components(separatedBy: "package.targets").dropFirst().joined()
        var found: [String] = []
        for kind in [".target(", ".executableTarget(", ".testTarget("] {
            for declaration in declarations.components(separatedBy: kind).dropFirst() {
                // Up to the next declaration of any kind.
                let own = [".target(", ".executableTarget(", ".testTarget("]
                    .compactMap { declaration.range(of: $0)?.lowerBound }.min()
                    .map { String(declaration[..<$0]) } ?? declaration
                guard let nameStart = own.range(of: "name: \"") else { continue }
                let name = own[nameStart.upperBound...].prefix { $0 != "\"" }
                var seen: Set<String> = []
                for product in own.components(separatedBy: ".product(").dropFirst() {
                    let key = ".product(" + product.prefix { $0 != ")" } + ")"
                    if !seen.insert(key).inserted { found.append("\(name): \(key)") }
                }
            }
        }
        return found
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
