#if canImport(SwiftUI)
import FeatureFlags

/// Flags for the package's own `#Preview`s: a few of each kind the menu edits.
enum PreviewFlag: String, CaseIterable, FeatureFlagKey {
    case redesign = "chat_redesign"
    case drawer = "ideas_drawer"
    case offline = "offline_mode"

    var metadata: FlagMetadata<PreviewFlag> {
        switch self {
        case .redesign:
            .init("Chat redesign", description: "The rebuilt conversation screen.", phase: 1, owner: "messaging",
                  default: true)
        case .drawer: .init("Ideas drawer", phase: 3, owner: "growth", userTogglable: true)
        case .offline: .init("Offline mode", phase: 3, owner: "sync", requires: [.redesign])
        }
    }

    static let typedFlags: [any FlagDefinitionConvertible] = [PreviewFlags.pageSize, PreviewFlags.flushInterval, PreviewFlags.greeting]
}

enum PreviewFlags {
    static let pageSize = TypedFlag<Int>("page_size", default: 50, displayName: "Page size", owner: "performance")
    static let flushInterval = TypedFlag<Double>(
        "flush_interval", default: 0.05, displayName: "Flush interval (s)", owner: "messaging")
    static let greeting = TypedFlag<String>("greeting", default: "Hello", displayName: "Greeting", owner: "growth")

    /// A debug-build manager with an override set, for previews.
    static func manager(_ configuration: BuildConfiguration = .debug) -> FeatureFlagManager<PreviewFlag> {
        let flags = FeatureFlagManager<PreviewFlag>(buildConfiguration: configuration)
        flags.setOverride(pageSize, to: 25)
        return flags
    }

    /// Environments for the switcher's preview.
    static let environments = FlagDebugEnvironmentSwitcher(
        options: [
            .init(name: "dev", detail: "https://dev.example.com"), .init(name: "stage", detail: "https://stage.example.com"),
            .init(name: "prod", detail: "https://example.com"),
        ], current: "prod") { _ in }
}
#endif
