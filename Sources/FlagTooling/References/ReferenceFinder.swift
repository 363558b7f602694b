import FeatureFlags
import FlagManifest
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
    public let manifest: Manifest

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
            let name = SwiftNames.bareIdentifier(forKey: flag.key)
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

/// What the sources declare.
struct FlagDeclarations {
    /// Names of enums conforming to `FeatureFlagKey`.
    var enumNames: Set<String> = []
    /// Names of types holding typed-value constants.
    var valuesNames: Set<String> = []
    /// Case name → key.
    var caseKeys: [String: String] = [:]
    /// Typed constant name → key.
    var constantKeys: [String: String] = [:]

    mutating func merge(_ other: FlagDeclarations) {
        enumNames.formUnion(other.enumNames)
        valuesNames.formUnion(other.valuesNames)
        caseKeys.merge(other.caseKeys) { first, _ in first }
        constantKeys.merge(other.constantKeys) { first, _ in first }
    }
}

/// Learns flag enums and typed constants.
final class DeclarationCollector: SyntaxVisitor {
    var declarations = FlagDeclarations()

    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
        let inherited = node.inheritanceClause?.inheritedTypes.map { $0.type.trimmedDescription } ?? []
        guard inherited.contains(where: { $0 == "FeatureFlagKey" || $0.hasSuffix(".FeatureFlagKey") }) else {
            return .visitChildren
        }
        declarations.enumNames.insert(node.name.text)
        for member in node.memberBlock.members {
            guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
            for element in caseDecl.elements {
                let name = element.name.text.filter { $0 != "`" }
                if let literal = element.rawValue?.value.as(StringLiteralExprSyntax.self),
                    let key = literal.simpleText
                {
                    declarations.caseKeys[name] = key
                }
            }
        }
        return .visitChildren
    }

    override func visit(_ node: VariableDeclSyntax) -> SyntaxVisitorContinueKind {
        guard node.modifiers.contains(where: { $0.name.tokenKind == .keyword(.static) }) else { return .skipChildren }
        for binding in node.bindings {
            guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
                let call = binding.initializer?.value.as(FunctionCallExprSyntax.self),
                let key = ReferenceVisitor.declaredKey(of: call)
            else { continue }
            declarations.constantKeys[name.filter { $0 != "`" }] = key
            if let owner = node.enclosingTypeName { declarations.valuesNames.insert(owner) }
        }
        return .skipChildren
    }
}

/// Finds references in one file.
final class ReferenceVisitor: SyntaxVisitor {
    let file: String
    let converter: SourceLocationConverter
    let declarations: FlagDeclarations
    let keys: Set<String>
    let accessorKeys: [String: String]
    var references: [FlagReference] = []
    var unknownKeys: [UnknownKeyReference] = []

    init(file: String, converter: SourceLocationConverter, declarations: FlagDeclarations, keys: Set<String>) {
        self.file = file
        self.converter = converter
        self.declarations = declarations
        self.keys = keys
        self.accessorKeys = declarations.constantKeys
        super.init(viewMode: .sourceAccurate)
    }

    private func location(_ node: some SyntaxProtocol) -> (Int, Int) {
        let location = converter.location(for: node.positionAfterSkippingLeadingTrivia)
        return (location.line, location.column)
    }

    private func add(_ node: some SyntaxProtocol, key: String, kind: FlagReference.Kind) {
        let (line, column) = location(node)
        references.append(
            FlagReference(key: key, file: file, line: line, column: column, kind: kind, text: node.trimmedDescription))
    }

