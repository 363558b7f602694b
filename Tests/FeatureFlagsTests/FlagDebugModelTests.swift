import ExampleFlags
import FeatureFlags
import FeatureFlagsTesting
import Foundation
import Logging
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

/// Editing typed values, user preferences and the status the menu shows.
struct FlagDebugModelEditingTests {
    @Test func editorsFollowTheTypeAndTheDeclaredChoices() throws {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        let plain = Dictionary(uniqueKeysWithValues: FlagDebugModel(flags).rows().map { ($0.key, $0) })
        #expect(plain["chat_view_redesign"]?.editor == .toggle)
        #expect(plain["chat_view_redesign"]?.editText == "true")
        #expect(plain["page_size"]?.editor == .integer)
        #expect(plain["page_size"]?.editText == "10")
        #expect(plain["stream_flush_interval"]?.editor == .decimal)
        #expect(plain["onboarding_variant"]?.editor == .text)
        #expect(plain["onboarding_variant"]?.editText == "classic")
        // Without declared choices an enum's cases are unknown: free text.
        #expect(plain["composer_style"]?.editor == .text)
        #expect(plain["retry_policy"]?.editor == .json)
        #expect(plain["retry_policy"]?.editText == #"{"attempts":3,"backoffSeconds":1.5}"#)

        let menu = FlagDebugModel(flags, choices: [FlagChoices(AppConfig.composerStyle)])
        let row = try #require(menu.rows(matching: "composer").first)
        #expect(row.editor == .choice(["classic", "compact", "floating"]))
    }

    @Test func typedFieldsSetValidatedOverrides() throws {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        let menu = FlagDebugModel(flags, choices: [FlagChoices(AppConfig.composerStyle)])
        try menu.setOverride(parsing: " 25 ", forKey: "page_size")
        #expect(flags.value(AppConfig.pageSize) == 25)
        try menu.setOverride(parsing: "0.25", forKey: "stream_flush_interval")
        #expect(flags.value(AppConfig.streamFlushInterval) == 0.25)
        try menu.setOverride(parsing: " spaced ", forKey: "onboarding_variant")
        #expect(flags.value(AppConfig.onboardingVariant) == " spaced ")
        try menu.setOverride(parsing: "compact", forKey: "composer_style")
        #expect(flags.value(AppConfig.composerStyle) == .compact)
        try menu.setOverride(parsing: #"{"attempts": 1, "backoffSeconds": 0}"#, forKey: "retry_policy")
        #expect(flags.value(AppConfig.retryPolicy) == RetryPolicy(attempts: 1, backoffSeconds: 0))
        try menu.setOverride(parsing: "off", forKey: "chat_view_redesign")
        #expect(!flags.isEnabled(.chatViewRedesign))
        let row = try #require(menu.rows(matching: "page_size").first)
        #expect(row.isOverridden)
        #expect(row.editText == "25")
    }

    @Test func badInputGetsAMessageNamingTheKeyAndTheValue() {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        let menu = FlagDebugModel(flags, choices: [FlagChoices(AppConfig.composerStyle)])
        func message(_ text: String, _ key: String) -> String? {
            do throws(FlagDebugInputError) {
                try menu.setOverride(parsing: text, forKey: key)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(message("abc", "page_size") == "'page_size' takes a whole number, such as 42; 'abc' is not one.")
        #expect(message("2.5", "page_size") == "'page_size' takes a whole number, such as 42; '2.5' is not one.")
        #expect(
            message("nan", "stream_flush_interval")
                == "'stream_flush_interval' takes a finite number, such as 0.5; 'nan' is not one.")
        #expect(
            message("big", "composer_style")
                == "'composer_style' takes one of classic, compact, floating; 'big' is not one of them.")
        #expect(message("maybe", "chat_view_redesign") == "'chat_view_redesign' takes true or false; 'maybe' is neither.")
        #expect(message("[1, 2]", "retry_policy")?.hasPrefix("'retry_policy' takes a JSON object with the members") == true)
        #expect(message("{", "retry_policy")?.hasPrefix("'retry_policy' takes a JSON object: ") == true)
        #expect(message("1", "no_such_flag") == "There is no flag 'no_such_flag'.")
        let long = String(repeating: "9", count: FlagDebugModel.maximumInputLength + 1)
        #expect(
            message(long, "page_size")
                == "The value for 'page_size' is 65537 bytes long; a field takes at most 65536.")
        // Quoted text is bounded.
        #expect(message(String(repeating: "x", count: 500), "page_size")?.count ?? 0 < 150)
        // The last good values stay.
        #expect(flags.value(AppConfig.pageSize) == 10)
        #expect(flags.value(AppConfig.composerStyle) == .classic)
        #expect(flags.value(AppConfig.retryPolicy) == RetryPolicy(attempts: 3, backoffSeconds: 1.5))
    }

