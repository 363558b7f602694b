import FeatureFlags

/// A realistic app registry: 34 Boolean flags across phases, a few dependencies, and two typed
/// values. Mirrors the size of the app the package was designed for.
enum AppFlag: String, CaseIterable, FeatureFlagKey {
    case liquidGlassDesign = "liquid_glass_design"
    case observableMigration = "observable_migration"
    case navigationSplitView = "navigation_split_view"
    case sidebarRedesign = "sidebar_redesign"
    case ipadLayouts = "ipad_layouts"
    case chatViewRedesign = "chat_view_redesign"
    case messageCardSystem = "message_card_system"
    case virtualizedScroll = "virtualized_scroll"
    case streamInteractions = "stream_interactions"
    case cardStatusBanners = "card_status_banners"
    case subagentBreadcrumbs = "subagent_breadcrumbs"
    case settingsRedesign = "settings_redesign"
    case quickSettings = "quick_settings"
    case terminalRedesign = "terminal_redesign"
    case fileBrowserRedesign = "file_browser_redesign"
    case sessionPickerRedesign = "session_picker_redesign"
    case exportShare = "export_share"
    case sheetSystem = "sheet_system"
    case commandPicker = "command_picker"
    case ideasDrawer = "ideas_drawer"
    case messageRetry = "message_retry"
    case smartToolGrouping = "smart_tool_grouping"
    case offlineMode = "offline_mode"
    case voiceInput = "voice_input"
    case interactiveWidgets = "interactive_widgets"
    case controlCenter = "control_center"
    case liveActivities = "live_activities"
    case appIntents = "app_intents"
    case appShortcuts = "app_shortcuts"
    case icloudSync = "icloud_sync"
    case richNotifications = "rich_notifications"
    case shareExtension = "share_extension"
    case spotlightIndexing = "spotlight_indexing"
    case keyboardShortcuts = "keyboard_shortcuts"

    var metadata: FlagMetadata<AppFlag> {
        let index = Self.allCases.firstIndex(of: self) ?? 0
        switch self {
        case .sidebarRedesign:
            return FlagMetadata("Sidebar redesign", phase: 1, requires: [.navigationSplitView])
        case .messageCardSystem:
            return FlagMetadata("Message card system", phase: 2, requires: [.chatViewRedesign])
        case .appShortcuts:
            return FlagMetadata("App shortcuts", phase: 1, requires: [.appIntents])
        case .offlineMode:
            return FlagMetadata("Offline mode", phase: 3, userTogglable: true)
        default:
            return FlagMetadata(FlagDefinition.displayName(forKey: rawValue), phase: index % 4)
        }
    }

    static let typedFlags: [any FlagDefinitionConvertible] = [AppConfig.pageSize, AppConfig.composerPlaceholder]
}

/// Typed values read by the typed-read benchmarks.
enum AppConfig {
    static let pageSize = TypedFlag<Int>("page_size", default: 50, buildDefaults: [.debug: 20])
    static let composerPlaceholder = TypedFlag<String>(
        "composer_placeholder", default: "Message", buildDefaults: [.debug: "Message (debug build)"])
}
