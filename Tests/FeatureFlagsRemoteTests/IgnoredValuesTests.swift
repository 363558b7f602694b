import FeatureFlags
import FeatureFlagsTesting
import Foundation
import Logging
import Testing

@testable import FeatureFlagsRemote

/// A payload full of values that don't fit costs one log line and a bounded list.
struct IgnoredValuesTests {
    @Test func manyIgnoredKeysMakeOneWarningWithTheirCountAndTheFirstKeys() async throws {
        let unknown = (0..<1_000).map { String(format: #""ghost_%04d": %d"#, $0, $0) }.joined(separator: ", ")
        let payload = #"{"schemaVersion": 1, "flags": {"chat_view_redesign": true, \#(unknown)}}"#
        try await Fixture.run(.json(payload), .json(payload)) { fixture in
            let loader = fixture.loader()
            let values = try await loader.loadFlags()
            #expect(values.values.keys.sorted() == ["chat_view_redesign"])

            let warnings = fixture.logs.messages(at: .warning)
            #expect(warnings == ["Ignored remote values that don't fit the registry"])
            let line = try #require(fixture.logs.lines.first { $0.contains("Ignored remote values") })
            #expect(line.contains("1000"))
            #expect(line.contains("ghost_0000"))
            #expect(line.contains("unknown key"))
            #expect(line.contains("ghost_0004"))
            #expect(!line.contains("ghost_0005"))

            #expect(loader.snapshot.ignoredCount == 1_000)
            #expect(loader.snapshot.ignored.count == RemoteConfigurationSnapshot.ignoredListLimit)
            #expect(loader.snapshot.ignored.first?.key == "ghost_0000")

            // A second payload replaces the list; nothing accumulates.
            _ = try await loader.refresh()
            #expect(loader.snapshot.ignored.count == RemoteConfigurationSnapshot.ignoredListLimit)
            #expect(fixture.logs.messages(at: .warning).count == 2)
        }
    }

    @Test func theCachedPayloadListsAtMostTheLimitToo() async throws {
        let unknown = (0..<300).map { #""ghost_\#($0)": true"# }.joined(separator: ", ")
        try await Fixture.run(.json(#"{"schemaVersion": 1, "flags": {\#(unknown)}}"#)) { fixture in
            _ = try await fixture.loader().loadFlags()
            let relaunched = fixture.loader()
            _ = relaunched.cachedFlags()
            #expect(relaunched.snapshot.ignoredCount == 300)
            #expect(relaunched.snapshot.ignored.count == RemoteConfigurationSnapshot.ignoredListLimit)
        }
    }
}
