// DeveloperToolsSupport: the `#Preview` macro (SwiftUI re-exports it).
// https://developer.apple.com/documentation/swiftui/preview(_:body:)
// Declared as in the SDK: `@freestanding(declaration) macro Preview(_ name: String? = nil,
// @ViewBuilder body: @escaping @MainActor () -> any View)`. The expansion comes from the Apple
// check's own plugin (../PreviewMacros), which type-checks the body on the main actor. Its View
// and ViewBuilder are SwiftUI's; to keep the stub modules acyclic the macro is declared in the
// SwiftUI stub, where those types are, and this module holds what SwiftUI does not.

// https://developer.apple.com/documentation/developertoolssupport/previewtrait
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
public struct PreviewTrait<T>: Sendable {}
