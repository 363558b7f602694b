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
        // `@Previewable @State var x = ...` in the body: Xcode's expansion makes it a property of
        // a generated view; here it stays a local property wrapper, which type-checks the same.
        let body = closure.description.replacing("@Previewable", with: "")
        return [
            """
            @MainActor private enum \(name) {
                @MainActor static func makeBody() -> any View { __previewBody(\(raw: body)) }
            }
            """
        ]
    }
}

/// `@Previewable`: only meaningful inside `#Preview`, whose expansion removes it; adds nothing.
public struct PreviewableMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}
