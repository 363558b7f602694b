import SwiftSyntax

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
