import FeatureFlags
import FlagManifest
import FlagServerClient
import SwiftParser
import SwiftSyntax

/// Finds where Swift sources refer to a manifest's flags, reading them with swift-syntax.
///
/// It learns the flag enums (enums conforming to `FeatureFlagKey`: case names and keys) and
/// the typed-value constants (`static let x = TypedFlag<…>("key", …)` or
/// `FlagDefinition(key: "key", …)`) from the sources, then reports:
/// - enum cases: `.chatViewRedesign`, `AppFlag.chatViewRedesign`;
/// - key strings: `"chat_view_redesign"` anywhere outside the declarations;
/// - typed constants: `AppFlagValues.chatPageSize`;
/// - generated accessors: `flags.chatPageSize`;
/// - unknown keys: string literals passed as `forKey:`/`key:` arguments or to `TypedFlag(…)`,
///   and enum cases, whose key is not in the manifest.
///
/// Declarations themselves (the enum, its metadata, the typed constants) and generated files
/// (starting with ``FlagCodeGenerator/header``) are not references.
public struct ReferenceFinder: Sendable {
    /// The manifest whose flags are looked for.
    public let manifest: Manifest

    /// A finder of the flags of `manifest`.
    public init(manifest: Manifest) {
        self.manifest = manifest
    }

    /// The references in `files`.
    public func scan(files: [String]) throws(ToolingError) -> ReferenceReport {
        var sources: [(path: String, text: String)] = []
        for path in files { sources.append((path, try SwiftSourceFiles.read(path))) }
        return scan(sources: sources)
    }

    /// The references in source texts, named by their paths.
    public func scan(sources: [(path: String, text: String)]) -> ReferenceReport {
        let parsed = sources.map { source in
            (path: source.path, tree: Parser.parse(source: source.text),
             isGenerated: source.text.hasPrefix(FlagCodeGenerator.header))
        }
        let keys = Set(manifest.flags.map(\.key))
        var declarations = FlagDeclarations()
        for file in parsed {
            let collector = DeclarationCollector(viewMode: .sourceAccurate)
            collector.walk(file.tree)
            declarations.merge(collector.declarations)
        }
        // Names a manifest implies even when the declaring file was not scanned.
        for flag in manifest.flags {
            let name = flag.bareSwiftIdentifier
            if flag.definition.type == .boolean {
                if declarations.caseKeys[name] == nil { declarations.caseKeys[name] = flag.key }
            } else {
                if declarations.constantKeys[name] == nil { declarations.constantKeys[name] = flag.key }
            }
        }

        var report = ReferenceReport(manifest: manifest)
        for file in parsed {
            let converter = SourceLocationConverter(fileName: file.path, tree: file.tree)
            guard !file.isGenerated else { continue }
            let visitor = ReferenceVisitor(
                file: file.path, converter: converter, declarations: declarations, keys: keys)
            visitor.walk(file.tree)
            report.references += visitor.references
            report.unknownKeys += visitor.unknownKeys
        }
        report.unknownKeys.sort { ($0.file, $0.line, $0.column) < ($1.file, $1.line, $1.column) }
        report.skippedGeneratedFiles = parsed.filter(\.isGenerated).map(\.path)
        return report
    }
}
