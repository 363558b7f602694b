import FeatureFlags
import FlagManifest
import FlagServerClient
import SwiftParser
import SwiftSyntax

/// Reads a flag registry declared in Swift sources, without compiling them, for `flags export`.
///
/// It finds the enum conforming to `FeatureFlagKey`, reads its cases, the `FlagMetadata` of each
/// case in the `metadata` switch, and the `TypedFlag` (or `FlagDefinition`) constants listed in
/// `typedFlags`, evaluating their literal arguments:
///
/// ```swift
/// let manifest = try SwiftRegistryReader().read(sources: [(path, text)])
/// print(manifest.jsonString())
/// ```
///
/// Limits: arguments must be literals (numbers, strings, Booleans, `nil`, arrays, dictionaries,
/// enum cases such as `.debug` or `.classic`, and memberwise calls such as
/// `RetryPolicy(attempts: 3, backoffSeconds: 1.5)`, read as a JSON object keyed by the argument
/// labels, which must be the type's coding keys); `metadata` must be a `switch self` whose cases
/// each produce one `FlagMetadata(...)` (or `.init(...)`); `typedFlags` must be an array literal of
/// `Namespace.constant` references. Anything else is an error naming the file, the line and the
/// flag, rather than a guess. Every argument the initializers take is understood: a `range` is a
/// literal such as `1...500` (`.integer(1...500)` for `FlagDefinition`) and is checked like the
/// registry checks it; a `validate` closure is code the manifest cannot carry and is left out,
/// as the in-process export leaves it out.
public struct SwiftRegistryReader: Sendable {
    /// A reader.
    public init() {}

    /// Every `TypedFlag` and `FlagDefinition` constant declared in `sources` (`static let`),
    /// listed in a `typedFlags` or not, by qualified name, so that declarations no registry
    /// lists yet are checked too.
    ///
    /// - Throws: ``ToolingError`` for declarations that are not literals.
    package func typedFlagDeclarations(
        sources: [(path: String, text: String)]
    ) throws(ToolingError) -> [(name: String, definition: FlagDefinition)] {
        let index = Self.index(sources)
        let evaluator = LiteralEvaluator(index: index)
        var result: [(name: String, definition: FlagDefinition)] = []
        for (name, constant) in index.constants.sorted(by: { $0.key < $1.key }) {
            var callee = constant.call.calledExpression.trimmedDescription
            if let generic = callee.firstIndex(of: "<") { callee = String(callee[..<generic]) }
            guard callee.split(separator: ".").last.map({ $0 == "TypedFlag" || $0 == "FlagDefinition" }) == true else { continue }
            result.append((name, try evaluator.typedFlag(constant.call, name: name, location: constant.location)))
        }
        return result
    }

    private static func index(_ sources: [(path: String, text: String)]) -> DeclarationIndex {
        var index = DeclarationIndex()
        for source in sources {
            let tree = Parser.parse(source: source.text)
            let collector = RegistryDeclarationCollector(
                path: source.path, converter: SourceLocationConverter(fileName: source.path, tree: tree))
            collector.walk(tree)
            index.merge(collector.index)
        }
        return index
    }

    /// The manifest of the flag enum named `enumName` (or of the only flag enum) in `sources`.
    ///
    /// - Throws: ``ToolingError`` (invalid input) for a missing or ambiguous enum and for
    ///   declarations that are not literals.
    public func read(
        sources: [(path: String, text: String)], enumName: String? = nil, flagSetID: String? = nil,
        version: String? = nil
    ) throws(ToolingError) -> Manifest {
        let index = Self.index(sources)
        let candidates = index.flagEnums.filter { enumName == nil || $0.name == enumName }
        guard let flagEnum = candidates.first else {
            throw ToolingError(
                .invalidInput,
                enumName.map { "No enum '\($0)' conforming to FeatureFlagKey in the sources." }
                    ?? "No enum conforming to FeatureFlagKey in the sources.")
        }
        guard candidates.count == 1 else {
            throw ToolingError(
                .invalidInput,
                "Several enums conform to FeatureFlagKey (\(candidates.map(\.name).joined(separator: ", "))); choose one with --enum-name.")
        }
        let evaluator = LiteralEvaluator(index: index)
        var flags: [ManifestFlag] = []
        let keysByCase = Dictionary(flagEnum.cases.map { ($0.name, $0.key) }, uniquingKeysWith: { first, _ in first })
        for flagCase in flagEnum.cases {
            guard let call = index.metadata[flagEnum.name]?[flagCase.name] else {
                throw ToolingError(
                    .invalidInput,
                    "\(flagCase.location): no FlagMetadata for the case '\(flagCase.name)' ('\(flagCase.key)') in \(flagEnum.name).metadata; flags export reads a `switch self` whose cases each return FlagMetadata(...).")
            }
            let definition = try evaluator.flagMetadata(call.call, key: flagCase.key, cases: keysByCase, location: call.location)
            flags.append(ManifestFlag(definition: definition, swiftName: Self.swiftName(flagCase.name, key: flagCase.key)))
        }
        if let location = index.unreadableTypedFlags[flagEnum.name] {
            throw ToolingError(
                .invalidInput,
                "\(location): \(flagEnum.name).typedFlags is not an array literal; flags export reads `static let typedFlags: [any FlagDefinitionConvertible] = [A.b, C.d, ...]` and would otherwise leave typed values out.")
        }
        for reference in index.typedFlags[flagEnum.name] ?? [] {
            let qualified = reference.base.map { "\($0).\(reference.name)" } ?? "\(flagEnum.name).\(reference.name)"
            guard let constant = index.constants[qualified] else {
                throw ToolingError(
                    .invalidInput,
                    "\(reference.location): typedFlags lists '\(qualified)', whose declaration (static let \(reference.name) = TypedFlag...) is not in the sources.")
            }
            let definition = try evaluator.typedFlag(constant.call, name: qualified, location: constant.location)
            // No Swift name for typed values: the in-process export (`Manifest(AppFlag.self)`) cannot
            // know a constant's name, and both exports must write the same manifest.
            flags.append(ManifestFlag(definition: definition, swiftName: nil))
        }
        return Manifest(flags: flags, flagSetID: flagSetID, version: version)
    }