    // Declarations are not references: skip the flag enums' bodies and typed constants.
    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
        if declarations.enumNames.contains(node.name.text) {
            // Cases whose key the manifest lacks.
            for member in node.memberBlock.members {
                guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
                for element in caseDecl.elements {
                    guard let literal = element.rawValue?.value.as(StringLiteralExprSyntax.self),
                        let key = literal.simpleText, !keys.contains(key)
                    else { continue }
                    let (line, column) = location(element)
                    unknownKeys.append(
                        UnknownKeyReference(key: key, file: file, line: line, column: column, context: "enum case"))
                }
            }
            return .skipChildren
        }
        return .visitChildren
    }

    override func visit(_ node: VariableDeclSyntax) -> SyntaxVisitorContinueKind {
        if node.modifiers.contains(where: { $0.name.tokenKind == .keyword(.static) }),
            node.bindings.contains(where: {
                ($0.initializer?.value.as(FunctionCallExprSyntax.self)).flatMap(Self.declaredKey(of:)) != nil
            })
        {
            for binding in node.bindings {
                guard let call = binding.initializer?.value.as(FunctionCallExprSyntax.self),
                    let key = Self.declaredKey(of: call), !keys.contains(key)
                else { continue }
                let (line, column) = location(binding)
                unknownKeys.append(
                    UnknownKeyReference(
                        key: key, file: file, line: line, column: column, context: call.calledExpression.trimmedDescription))
            }
            return .skipChildren
        }
        return .visitChildren
    }

    override func visit(_ node: MemberAccessExprSyntax) -> SyntaxVisitorContinueKind {
        let name = node.declName.baseName.text.filter { $0 != "`" }
        guard let base = node.base else {
            if let key = declarations.caseKeys[name] { add(node, key: key, kind: .enumCase) }
            return .visitChildren
        }
        let baseName = base.as(DeclReferenceExprSyntax.self)?.baseName.text
        // A type name as the base: a flag enum or a typed-value namespace (known from the
        // sources, or any capitalised name when the declaring file was not scanned).
        let isTypeName = baseName.map { declarations.enumNames.contains($0) || declarations.valuesNames.contains($0) || $0.first?.isUppercase == true } ?? false
        if let baseName, isTypeName {
            if !declarations.valuesNames.contains(baseName), let key = declarations.caseKeys[name] {
                add(node, key: key, kind: .enumCase)
                return .skipChildren
            }
            if !declarations.enumNames.contains(baseName), let key = declarations.constantKeys[name] {
                add(node, key: key, kind: .typedConstant)
                return .skipChildren
            }
        }
        if let key = accessorKeys[name] {
            add(node, key: key, kind: .accessor)
        }
        return .visitChildren
    }

    override func visit(_ node: StringLiteralExprSyntax) -> SyntaxVisitorContinueKind {
        guard let text = node.simpleText else { return .skipChildren }
        if keys.contains(text) {
            add(node, key: text, kind: .keyString)
        } else if let context = Self.keyArgumentContext(of: node) {
            let (line, column) = location(node)
            unknownKeys.append(UnknownKeyReference(key: text, file: file, line: line, column: column, context: context))
        }
        return .skipChildren
    }

    /// `forKey:`/`key:` when the literal is such an argument, `TypedFlag` when it is the key of
    /// a `TypedFlag(…)`; `nil` otherwise.
    static func keyArgumentContext(of literal: StringLiteralExprSyntax) -> String? {
        guard let argument = literal.parent?.as(LabeledExprSyntax.self),
            let call = argument.parent?.parent?.as(FunctionCallExprSyntax.self)
        else { return nil }
        if let label = argument.label?.text, label == "forKey" || label == "key" { return "\(label):" }
        if isTypedFlagCall(call), argument.label == nil, call.arguments.first?.id == argument.id { return "TypedFlag" }
        return nil
    }

    static func isTypedFlagCall(_ call: FunctionCallExprSyntax) -> Bool {
        let callee = call.calledExpression.trimmedDescription
        return callee == "TypedFlag" || callee.hasPrefix("TypedFlag<")
    }

    /// The key a `TypedFlag("key", …)` or `FlagDefinition(key: "key", …)` declares.
    static func declaredKey(of call: FunctionCallExprSyntax) -> String? {
        let callee = call.calledExpression.trimmedDescription
        if isTypedFlagCall(call), let first = call.arguments.first, first.label == nil {
            return first.expression.as(StringLiteralExprSyntax.self)?.simpleText
        }
        if callee == "FlagDefinition", let first = call.arguments.first, first.label?.text == "key" {
            return first.expression.as(StringLiteralExprSyntax.self)?.simpleText
        }
        return nil
    }
}

extension StringLiteralExprSyntax {
    /// The text of a literal without interpolation, or `nil`.
    var simpleText: String? {
        guard segments.count == 1, let segment = segments.first?.as(StringSegmentSyntax.self) else {
            return segments.isEmpty ? "" : nil
        }
        return segment.content.text
    }
}

extension SyntaxProtocol {
    /// The name of the nearest enclosing type declaration or extension.
    var enclosingTypeName: String? {
        var current = parent
        while let node = current {
            if let decl = node.as(EnumDeclSyntax.self) { return decl.name.text }
            if let decl = node.as(StructDeclSyntax.self) { return decl.name.text }
            if let decl = node.as(ClassDeclSyntax.self) { return decl.name.text }
            if let decl = node.as(ExtensionDeclSyntax.self) { return decl.extendedType.trimmedDescription }
            current = node.parent
        }
        return nil
    }
}
