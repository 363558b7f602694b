import FeatureFlags

/// The app's flags: the registry of the design this package follows, 34 flags in phases 0–8.
public enum AppFlag: String, CaseIterable, FeatureFlagKey {
    // Phase 0: foundations
    case liquidGlassDesign = "liquid_glass_design"
    case observableMigration = "observable_migration"
    // Phase 1: navigation
    case navigationSplitView = "navigation_split_view"
    case sidebarRedesign = "sidebar_redesign"
    case ipadLayouts = "ipad_layouts"
    // Phase 2: chat
    case chatViewRedesign = "chat_view_redesign"
    case messageCardSystem = "message_card_system"
    case virtualizedScroll = "virtualized_scroll"
    // Phase 3: streaming
    case streamInteractions = "stream_interactions"
    case cardStatusBanners = "card_status_banners"
    case subagentBreadcrumbs = "subagent_breadcrumbs"
    // Phase 4: settings
    case settingsRedesign = "settings_redesign"
    case quickSettings = "quick_settings"
    // Phase 5: tools
    case terminalRedesign = "terminal_redesign"
    case fileBrowserRedesign = "file_browser_redesign"
    case sessionPickerRedesign = "session_picker_redesign"
    case exportShare = "export_share"
    // Phase 6: sheets and pickers
    case sheetSystem = "sheet_system"
    case commandPicker = "command_picker"
    case ideasDrawer = "ideas_drawer"
    // Phase 7: resilience and input
    case messageRetry = "message_retry"
    case smartToolGrouping = "smart_tool_grouping"
    case offlineMode = "offline_mode"
    case voiceInput = "voice_input"
    // Phase 8: system integration
    case interactiveWidgets = "interactive_widgets"
    case controlCenter = "control_center"
    case liveActivities = "live_activities"
    case appIntents = "app_intents"
    case appShortcuts = "app_shortcuts"
    case icloudSync = "icloud_sync"
    case richNotifications = "rich_notifications"
    case shareExtension = "share_extension"

    public var metadata: FlagMetadata<AppFlag> {
        switch self {
        case .liquidGlassDesign:
            .init("Liquid Glass design", description: "Adopts the Liquid Glass materials across the app.",
                  phase: 0, owner: "design-systems", removalTarget: "3.0")
        case .observableMigration:
            .init("Observable migration", description: "View models use @Observable instead of ObservableObject.",
                  phase: 0, owner: "platform", removalTarget: "3.0")
        case .navigationSplitView:
            .init("Navigation split view", description: "Root navigation built on NavigationSplitView.",
                  phase: 1, owner: "navigation", removalTarget: "3.0")
        case .sidebarRedesign:
            .init("Sidebar redesign", description: "Grouped sidebar with pinned sessions.",
                  phase: 1, owner: "navigation", removalTarget: "3.0", requires: [.navigationSplitView])
        case .ipadLayouts:
            .init("iPad layouts", description: "Three-column layouts on iPad.",
                  phase: 1, owner: "navigation", removalTarget: "3.0", requires: [.navigationSplitView])
        case .chatViewRedesign:
            .init("Chat view redesign", description: "The rebuilt conversation screen.",
                  phase: 2, owner: "messaging", removalTarget: "3.0")
        case .messageCardSystem:
            .init("Message card system", description: "Messages rendered as composable cards.",
                  phase: 2, owner: "messaging", removalTarget: "3.0", requires: [.chatViewRedesign])
        case .virtualizedScroll:
            .init("Virtualized scroll", description: "Lazy, recycled message list for long sessions.",
                  phase: 2, owner: "performance", removalTarget: "3.0", requires: [.chatViewRedesign])
        case .streamInteractions:
            .init("Stream interactions", description: "Stop, retry and branch while a reply streams.",
                  phase: 3, owner: "messaging", removalTarget: "3.0")
        case .cardStatusBanners:
            .init("Card status banners", description: "Status banners on message cards.",
                  phase: 3, owner: "messaging", removalTarget: "3.0", requires: [.messageCardSystem])
        case .subagentBreadcrumbs:
            .init("Subagent breadcrumbs", description: "Breadcrumbs for nested agent runs.",
                  phase: 3, owner: "agents", removalTarget: "3.0")
        case .settingsRedesign:
            .init("Settings redesign", description: "Settings rebuilt as a searchable form.",
                  phase: 4, owner: "settings", removalTarget: "3.0")
        case .quickSettings:
            .init("Quick settings", description: "A quick settings popover from the toolbar.",
                  phase: 4, owner: "settings", removalTarget: "3.0", requires: [.settingsRedesign])
        case .terminalRedesign:
            .init("Terminal redesign", description: "The new terminal pane.",
                  phase: 5, owner: "tools", removalTarget: "3.0")
        case .fileBrowserRedesign:
            .init("File browser redesign", description: "Tree-based file browser.",
                  phase: 5, owner: "tools", removalTarget: "3.0")
        case .sessionPickerRedesign:
            .init("Session picker redesign", description: "Searchable session picker.",
                  phase: 5, owner: "tools", removalTarget: "3.0")
        case .exportShare:
            .init("Export and share", description: "Export a session as Markdown or PDF.",
                  phase: 5, owner: "tools", removalTarget: "3.0", enabledIn: [.debug, .alpha, .internal])
        case .sheetSystem:
            .init("Sheet system", description: "One presentation system for every sheet.",
                  phase: 6, owner: "design-systems", removalTarget: "3.0")
        case .commandPicker:
            .init("Command picker", description: "A command palette over the sheet system.",
                  phase: 6, owner: "design-systems", removalTarget: "3.0", requires: [.sheetSystem])
        case .ideasDrawer:
            .init("Ideas drawer", description: "A drawer of prompt ideas.",
                  phase: 6, owner: "growth", removalTarget: "3.0")
        case .messageRetry:
            .init("Message retry", description: "Retry failed sends automatically.",
                  phase: 7, owner: "messaging", default: true, removalTarget: "3.0")
        case .smartToolGrouping:
            .init("Smart tool grouping", description: "Collapse runs of tool calls into groups.",
                  phase: 7, owner: "agents", removalTarget: "3.0")
        case .offlineMode:
            .init("Offline mode", description: "Read sessions without a connection.",
                  phase: 7, owner: "sync", removalTarget: "3.0", conflicts: [.icloudSync],
                  userTogglable: true, checking: .userOnly)
        case .voiceInput:
            .init("Voice input", description: "Dictate messages.",
                  phase: 7, owner: "input", default: true, removalTarget: "3.0",
                  userTogglable: true, checking: .buildAndUser)
        case .interactiveWidgets:
            .init("Interactive widgets", description: "Home Screen widgets with buttons.",
                  phase: 8, owner: "system-integration", removalTarget: "3.0", requires: [.appIntents])
        case .controlCenter:
            .init("Control Center controls", description: "Controls in Control Center.",
                  phase: 8, owner: "system-integration", removalTarget: "3.0", requires: [.appIntents])
        case .liveActivities:
            .init("Live Activities", description: "Show running sessions on the Lock Screen.",
                  phase: 8, owner: "system-integration", removalTarget: "3.0")
        case .appIntents:
            .init("App Intents", description: "Expose actions to Shortcuts and Siri.",
                  phase: 8, owner: "system-integration", removalTarget: "3.0")
        case .appShortcuts:
            .init("App Shortcuts", description: "Zero-setup App Shortcuts.",
                  phase: 8, owner: "system-integration", removalTarget: "3.0", requires: [.appIntents])
        case .icloudSync:
            .init("iCloud sync", description: "Sync sessions through iCloud.",
                  phase: 8, owner: "sync", removalTarget: "3.0", conflicts: [.offlineMode])
        case .richNotifications:
            .init("Rich notifications", description: "Notifications with previews and actions.",
                  phase: 8, owner: "system-integration", removalTarget: "3.0",
                  userTogglable: true, checking: .buildAndUser)
        case .shareExtension:
            .init("Share extension", description: "Send content to the app from the share sheet.",
                  phase: 8, owner: "system-integration", removalTarget: "3.0")
        }
    }

