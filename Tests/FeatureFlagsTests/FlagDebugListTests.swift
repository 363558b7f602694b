import ExampleFlags
import FeatureFlags
import Testing

/// The flag list: filters, grouping, Reset All's state and the row actions.
struct FlagDebugListTests {
    @Test func overriddenOnlyShowsJustTheOverriddenFlags() throws {
        let menu = FlagDebugModel(FeatureFlagManager<AppFlag>(buildConfiguration: .debug))
        #expect(menu.list(FlagDebugFilter(overriddenOnly: true)).isEmpty)
        try menu.toggle("ideas_drawer")
        try menu.setOverride(parsing: "25", forKey: "page_size")
        let list = menu.list(FlagDebugFilter(overriddenOnly: true))
        #expect(list.sections.map(\.title) == ["Flags"])
        #expect(list.sections[0].rows.map(\.key) == ["ideas_drawer", "page_size"])
    }

    @Test func groupingByOwnerSortsOwnersAndKeepsRegistryOrderInside() {
        let menu = FlagDebugModel(FeatureFlagManager<AppFlag>(buildConfiguration: .debug))
        let sections = menu.list(FlagDebugFilter(search: "redesign", grouping: .owner)).sections
        #expect(sections.count > 1)
        #expect(sections.map(\.title) == sections.map(\.title).sorted())
        #expect(sections.first { $0.title == "messaging" }?.rows.map(\.key) == ["chat_view_redesign"])
        for section in sections { #expect(section.rows.allSatisfy { $0.owner == section.title }) }
        let all = menu.rows(matching: "redesign").map(\.key)
        #expect(Set(sections.flatMap(\.rows).map(\.key)) == Set(all))
    }

    @Test func groupingByPhasePutsFlagsWithoutAPhaseLast() {
        let menu = FlagDebugModel(FeatureFlagManager<TestFlag>(buildConfiguration: .debug))
        let sections = menu.list(FlagDebugFilter(grouping: .phase)).sections
        #expect(sections.map(\.title) == ["Phase 0", "Phase 2", "Phase 5", "No phase"])
        #expect(sections[1].rows.map(\.key) == ["phase_two"])
        #expect(sections.last?.rows.first?.key == "base")
    }

    @Test func groupingByOwnerPutsFlagsWithoutAnOwnerLast() {
        let menu = FlagDebugModel(FeatureFlagManager<TestFlag>(buildConfiguration: .debug))
        #expect(menu.list(FlagDebugFilter(grouping: .owner)).sections.map(\.title) == ["No owner"])
    }

    @Test func searchMatchesTheOwnerToo() {
        let menu = FlagDebugModel(FeatureFlagManager<AppFlag>(buildConfiguration: .debug))
        let keys = menu.list(FlagDebugFilter(search: "GROWTH")).sections[0].rows.map(\.key)
        #expect(keys.contains("ideas_drawer"))
        #expect(keys.contains("onboarding_variant"))
    }

    @Test func resetAllIsDisabledWhenNothingIsOverriddenAndAsksFirst() throws {
        let menu = FlagDebugModel(FeatureFlagManager<AppFlag>(buildConfiguration: .debug))
        #expect(!menu.list().canResetAll)
        try menu.toggle("ideas_drawer")
        #expect(menu.list().canResetAll)
        #expect(menu.list().resetAllConfirmation.hasPrefix("Clear the 1 override?"))
        try menu.toggle("chat_view_redesign")
        // Counted over every flag, not only the ones the filter shows.
        #expect(menu.list(FlagDebugFilter(search: "nothing matches this")).overrideCount == 2)
        #expect(menu.list().resetAllConfirmation.hasPrefix("Clear all 2 overrides?"))
        menu.resetAll()
        #expect(!menu.list().canResetAll)

        let release = FlagDebugModel(FeatureFlagManager<AppFlag>(buildConfiguration: .release))
        #expect(!release.list().canResetAll)
    }

    /// Clearing a user preference is a row action, which the SwiftUI menu shows both as a
    /// context menu and as swipe actions: every platform reaches it, watchOS included.
    @Test func rowActionsOfferWhatCanBeCleared() throws {
        let menu = FlagDebugModel(FeatureFlagManager<AppFlag>(buildConfiguration: .debug))
        func row(_ key: String) throws -> FlagDebugRow {
            try #require(menu.rows().first { $0.key == key })
        }
        #expect(try row("composer_style").actions.isEmpty)
        try menu.setUserPreference("floating", forKey: "composer_style")
        #expect(try row("composer_style").actions == [.clearUserPreference])
        try menu.setOverride(parsing: "compact", forKey: "composer_style")
        #expect(try row("composer_style").actions == [.clearOverride, .clearUserPreference])

        try menu.perform(.clearUserPreference, on: row("composer_style"))
        #expect(try row("composer_style").userPreference == nil)
        try menu.perform(.clearOverride, on: row("composer_style"))
        #expect(try row("composer_style").actions.isEmpty)
        #expect(try row("composer_style").value == "classic")
    }

    @Test func gesturesOpenTheMenuOutsideRelease() {
        #expect(FlagDebugModel(FeatureFlagManager<AppFlag>(buildConfiguration: .internal)).opensOnGesture)
        #expect(!FlagDebugModel(FeatureFlagManager<AppFlag>(buildConfiguration: .release)).opensOnGesture)
        #expect(!FlagDebugModel(FeatureFlagManager<AppFlag>()).opensOnGesture)
    }
}
