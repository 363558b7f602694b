import FeatureFlags
import FeatureFlagsTesting
import FlagManifest
import FlagTooling
import Foundation
import Logging
import Testing

/// Messages built from parts read as English: the right article before a type name, one
/// period where an error's own sentence meets the next.
struct MessageWordingTests {
    let registry = try! FlagRegistry([
        FlagDefinition(key: "new_chat", type: .boolean, default: false),
        FlagDefinition(key: "page_size", type: .integer, default: 20, followsPhasePolicy: false, checking: .userOnly),
        FlagDefinition(key: "retry", type: .object, default: [:], followsPhasePolicy: false, checking: .userOnly),
    ])
    let silent = Logger(label: "wording", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test func typeNamesTakeTheirArticle() {
        #expect(FlagValueType.allCases.map(\.nameWithArticle) == ["a boolean", "an integer", "a double", "a string", "an object"])
    }

    @Test func storedValueOfTheWrongTypeSaysAnInteger() {
        let engine = FlagEngine(
            registry: registry,
            setup: FlagSetup(
                buildConfiguration: .debug, overrideStore: InMemoryFlagStore(["page_size": "many", "retry": 3]), logger: silent))
        let messages = engine.diagnostics.map(\.message)
        #expect(messages.contains("Removed the stored override for 'page_size': it is not an integer."))
        #expect(messages.contains("Removed the stored override for 'retry': it is not an object."))
    }

    @Test func remoteFailureEndingInAPeriodGetsOnePeriod() async {
        let provider = TestRemoteProvider()
        let engine = FlagEngine(
            registry: registry, setup: FlagSetup(buildConfiguration: .debug, remoteProvider: provider, logger: silent))
        provider.setFailure(TestProviderFailure("The server failed (500)."))
        await engine.refreshRemoteValues()
        #expect(
            engine.diagnostics.map(\.message).contains(
                "Refreshing remote flag values failed: The server failed (500). The last good values stay in effect."))
    }

    @Test func ignoredOverrideOfTheWrongTypeSaysAnInteger() throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let overrides = directory.appendingPathComponent("overrides.json").path
        try #"{"page_size": "many"}"#.write(toFile: overrides, atomically: true, encoding: .utf8)
        let session = try OverrideSession(
            manifest: Manifest(definitions: registry.definitions), registry: registry, overridesPath: overrides,
            configuration: .debug)
        #expect(session.warnings == [#"\#(overrides): ignoring the override of 'page_size': "many" is not an integer."#])
    }
}
