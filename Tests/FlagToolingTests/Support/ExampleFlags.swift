import FeatureFlags

/// The example app's registry: the 34 flags of the demo app and a few typed values. Its
/// manifest is `Examples/Manifest/flags.json` (kept in sync by `ManifestTests`).
enum ExampleFlag: String, CaseIterable, FeatureFlagKey {
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

    var metadata: FlagMetadata<ExampleFlag> {
        switch self {
        case .liquidGlassDesign:
            FlagMetadata("Liquid Glass design", description: "Adopt the Liquid Glass materials across the app.", phase: 0, owner: "design-systems", removalTarget: "3.0")
        case .observableMigration:
            FlagMetadata("Observable migration", description: "Drive screens from @Observable models instead of ObservableObject.", phase: 0, owner: "platform", removalTarget: "3.0", enabledIn: [.debug, .alpha, .internal])
        case .navigationSplitView:
            FlagMetadata("Navigation split view", description: "Use NavigationSplitView for the root navigation.", phase: 1, owner: "ipad-team", removalTarget: "3.0")
        case .sidebarRedesign:
            FlagMetadata("Sidebar redesign", description: "The new sidebar with sections and pinned sessions.", phase: 1, owner: "ipad-team", removalTarget: "3.0", requires: [.navigationSplitView])
        case .ipadLayouts:
            FlagMetadata("iPad layouts", description: "Multi-column layouts on iPad.", phase: 1, owner: "ipad-team", removalTarget: "3.0", requires: [.navigationSplitView])
        case .chatViewRedesign:
            FlagMetadata("Chat view redesign", description: "The redesigned conversation screen.", phase: 2, owner: "messaging", removalTarget: "3.0")
        case .messageCardSystem:
            FlagMetadata("Message card system", description: "Render messages as composable cards.", phase: 2, owner: "messaging", removalTarget: "3.0", requires: [.chatViewRedesign])
        case .virtualizedScroll:
            FlagMetadata("Virtualized scroll", description: "Only lay out the visible messages.", phase: 2, owner: "performance", removalTarget: "3.0", requires: [.chatViewRedesign])
        case .streamInteractions:
            FlagMetadata("Stream interactions", description: "Interact with a reply while it streams in.", phase: 3, owner: "messaging", removalTarget: "3.0")
        case .cardStatusBanners:
            FlagMetadata("Card status banners", description: "Status banners on message cards.", phase: 3, owner: "messaging", removalTarget: "3.0", requires: [.messageCardSystem])
        case .subagentBreadcrumbs:
            FlagMetadata("Subagent breadcrumbs", description: "Show which subagent produced each step.", phase: 3, owner: "agents", removalTarget: "3.0")
        case .settingsRedesign:
            FlagMetadata("Settings redesign", description: "The grouped, searchable settings screen.", phase: 4, owner: "settings", removalTarget: "3.0")
        case .quickSettings:
            FlagMetadata("Quick settings", description: "A quick settings panel from the toolbar.", phase: 4, owner: "settings", removalTarget: "3.0", requires: [.settingsRedesign])
        case .terminalRedesign:
            FlagMetadata("Terminal redesign", description: "The new terminal with scrollback search.", phase: 5, owner: "tools", removalTarget: "3.0")
        case .fileBrowserRedesign:
            FlagMetadata("File browser redesign", description: "The new file browser with previews.", phase: 5, owner: "tools", removalTarget: "3.0")
        case .sessionPickerRedesign:
            FlagMetadata("Session picker redesign", description: "Search and group sessions in the picker.", phase: 5, owner: "sessions", removalTarget: "3.0")
        case .exportShare:
            FlagMetadata("Export and share", description: "Export a session as Markdown or share a link.", phase: 5, owner: "sessions", removalTarget: "3.0")
        case .sheetSystem:
            FlagMetadata("Sheet system", description: "One presentation system for every sheet.", phase: 6, owner: "design-systems", removalTarget: "3.0")
        case .commandPicker:
            FlagMetadata("Command picker", description: "Pick slash commands from a sheet.", phase: 6, owner: "tools", removalTarget: "3.0", requires: [.sheetSystem])
        case .ideasDrawer:
            FlagMetadata("Ideas drawer", description: "A drawer of saved prompts and ideas.", phase: 6, owner: "growth", removalTarget: "3.0")
        case .messageRetry:
            FlagMetadata("Message retry", description: "Retry a failed message in place.", phase: 7, owner: "messaging", removalTarget: "3.0")
        case .smartToolGrouping:
            FlagMetadata("Smart tool grouping", description: "Collapse runs of tool calls into groups.", phase: 7, owner: "agents", removalTarget: "3.0")
        case .offlineMode:
            FlagMetadata("Offline mode", description: "Read sessions without a connection.", phase: 7, owner: "sync", removalTarget: "3.0", conflicts: [.icloudSync], userTogglable: true)
        case .voiceInput:
            FlagMetadata("Voice input", description: "Dictate messages.", phase: 7, owner: "messaging", removalTarget: "3.0", userTogglable: true)
        case .interactiveWidgets:
            FlagMetadata("Interactive widgets", description: "Home screen widgets with buttons.", phase: 8, owner: "extensions", removalTarget: "3.0", requires: [.appIntents])
        case .controlCenter:
            FlagMetadata("Control Center controls", description: "Controls in Control Center.", phase: 8, owner: "extensions", removalTarget: "3.0", requires: [.appIntents])
        case .liveActivities:
            FlagMetadata("Live Activities", description: "Follow a running session on the Lock Screen.", phase: 8, owner: "extensions", removalTarget: "3.0")
        case .appIntents:
            FlagMetadata("App Intents", description: "Expose actions to Shortcuts and Siri.", phase: 8, owner: "extensions", removalTarget: "3.0")
        case .appShortcuts:
            FlagMetadata("App Shortcuts", description: "Ready-made shortcuts.", phase: 8, owner: "extensions", removalTarget: "3.0", requires: [.appIntents])
        case .icloudSync:
            FlagMetadata("iCloud sync", description: "Sync sessions through iCloud.", phase: 8, owner: "sync", removalTarget: "3.0")
        case .richNotifications:
            FlagMetadata("Rich notifications", description: "Notifications with previews and actions.", phase: 8, owner: "extensions", removalTarget: "3.0", userTogglable: true)
        case .shareExtension:
            FlagMetadata("Share extension", description: "Start a session from the share sheet.", phase: 8, owner: "extensions", removalTarget: "3.0")
        }
    }

