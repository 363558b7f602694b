import FeatureFlags
import FlagManifest
import FlagServerClient
import FlagTooling
import Foundation
import Testing

/// `flags export`, `push` and `diff --sources` read the README's own declarations: every Swift
/// snippet of README.md, taken as `scripts/readme_snippets.py` takes them (every ```swift block
/// except Package.swift fragments, in order, as one file), so a new snippet is read here too.
struct ReadmeDeclarationTests {
    /// The README's Swift snippets as one source, as the snippet script joins them.
    static func readmeSource() throws -> String {
        let readme = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let fence = "```swift\n"
        var blocks: [String] = []
        var rest = readme[...]
        while let start = rest.range(of: fence) {
            let body = rest[start.upperBound...]
            guard let end = body.range(of: "```") else { break }
            blocks.append(String(body[..<end.lowerBound]))
            rest = body[end.upperBound...]
        }
        return blocks.filter { !$0.contains(".package(") }.joined(separator: "\n")
    }

    /// The names of the enums the snippets declare as flag enums.
    static func flagEnumNames(in source: String) -> [String] {
        source.split(separator: "\n").compactMap { line -> String? in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("enum "), trimmed.contains("FeatureFlagKey") else { return nil }
            return trimmed.dropFirst("enum ".count).prefix { $0.isLetter || $0.isNumber || $0 == "_" }.description
        }
    }

    @Test func everyFlagEnumInTheReadmeIsRead() throws {
        let source = try Self.readmeSource()
        let names = Self.flagEnumNames(in: source)
        #expect(!names.isEmpty, "the README declares no flag enum any more; this test reads nothing")
        for name in names {
            let manifest = try SwiftRegistryReader().read(sources: [("README.md", source)], enumName: name)
            _ = try manifest.registry()  // as `flags export` checks it
            if name == "Flag" {
                #expect(manifest.flags.map(\.definition.key) == [
                    "chat_view_redesign", "message_card_system", "offline_mode", "icloud_sync", "page_size", "composer_style",
                ])
                let pageSize = try #require(manifest.flags.first { $0.definition.key == "page_size" }?.definition)
                #expect(pageSize.defaultValue == .int(50))
                #expect(pageSize.range == .integer(1...500))
                #expect(pageSize.owner == "performance")
                #expect(pageSize.buildDefaults == [.debug: .int(10)])
            }
        }
    }

    @Test func everyTypedValueInTheReadmeIsRead() throws {
        let declarations = try SwiftRegistryReader().typedFlagDeclarations(sources: [("README.md", try Self.readmeSource())])
        #expect(declarations.map(\.name).contains("Config.pageSize"))
        for declaration in declarations {
            _ = try FlagRegistry([declaration.definition])
        }
    }

    /// Every argument `TypedFlag` and `FlagDefinition` take (see `Sources/FeatureFlags/Declaring`).
    @Test func everyArgumentOfTheInitializersIsRead() throws {
        let source = """
            enum Config {
                static let pageSize = TypedFlag<Int>(
                    "page_size", default: 50, range: 1...500, displayName: "Page size", description: "Rows per page.",
                    phase: 3, owner: "performance", removalTarget: "4.0", buildDefaults: [.debug: 10],
                    userTogglable: true, sensitive: false, validate: { $0 % 10 == 0 })
                static let backoff = TypedFlag<Double>("retry_backoff", default: 1.5, range: 0.1...30)
                static let offset = TypedFlag<Int>("offset", default: -2, range: -5...5)
                static let greeting = TypedFlag<String>("greeting", default: "Hi") { !$0.isEmpty }
                static let limit = FlagDefinition(
                    key: "limit", type: .integer, default: .int(3), displayName: "Limit", description: "",
                    phase: nil, owner: nil, removalTarget: nil, buildDefaults: [:], followsPhasePolicy: false,
                    requires: [], conflicts: [], isUserTogglable: false, checking: .userOnly, isSensitive: false,
                    range: .integer(0...10))
                static let ratio = FlagDefinition(key: "ratio", type: .double, default: .double(0.5), range: FlagValueRange.double(0...1))
            }
            """
        let declarations = try SwiftRegistryReader().typedFlagDeclarations(sources: [("Config.swift", source)])
        let ranges = Dictionary(uniqueKeysWithValues: declarations.map { ($0.definition.key, $0.definition.range?.description ?? "none") })
        #expect(ranges == [
            "page_size": "1...500", "retry_backoff": "0.1...30.0", "offset": "-5...5",
            "greeting": "none", "limit": "0...10", "ratio": "0.0...1.0",
        ])
        let pageSize = try #require(declarations.first { $0.definition.key == "page_size" }?.definition)
        #expect(pageSize.isUserTogglable && pageSize.phase == 3 && pageSize.removalTarget == "4.0")
    }

    @Test(arguments: [
        ("TypedFlag<Int>(\"a\", default: 1, range: 5...1)", "expected a closed range of whole numbers with its lower bound first, such as 1...500, found 5...1."),
        ("TypedFlag<Int>(\"a\", default: 1, range: 1.5...3)", "expected a closed range of whole numbers with its lower bound first, such as 1...500, found 1.5...3."),
        ("TypedFlag<Int>(\"a\", default: 1, range: bounds)", "expected a closed range literal such as 1...500, found bounds."),
        ("TypedFlag<String>(\"a\", default: \"x\", range: 1...3)", "only TypedFlag<Int> and TypedFlag<Double> take a range; this flag is String."),
        ("FlagDefinition(key: \"a\", type: .integer, default: .int(1), range: 1...3)", "expected .integer(1...500) or .double(0.1...30), found 1...3."),
    ])
    func aRangeThatIsNotALiteralRangeIsAnErrorNamingTheFlag(declaration: String, message: String) {
        let source = "enum Config {\n    static let a = \(declaration)\n}\n"
        #expect {
            try SwiftRegistryReader().typedFlagDeclarations(sources: [("Config.swift", source)])
        } throws: { error in
            (error as? ToolingError)?.message == "Config.swift:2: 'a' range: \(message)"
        }
    }

    /// A default outside its own range is refused when the registry is built, as `flags export` builds it.
    @Test func aDefaultOutsideItsRangeIsRefused() throws {
        let source = "enum Config {\n    static let a = TypedFlag<Int>(\"a\", default: 0, range: 1...3)\n}\n"
        let declarations = try SwiftRegistryReader().typedFlagDeclarations(sources: [("Config.swift", source)])
        #expect(throws: FlagRegistryError.self) { try FlagRegistry(declarations.map(\.definition)) }
    }
}
