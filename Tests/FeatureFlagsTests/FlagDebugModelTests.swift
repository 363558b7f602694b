import ExampleFlags
import FeatureFlags
import FeatureFlagsTesting
import Testing

struct FlagDebugModelTests {
    @Test func rowsCarryMetadataValueLayerAndOverriddenMark() throws {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        let menu = FlagDebugModel(flags)
        flags.setOverride(.terminalRedesign, to: true)
        let rows = menu.rows()
        #expect(rows.count == AppFlag.allCases.count + AppFlag.typedFlags.count)
        let row = try #require(rows.first { $0.key == "terminal_redesign" })
        #expect(row.displayName == "Terminal redesign")
        #expect(row.phase == 5)
        #expect(row.owner == "tools")
        #expect(row.removalTarget == "3.0")
        #expect(row.displayValue == "on")
        #expect(row.layer == .override)
        #expect(row.isOverridden)
        #expect(row.canOverride)
        let chat = try #require(rows.first { $0.key == "chat_view_redesign" })
        #expect(chat.layer == .buildConfiguration)
        #expect(!chat.isOverridden)
    }

    @Test func searchIsCaseInsensitiveOverKeyAndDisplayName() {
        let menu = FlagDebugModel(FeatureFlagManager<AppFlag>(buildConfiguration: .debug))
        #expect(menu.rows(matching: "REDESIGN").map(\.key) == [
            "sidebar_redesign", "chat_view_redesign", "settings_redesign", "terminal_redesign",
            "file_browser_redesign", "session_picker_redesign",
        ])
        #expect(menu.rows(matching: "iCloud").map(\.key) == ["icloud_sync"])
        #expect(menu.rows(matching: "Live Activ").map(\.key) == ["live_activities"])
        #expect(menu.rows(matching: "zzz").isEmpty)
    }

    @Test func phaseFilter() {
        let menu = FlagDebugModel(FeatureFlagManager<AppFlag>(buildConfiguration: .debug))
        #expect(menu.phases == Array(0...8))
        #expect(menu.rows(phase: 0).map(\.key) == ["liquid_glass_design", "observable_migration"])
        #expect(menu.rows(matching: "settings", phase: 4).map(\.key) == ["settings_redesign", "quick_settings"])
    }

    @Test func toggleClearAndResetAll() throws {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        let menu = FlagDebugModel(flags)
        try menu.toggle("chat_view_redesign")
        #expect(!flags.isEnabled(.chatViewRedesign))
        try menu.toggle("ideas_drawer")
        #expect(flags.isEnabled(.ideasDrawer))
        try menu.clearOverride(forKey: "chat_view_redesign")
        #expect(flags.isEnabled(.chatViewRedesign))
        try menu.setOverride(12, forKey: "page_size")
        #expect(flags.value(AppConfig.pageSize) == 12)
        menu.resetAll()
        #expect(!flags.isEnabled(.ideasDrawer))
        #expect(flags.value(AppConfig.pageSize) == 10)
        #expect(menu.rows().allSatisfy { !$0.isOverridden })
        #expect(throws: FlagOverrideError.self) { try menu.toggle("page_size") }
    }

    @Test func rowsExplainDependencies() throws {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .alpha)
        flags.setOverride(.quickSettings, to: true)
        let row = try #require(FlagDebugModel(flags).rows(matching: "quick").first)
        #expect(row.displayValue == "off")
        #expect(row.note?.contains("requires 'settings_redesign'") == true)
    }

    @Test func releaseBuildsCannotOverride() {
        let menu = FlagDebugModel(FeatureFlagManager<AppFlag>(buildConfiguration: .release))
        #expect(menu.rows().allSatisfy { !$0.canOverride })
        #expect(throws: FlagOverrideError.self) { try menu.toggle("ideas_drawer") }
    }
}
