// The `#Preview` macro of the Apple check's DeveloperToolsSupport stub (see ../README.md).
//
// A compiler library plugin built against the toolchain's own swift-syntax (lib/swift/host), so
// it costs one small compile (about a second) and no swift-syntax build. It expands
// `#Preview("name") { body }` into a main-actor function that passes the body, as a
// `@ViewBuilder @MainActor` closure, to `__previewBody`, so the body is type-checked the way
// Xcode's expansion checks it: on the main actor, as a view builder.
import SwiftSyntax
import SwiftSyntaxMacros

public struct PreviewMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        let name = context.makeUniqueName("Preview")
        let closure = node.trailingClosure ?? node.arguments.last?.expression.as(ClosureExprSyntax.self)
        guard let closure else { return [] }
        return [
            """
            @MainActor private enum \(name) {
                @MainActor static func makeBody() -> any View { __previewBody(\(closure)) }
            }
            """
        ]
    }
}
