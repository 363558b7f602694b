import SwiftSyntax

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