    // An array literal, so that `flags export` can read it from the sources.
    public static let typedFlags: [any FlagDefinitionConvertible] = [
        AppConfig.pageSize, AppConfig.streamFlushInterval, AppConfig.onboardingVariant,
        AppConfig.composerStyle, AppConfig.retryPolicy,
        AppRuntimeConfiguration.Flags.magicLinkResendCooldown, AppRuntimeConfiguration.Flags.cuesPageSize,
        AppRuntimeConfiguration.Flags.sessionReplayEnabled, AppRuntimeConfiguration.Flags.firstPartyEventsEnabled,
        AppRuntimeConfiguration.Flags.analyticsFlushInterval, AppRuntimeConfiguration.Flags.developerMenuAvailable,
        AppRuntimeConfiguration.Flags.networkConsoleLogLimit,
    ]
}

/// How the message composer looks.
public enum ComposerStyle: String, FlagValueConvertible, CaseIterable {
    case classic, compact, floating
}

/// How failed sends are retried.
public struct RetryPolicy: CodableFlagValue {
    public var attempts: Int
    public var backoffSeconds: Double

    public init(attempts: Int, backoffSeconds: Double) {
        self.attempts = attempts
        self.backoffSeconds = backoffSeconds
    }
}

/// Typed runtime values, resolved by the same layers as the flags.
public enum AppConfig {
    public static let pageSize = TypedFlag<Int>(
        "page_size", default: 50, displayName: "Session list page size", owner: "performance",
        buildDefaults: [.debug: 10])
    public static let streamFlushInterval = TypedFlag<Double>(
        "stream_flush_interval", default: 0.05, displayName: "Stream flush interval (s)", owner: "messaging")
    public static let onboardingVariant = TypedFlag<String>(
        "onboarding_variant", default: "classic", displayName: "Onboarding variant", owner: "growth")
    public static let composerStyle = TypedFlag<ComposerStyle>(
        "composer_style", default: .classic, displayName: "Composer style", owner: "messaging",
        userTogglable: true)
    public static let retryPolicy = TypedFlag<RetryPolicy>(
        "retry_policy", default: RetryPolicy(attempts: 3, backoffSeconds: 1.5), displayName: "Send retry policy",
        owner: "messaging")
}
