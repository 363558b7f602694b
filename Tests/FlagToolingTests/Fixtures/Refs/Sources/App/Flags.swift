import FeatureFlags

// A hand-written flag enum: its cases and metadata are declarations, not references.
enum AppFlag: String, CaseIterable, FeatureFlagKey {
    case chatViewRedesign = "chat_view_redesign"
    case voiceInput = "voice_input"
    case oldOnboarding = "old_onboarding"
    case exportShare = "export_share"
    case legacyMode = "legacy_mode"

    var metadata: FlagMetadata<AppFlag> {
        switch self {
        case .chatViewRedesign: FlagMetadata("Chat view redesign")
        case .voiceInput: FlagMetadata("Voice input", requires: [.chatViewRedesign])
        case .oldOnboarding: FlagMetadata("Old onboarding", default: true)
        case .exportShare: FlagMetadata("Export and share")
        case .legacyMode: FlagMetadata("Legacy mode")
        }
    }

    static let typedFlags: [any FlagDefinitionConvertible] = [AppConfig.pageSize, AppConfig.ghost]
}

enum AppConfig {
    static let pageSize = TypedFlag<Int>("chat.page_size", default: 50)
    static let ghost = TypedFlag<Int>("ghost.value", default: 1)
}