    private static func swiftName(_ name: String, key: String) -> String? {
        name == SwiftNames.bareIdentifier(forKey: key) ? nil : name
    }
}

/// What ``SwiftRegistryReader`` collects from all files before evaluating.
struct DeclarationIndex {
    struct FlagCase {
        var name: String
        var key: String
        var location: String
    }

    struct FlagEnum {
        var name: String
        var cases: [FlagCase]
    }

    struct Located<Value> {
        var call: Value
        var location: String
    }

    struct Reference {
        var base: String?
        var name: String
        var location: String
    }

    var flagEnums: [FlagEnum] = []
    /// Enum name → case name → the case's `FlagMetadata(...)` call.
    var metadata: [String: [String: Located<FunctionCallExprSyntax>]] = [:]
    /// Enum name → the `typedFlags` array elements.
    var typedFlags: [String: [Reference]] = [:]
    /// Enum name → where a `typedFlags` that is not an array literal is declared.
    var unreadableTypedFlags: [String: String] = [:]
    /// `Type.constant` → its initializer call.
    var constants: [String: Located<FunctionCallExprSyntax>] = [:]
    /// Enums with a `String` raw type: name → case name → raw value.
    var stringEnums: [String: [String: String]] = [:]

    mutating func merge(_ other: DeclarationIndex) {
        flagEnums += other.flagEnums
        metadata.merge(other.metadata) { $0.merging($1) { first, _ in first } }
        typedFlags.merge(other.typedFlags) { $0 + $1 }
        unreadableTypedFlags.merge(other.unreadableTypedFlags) { first, _ in first }
        constants.merge(other.constants) { first, _ in first }
        stringEnums.merge(other.stringEnums) { $0.merging($1) { first, _ in first } }
    }
}

/// Walks one file, filling a ``DeclarationIndex``.
private final class RegistryDeclarationCollector: SyntaxVisitor {
    let path: String
    let converter: SourceLocationConverter
    var index = DeclarationIndex()
    /// The enclosing type names.
    private var scopes: [String] = []

    init(path: String, converter: SourceLocationConverter) {
        self.path = path
        self.converter = converter
        super.init(viewMode: .sourceAccurate)
    }

