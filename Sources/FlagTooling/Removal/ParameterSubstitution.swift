import SwiftSyntax

/// Replaces a closure parameter by an expression.
final class ParameterSubstitution: SyntaxRewriter {
    let name: String
    let replacement: ExprSyntax

    init(name: String, replacement: ExprSyntax) {
        self.name = name
        self.replacement = replacement
        super.init(viewMode: .sourceAccurate)
    }

    override func visit(_ node: DeclReferenceExprSyntax) -> ExprSyntax {
        guard node.baseName.text == name else { return super.visit(node) }
        return replacement.with(\.leadingTrivia, node.leadingTrivia).with(\.trailingTrivia, node.trailingTrivia)
    }
}
