import ExampleFlags
import FeatureFlags
import FeatureFlagsTesting
import Foundation
import Logging
import Testing

struct FlagValueStoreTests {
    enum Kind: String, CaseIterable, Sendable {
        case inMemory, jsonFile, userDefaults
    }

    /// The same compatibility body, run against every store.
    @Test(arguments: Kind.allCases)
    func everyStorePassesTheCompatibilitySuite(kind: Kind) throws {
        let directory = TemporaryDirectory()
        let suite = "feature-flags-tests-\(UUID().uuidString)"
        defer { UserDefaults(suiteName: suite)?.removePersistentDomain(forName: suite) }
        let shared = InMemoryFlagStore()
        let test = FlagValueStoreCompatibilityTest {
            switch kind {
            case .inMemory: shared
            case .jsonFile: JSONFileFlagStore(directory: directory.url)
            case .userDefaults: UserDefaultsFlagStore(suiteName: suite)
            }
        }
        try test.run()
    }

    @Test func theFileIsAFlatJSONObjectKeyedByRawValues() throws {
        let directory = TemporaryDirectory()
        let store = JSONFileFlagStore(directory: directory.url)
        let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .debug, overrideStore: store))
        flags.setOverride(.chatViewRedesign, to: false)
        flags.setOverride(AppConfig.pageSize, to: 30)
        let text = try String(contentsOf: store.url, encoding: .utf8)
        #expect(text == "{\"chat_view_redesign\":false,\"page_size\":30}\n")
        #expect(store.url.lastPathComponent == "debug-feature-flags.json")
    }

    @Test(arguments: ["{\"chat_view_redesign\": tru", "", "[1, 2, 3]", "\u{0}\u{1}binary"])
    func anUnreadableFileIsMovedAsideAndReported(contents: String) throws {
        let directory = TemporaryDirectory()
        let store = JSONFileFlagStore(directory: directory.url)
        try Data(contents.utf8).write(to: store.url)

        let log = RecordingLogHandler()
        let flags = FeatureFlagManager<AppFlag>(
            FlagSetup(buildConfiguration: .debug, overrideStore: store, logger: log.logger))

        // The app runs on without overrides.
        #expect(flags.isEnabled(.chatViewRedesign))
        #expect(flags.engine.overrides.isEmpty)
        // The unreadable file was moved aside, byte for byte, never overwritten.
        let files = directory.contents()
        let aside = try #require(files.first { $0.hasPrefix("debug-feature-flags.corrupt-") })
        #expect(try Data(contentsOf: directory.url.appendingPathComponent(aside)) == Data(contents.utf8))
        #expect(!files.contains("debug-feature-flags.json"))
        // And it was reported with where it went.
        let diagnostic = try #require(flags.engine.diagnostics.first { $0.kind == .unreadableStore })
        #expect(diagnostic.message.contains(aside))
        #expect(log.messages(at: .warning).contains { $0.contains("Could not read flag values") })

        // New overrides go to a fresh file; the moved file is untouched.
        flags.setOverride(.ideasDrawer, to: true)
        #expect(try store.load() == ["ideas_drawer": true])
        #expect(directory.contents().contains(aside))
    }

    @Test func aMissingFileIsAnEmptyStore() throws {
        let directory = TemporaryDirectory()
        #expect(try JSONFileFlagStore(url: directory.url.appendingPathComponent("none.json")).load() == [:])
    }

    @Test func anUnreadableUserDefaultsEntryIsMovedAside() throws {
        let suite = "feature-flags-tests-\(UUID().uuidString)"
        let defaults = try #require(UserDefaults(suiteName: suite))
        defer { defaults.removePersistentDomain(forName: suite) }
        defaults.set("{not json", forKey: "debug-feature-flags")
        let store = UserDefaultsFlagStore(suiteName: suite)
        #expect {
            try store.load()
        } throws: { error in
            "\(error)".contains("debug-feature-flags.corrupt-")
        }
        #expect(defaults.object(forKey: "debug-feature-flags") == nil)
        #expect(try store.load() == [:])
    }

    @Test func unknownKeysAndWrongTypesArePrunedAndReported() throws {
        let store = InMemoryFlagStore([
            "chat_view_redesign": false, "retired_flag": true, "page_size": "lots", "stream_flush_interval": 1,
        ])
        let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .debug, overrideStore: store))
        #expect(try store.load() == ["chat_view_redesign": false, "stream_flush_interval": 1.0])
        let pruned = flags.engine.diagnostics.filter { $0.kind == .prunedStoredValue }
        #expect(pruned.map(\.key) == ["page_size", "retired_flag"])
        #expect(pruned[1].message == "Removed the stored override for 'retired_flag': there is no such flag any more.")
        #expect(!flags.isEnabled(.chatViewRedesign))
        #expect(flags.value(AppConfig.streamFlushInterval) == 1.0)
    }

    @Test func preferencesForFlagsUsersCannotToggleArePruned() throws {
        let store = InMemoryFlagStore(["voice_input": false, "chat_view_redesign": true])
        let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .release, userPreferenceStore: store))
        #expect(try store.load() == ["voice_input": false])
        #expect(!flags.isEnabled(.voiceInput))
        #expect(!flags.isEnabled(.chatViewRedesign))
    }
}
