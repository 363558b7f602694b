// DeveloperToolsSupport: what the `#Preview` macros use (SwiftUI re-exports it). The SwiftUI
// macros themselves are declared in the SwiftUI stub, as in the SDK; their expansion comes from
// the Apple check's own plugin (../PreviewMacros), which type-checks the body on the main actor.

// https://developer.apple.com/documentation/developertoolssupport/preview — `@MainActor struct Preview`,
// iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
@MainActor public struct Preview {
    // https://developer.apple.com/documentation/developertoolssupport/preview/viewtraits
    public enum ViewTraits {}
}

// https://developer.apple.com/documentation/developertoolssupport/previewtrait — iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
public struct PreviewTrait<T>: Sendable {}

@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
extension PreviewTrait where T == Preview.ViewTraits {
    // https://developer.apple.com/documentation/developertoolssupport/previewtrait/sizethatfitslayout
    public static var sizeThatFitsLayout: PreviewTrait<T> { PreviewTrait() }
    // https://developer.apple.com/documentation/developertoolssupport/previewtrait/fixedlayout(width:height:)
    public static func fixedLayout(width: Double, height: Double) -> PreviewTrait<T> { PreviewTrait() }
}
