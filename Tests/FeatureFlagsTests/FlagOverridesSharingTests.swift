import ExampleFlags
import FeatureFlags
import FeatureFlagsTesting
import Foundation
import Testing

/// The override document, and sharing and importing it from the debug menu.
struct FlagOverridesSharingTests {
    @Test func theDocumentReadsBackWhatItWrites() throws {
        let values: [String: FlagValue] = ["page_size": 25, "chat_view_redesign": false, "ratio": .double(0.5)]
        let text = FlagOverridesDocument.text(of: values)
        #expect(text == #"{"chat_view_redesign":false,"page_size":25,"ratio":0.5}"# + "\n")
        #expect(try FlagOverridesDocument.values(fromJSON: text) == values)
        #expect(try FlagOverridesDocument.values(fromJSON: " \n") == [:])
    }

    /// The file the `flags` command and `JSONFileFlagStore` write is the document.
    @Test func theStoresFileIsTheDocument() throws {
        let directory = TemporaryDirectory()
        let store = JSONFileFlagStore(directory: directory.url)
        try store.save(["page_size": 25, "ideas_drawer": true])
        let text = try String(contentsOf: store.url, encoding: .utf8)
        #expect(text == FlagOverridesDocument.text(of: ["page_size": 25, "ideas_drawer": true]))
        #expect(try FlagOverridesDocument.values(fromJSON: text) == store.load())
    }

    @Test func badDocumentsSayWhatAndWhere() {
        func failure(_ text: String) -> FlagOverridesDocumentError? {
            do {
                _ = try FlagOverridesDocument.values(fromJSON: text)
                return nil
            } catch {
                return error
            }
        }
        let syntax = failure("{\n  \"page_size\": 20,\n  oops\n}")
        #expect(syntax?.isSyntax == true)
        #expect(syntax?.line == 3)
        #expect(syntax?.description.hasPrefix("The overrides are not valid JSON at line 3, column 3: ") == true)
        let duplicate = failure("{\"a\": 1,\n\"a\": 2}")
        #expect(duplicate?.line == 2)
        #expect(duplicate?.reason.contains("\"a\"") == true)
        #expect(
            failure("[1, 2]")?.description
                == "The overrides cannot be read: it must be a JSON object of flag keys to values, found an array.")
        let large = String(repeating: " ", count: FlagOverridesDocument.maximumSize) + "{}"
        #expect(failure(large)?.description.contains("at most \(FlagOverridesDocument.maximumSize)") == true)
    }

    @Test func exportSharesTheOverridesButNotSensitiveOnes() throws {
        let flags = FeatureFlagManager<TestFlag>(buildConfiguration: .debug)
        let menu = FlagDebugModel(flags)
        #expect(menu.exportOverrides().isEmpty)
        try menu.setOverride(parsing: "7", forKey: "limit")
        try menu.toggle("base")
        try menu.setOverride(parsing: "secret", forKey: "label")
        let export = menu.exportOverrides()
        #expect(export.text == #"{"base":true,"limit":7}"# + "\n")
        #expect(export.keys == ["base", "limit"])
        #expect(export.omittedSensitiveKeys == ["label"])
        #expect(export.summary == "2 overrides; left out (sensitive): label")
        #expect(!export.text.contains("secret"))
    }

    /// What one tester exports, another build imports: the same overrides, in one change.
    @Test func importReplacesTheOverridesWithTheSharedOnes() throws {
        let tester = FlagDebugModel(FeatureFlagManager<AppFlag>(buildConfiguration: .internal))
        try tester.toggle("ideas_drawer")
        try tester.setOverride(parsing: "25", forKey: "page_size")
        let developerFlags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        let developer = FlagDebugModel(developerFlags)
        try developer.toggle("chat_view_redesign")

        let result = try developer.importOverrides(fromJSON: tester.exportOverrides().text)
        #expect(result.applied == ["ideas_drawer", "page_size"])
        #expect(result.skipped.isEmpty)
        #expect(developerFlags.engine.overrides == tester.engine.overrides)
        #expect(!developerFlags.isOverridden(.chatViewRedesign), "replaced, not merged")
        #expect(result.summary == "Imported 2 overrides.")
    }

    @Test func importSkipsUnknownKeysAndRefusedValuesAndSaysWhy() throws {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        let result = try FlagDebugModel(flags).importOverrides(
            fromJSON: #"{"page_size": 25, "from_a_newer_build": true, "ideas_drawer": "yes"}"#)
        #expect(result.applied == ["page_size"])
        #expect(result.skipped.map(\.key) == ["from_a_newer_build", "ideas_drawer"])
        #expect(result.summary.contains("Skipped 'from_a_newer_build': this app has no such flag."))
        #expect(flags.value(AppConfig.pageSize) == 25)
    }

    @Test func aFailedImportChangesNothing() throws {
        let directory = TemporaryDirectory()
        let store = JSONFileFlagStore(directory: directory.url)
        let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .debug, overrideStore: store))
        let menu = FlagDebugModel(flags)
        try menu.toggle("ideas_drawer")
        let saved = try store.load()
        #expect(throws: FlagOverridesImportError.self) { try menu.importOverrides(fromJSON: "{\"page_size\": ") }
        #expect(flags.engine.overrides == saved)
        #expect(try store.load() == saved)

        let release = FlagDebugModel(FeatureFlagManager<AppFlag>(buildConfiguration: .release))
        #expect(
            throws: FlagOverridesImportError(message: "Overrides are not permitted in release builds; nothing was imported.")
        ) { try release.importOverrides(fromJSON: #"{"page_size": 25}"#) }
    }

    @Test func replacingOverridesWritesTheStoreOnceAndRefusesBadValuesWhole() throws {
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        flags.setOverride(.ideasDrawer, to: true)
        #expect(throws: FlagOverrideError.self) { try flags.engine.replaceOverrides(with: ["page_size": "many"]) }
        #expect(flags.isOverridden(.ideasDrawer))
        try flags.engine.replaceOverrides(with: ["page_size": 30])
        #expect(flags.engine.overrides == ["page_size": 30])
    }
}