    @Test func overridesRefusedByTheBuildAreInputErrors() {
        let menu = FlagDebugModel(FeatureFlagManager<AppFlag>(buildConfiguration: .release))
        #expect(throws: FlagDebugInputError(
            key: "page_size", message: "Cannot override 'page_size': overrides are not permitted in release builds."))
        {
            try menu.setOverride(parsing: "5", forKey: "page_size")
        }
    }

    @Test func sensitiveValuesAreRedactedInRowsMessagesAndWarnings() throws {
        let log = RecordingLogHandler()
        let flags = FeatureFlagManager<TestFlag>(FlagSetup(buildConfiguration: .debug, logger: log.logger))
        let menu = FlagDebugModel(flags, choices: [FlagChoices(key: "label", values: ["secret-choice", 42])])
        flags.setOverride(TestConfig.label, to: "hunter2")
        let row = try #require(menu.rows(matching: "label").first)
        #expect(row.isSensitive)
        #expect(row.displayValue == "<REDACTED>")
        #expect(row.editText == "")
        #expect(throws: FlagDebugInputError(
            key: "label", message: "'label' takes one of the declared choices; <REDACTED> is not one of them."))
        {
            try menu.value(parsing: "hunter3", forKey: "label")
        }
        #expect(
            log.messages(at: .warning) == [
                "Debug menu choice <REDACTED> for 'label' was left out: the flag is string."
            ])
        #expect(!log.lines.joined().contains("hunter"))
        #expect(!log.lines.joined().contains("42"))
    }

    @Test func choicesForUnknownFlagsAreLeftOutWithAWarning() throws {
        let log = RecordingLogHandler()
        let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .debug, logger: log.logger))
        let menu = FlagDebugModel(
            flags, choices: [FlagChoices(key: "composer_stlye", values: ["classic"]), FlagChoices(AppConfig.composerStyle)])
        #expect(
            log.messages(at: .warning) == [
                "Debug menu choices for 'composer_stlye' were left out: there is no such flag."
            ])
        #expect(try #require(menu.rows(matching: "composer").first).editor == .choice(["classic", "compact", "floating"]))
    }

    @Test func rowsShowUserPreferences() throws {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .release)
        let menu = FlagDebugModel(flags)
        #expect(try #require(menu.rows(matching: "composer").first).userPreference == nil)
        try menu.setUserPreference("floating", forKey: "composer_style")
        let row = try #require(menu.rows(matching: "composer").first)
        #expect(row.isUserTogglable)
        #expect(row.userPreference == "floating")
        #expect(row.displayUserPreference == "floating")
        #expect(row.layer == .userPreference)
        #expect(flags.value(AppConfig.composerStyle) == .floating)
        #expect(throws: FlagOverrideError.self) { try menu.setUserPreference(5, forKey: "page_size") }
    }

    @Test func statusShowsConfigurationRemoteStateAndDiagnostics() {
        struct Loader: FlagDebugRemoteStatusReporting {
            var debugRemoteStatus: FlagDebugRemoteStatus {
                FlagDebugRemoteStatus(
                    state: "stale", source: "app_config", lastFetch: Date(timeIntervalSince1970: 1_000),
                    error: "serverError")
            }
        }
        let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .alpha, remoteApplyPolicy: .atSafePoint))
        let menu = FlagDebugModel(flags, remote: Loader())
        flags.engine.receiveRemoteValues(RemoteFlagValues(values: ["page_size": 70, "gone_flag": true], source: "app_config"))

        let status = menu.status
        #expect(status.buildConfiguration == .alpha)
        #expect(status.overridesPermitted)
        #expect(status.hasPendingRemoteValues)
        #expect(status.remoteSource == nil)
        #expect(status.remote == Loader().debugRemoteStatus)
        #expect(status.diagnostics.map(\.key) == ["gone_flag"])

        menu.applyPendingRemoteValues()
        #expect(menu.status.remoteSource == "app_config")
        #expect(!menu.status.hasPendingRemoteValues)
        #expect(flags.value(AppConfig.pageSize) == 70)
        #expect(FlagDebugModel(flags).status.remote == nil)
    }
}
