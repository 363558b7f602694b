import SwiftSyntax

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