struct FlagDebugEnvironmentSwitcherTests {
    @Test func choosingAnotherEnvironmentAsksTheApp() throws {
        let chosen = Locked<[String]>([])
        let switcher = FlagDebugEnvironmentSwitcher(names: ["dev", "stage", "prod"], current: "prod") { name in
            chosen.withLock { $0.append(name) }
        }
        #expect(switcher.options.map(\.name) == ["dev", "stage", "prod"])
        #expect(try !switcher.select("prod", from: "prod"))
        #expect(try switcher.select("stage", from: "prod"))
        #expect(chosen.withLock { $0 } == ["stage"])
        #expect(throws: FlagDebugEnvironmentError(name: "staging", known: ["dev", "stage", "prod"])) {
            try switcher.select("staging", from: "stage")
        }
        #expect(chosen.withLock { $0 } == ["stage"])
    }
}

struct FlagScenePhaseTrackerTests {
    @Test func launchDoesNothingAndReturnsFromTheBackgroundRefresh() {
        var tracker = FlagScenePhaseTracker()
        #expect(tracker.update(to: .active) == nil, "launch: configuring loaded the values")
        #expect(tracker.update(to: .inactive) == nil)
        #expect(tracker.update(to: .background) == .enterBackground)
        #expect(tracker.update(to: .background) == nil)
        #expect(tracker.update(to: .inactive) == nil)
        #expect(tracker.update(to: .active) == .enterForeground)
        #expect(tracker.update(to: .active) == nil)
    }

    /// Control Center or an alert: inactive and back, without the background.
    @Test func inactiveAndBackDoesNothing() {
        var tracker = FlagScenePhaseTracker()
        tracker.update(to: .active)
        #expect(tracker.update(to: .inactive) == nil)
        #expect(tracker.update(to: .active) == nil)
    }

    @Test func launchedInTheBackgroundEntersTheForegroundWhenActive() {
        var tracker = FlagScenePhaseTracker()
        #expect(tracker.update(to: .background) == nil)
        #expect(tracker.update(to: .active) == .enterForeground)
    }

    @Test func theManagerRefreshesOnEnteringTheForeground() async {
        let provider = TestRemoteProvider(loaded: RemoteFlagValues(values: ["page_size": 33], source: "app_config"))
        let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .debug, remoteProvider: provider))
        await flags.handle(.enterBackground)
        #expect(provider.callCounts.refresh == 0)
        await flags.handle(.enterForeground)
        #expect(provider.callCounts.refresh == 1)
        #expect(flags.value(AppConfig.pageSize) == 33)
    }
}