    static let typedFlags: [any FlagDefinitionConvertible] = [
        ExampleConfig.pageSize, ExampleConfig.magicLinkCooldown, ExampleConfig.scrollDeceleration,
        ExampleConfig.composerPlaceholder, ExampleConfig.retryPolicy,
    ]
}

struct RetryPolicy: CodableFlagValue, Hashable {
    var attempts: Int
    var backoffSeconds: Double
}

enum ExampleConfig {
    static let pageSize = TypedFlag<Int>(
        "chat.page_size", default: 50, description: "Messages loaded per page.", owner: "performance",
        removalTarget: "4.0", buildDefaults: [.debug: 10])
    static let magicLinkCooldown = TypedFlag<Int>(
        "auth.magic_link_resend_cooldown", default: 60, displayName: "Magic link resend cooldown (s)",
        description: "Seconds before a magic link can be sent again.", owner: "identity", buildDefaults: [.debug: 5])
    static let scrollDeceleration = TypedFlag<Double>(
        "chat.scroll_deceleration", default: 0.998, description: "Deceleration rate of the message list.",
        owner: "performance", removalTarget: "4.0")
    static let composerPlaceholder = TypedFlag<String>(
        "chat.composer_placeholder", default: "Message", description: "Placeholder of the message composer.",
        owner: "messaging", removalTarget: "4.0", userTogglable: true)
    static let retryPolicy = TypedFlag<RetryPolicy>(
        "network.retry_policy", default: RetryPolicy(attempts: 3, backoffSeconds: 1.5),
        description: "How failed requests are retried.", owner: "platform", removalTarget: "4.0",
        buildDefaults: [.debug: RetryPolicy(attempts: 1, backoffSeconds: 0)])
}