    func location(_ node: some SyntaxProtocol) -> String {
        "\(path):\(node.startLocation(converter: converter).line)"
    }

    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
        let name = node.name.text
        scopes.append(name)
        let inherited = node.inheritanceClause?.inheritedTypes.map { $0.type.trimmedDescription } ?? []
        let cases = node.memberBlock.members.compactMap { $0.decl.as(EnumCaseDeclSyntax.self) }.flatMap(\.elements)
        if inherited.contains(where: { $0 == "FeatureFlagKey" || $0.hasSuffix(".FeatureFlagKey") }) {
            index.flagEnums.append(
                DeclarationIndex.FlagEnum(
                    name: name,
                    cases: cases.map { element in
                        let caseName = element.name.text.filter { $0 != "`" }
                        let raw = element.rawValue?.value.as(StringLiteralExprSyntax.self)?.simpleText
                        return DeclarationIndex.FlagCase(name: caseName, key: raw ?? caseName, location: location(element))
                    }))
        }
        if inherited.first == "String" {
            var raws: [String: String] = [:]
            for element in cases {
                let caseName = element.name.text.filter { $0 != "`" }
                raws[caseName] = element.rawValue?.value.as(StringLiteralExprSyntax.self)?.simpleText ?? caseName
            }
            index.stringEnums[name] = raws
        }
        return .visitChildren
    }

    override func visitPost(_ node: EnumDeclSyntax) { scopes.removeLast() }

    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind {
        scopes.append(node.name.text)
        return .visitChildren
    }

    override func visitPost(_ node: StructDeclSyntax) { scopes.removeLast() }

    override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind {
        scopes.append(node.extendedType.trimmedDescription)
        return .visitChildren
    }

    override func visitPost(_ node: ExtensionDeclSyntax) { scopes.removeLast() }

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind { .skipChildren }

    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind { .skipChildren }

    override func visit(_ node: VariableDeclSyntax) -> SyntaxVisitorContinueKind {
        guard let scope = scopes.last else { return .skipChildren }
        for binding in node.bindings {
            guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text.filter({ $0 != "`" })
            else { continue }
            switch name {
            case "metadata":
                if let switchExpr = Self.switchExpression(of: binding) { collectMetadata(switchExpr, enumName: scope) }
            case "typedFlags":
                if let array = Self.arrayExpression(of: binding) {
                    index.typedFlags[scope, default: []] += array.elements.compactMap { element in
                        if let member = element.expression.as(MemberAccessExprSyntax.self) {
                            return DeclarationIndex.Reference(
                                base: member.base?.trimmedDescription, name: member.declName.baseName.text,
                                location: location(element))
                        }
                        if let reference = element.expression.as(DeclReferenceExprSyntax.self) {
                            return DeclarationIndex.Reference(base: nil, name: reference.baseName.text, location: location(element))
                        }
                        return nil
                    }
                } else {
                    index.unreadableTypedFlags[scope] = location(binding)
                }
            default:
                if node.modifiers.contains(where: { $0.name.tokenKind == .keyword(.static) }),
                    let call = binding.initializer?.value.as(FunctionCallExprSyntax.self)
                {
                    // Keyed by the full type path, so `Outer.Inner.constant` finds a nested declaration.
                    index.constants["\(scopes.joined(separator: ".")).\(name)"] = .init(call: call, location: location(binding))
                }
            }
        }
        return .skipChildren
    }

    private func collectMetadata(_ switchExpr: SwitchExprSyntax, enumName: String) {
        for element in switchExpr.cases {
            guard case .switchCase(let switchCase) = element, case .case(let label) = switchCase.label,
                let statement = switchCase.statements.last?.item
            else { continue }
            var expression = statement.as(ExprSyntax.self) ?? statement.as(ExpressionStmtSyntax.self)?.expression
            if let returned = statement.as(ReturnStmtSyntax.self) { expression = returned.expression }
            guard let call = expression?.as(FunctionCallExprSyntax.self) else { continue }
            for item in label.caseItems {
                guard let member = item.pattern.as(ExpressionPatternSyntax.self)?.expression.as(MemberAccessExprSyntax.self)
                else { continue }
                index.metadata[enumName, default: [:]][member.declName.baseName.text.filter { $0 != "`" }] =
                    .init(call: call, location: location(call))
            }
        }
    }

    /// The `switch` of `var metadata: … { switch self { … } }` (or `{ get { … } }`, or `return switch`).
    private static func switchExpression(of binding: PatternBindingSyntax) -> SwitchExprSyntax? {
        guard let accessors = binding.accessorBlock?.accessors else { return nil }
        let statements: CodeBlockItemListSyntax?
        switch accessors {
        case .getter(let items): statements = items
        case .accessors(let list): statements = list.first { $0.accessorSpecifier.tokenKind == .keyword(.get) }?.body?.statements
        }
        guard let item = statements?.last?.item else { return nil }
        if let expression = item.as(ExpressionStmtSyntax.self)?.expression.as(SwitchExprSyntax.self) { return expression }
        if let expression = item.as(SwitchExprSyntax.self) { return expression }
        return item.as(ReturnStmtSyntax.self)?.expression?.as(SwitchExprSyntax.self)
    }

    /// The array of `static let typedFlags: [...] = [...]` or `static var typedFlags: [...] { [...] }`.
    private static func arrayExpression(of binding: PatternBindingSyntax) -> ArrayExprSyntax? {
        if let array = binding.initializer?.value.as(ArrayExprSyntax.self) { return array }
        guard case .getter(let items)? = binding.accessorBlock?.accessors, let item = items.last?.item else { return nil }
        if let array = item.as(ArrayExprSyntax.self) { return array }
        return item.as(ReturnStmtSyntax.self)?.expression?.as(ArrayExprSyntax.self)
    }
}
