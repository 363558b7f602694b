// Stand-ins for SwiftUI views and the FeatureFlagsUI view modifiers, so that the example app
// builds and runs on Linux.

protocol View {
    func render() -> String
}

struct Text: View {
    let text: String
    init(_ text: String) { self.text = text }
    func render() -> String { text }
}

struct EmptyView: View {
    func render() -> String { "" }
}

struct Bold<Content: View>: View {
    let content: Content
    func render() -> String { "**\(content.render())**" }
}

struct Gated<Content: View>: View {
    let content: Content
    let isOn: Bool
    func render() -> String { isOn ? content.render() : "" }
}

struct Either<First: View, Second: View>: View {
    let first: First?
    let second: Second?
    func render() -> String { first?.render() ?? second?.render() ?? "" }
}

extension View {
    func bold() -> Bold<Self> { Bold(content: self) }

    /// Shows the view only when the flag is on.
    func featureGated(_ flag: AppFlag) -> Gated<Self> { Gated(content: self, isOn: flags.isEnabled(flag)) }

    /// Applies `transform` only when the flag is on.
    func withFeature<Modified: View>(_ flag: AppFlag, _ transform: (Self) -> Modified) -> Either<Modified, Self> {
        flags.isEnabled(flag) ? Either(first: transform(self), second: nil) : Either(first: nil, second: self)
    }
}
