import FeatureFlags
import FeatureFlagsTesting
import Foundation
import Logging
import RemoteTestSupport
import Testing

@testable import FeatureFlagsRemote

/// A payload full of values that don't fit costs one log line and a bounded list.
struct IgnoredValuesTests {
    /// A server shared with other apps sends their flags on every refresh: no warning, and each
    /// unknown key at debug level once per process.
    @Test func unknownKeysAreReportedOncePerKeyAtDebugLevelAndNeverWarned() async throws {
        // The record is the process's: keys no other test uses.
        let prefix = "ghost_\(UUID().uuidString.prefix(8))_"
        let unknown = (0..<1_000).map { String(format: #""\#(prefix)%04d": %d"#, $0, $0) }.joined(separator: ", ")
        let payload = #"{"schemaVersion": 1, "flags": {"chat_view_redesign": true, \#(unknown)}}"#
        let onemore = #"{"schemaVersion": 1, "flags": {"chat_view_redesign": true, "\#(prefix)new": 1, \#(unknown)}}"#
        try await Fixture.run(.json(payload), .json(payload), .json(onemore)) { fixture in
            let loader = fixture.loader()
            let values = try await loader.loadFlags()
            #expect(values.values.keys.sorted() == ["chat_view_redesign"])
            #expect(fixture.logs.messages(at: .warning).isEmpty)
            let reported = { fixture.logs.recorded.filter { $0.message.contains("does not declare") } }
            #expect(reported().count == 1)
            let entry = try #require(reported().first)
            #expect(entry.level == .debug)
            #expect(entry.metadata["count"] == "1000")
            let first = entry.metadata["first"] ?? ""
            #expect(first.contains("\(prefix)0000"))
            #expect(first.contains("\(prefix)0004"))
            #expect(!first.contains("\(prefix)0005"))

            #expect(loader.snapshot.ignoredCount == 1_000)
            #expect(loader.snapshot.ignored.count == RemoteConfigurationSnapshot.ignoredListLimit)
            #expect(loader.snapshot.ignored.first?.key == "\(prefix)0000")

            // The same keys again: nothing more in the log; the snapshot still lists them.
            _ = try await loader.refresh()
            #expect(reported().count == 1)
            #expect(loader.snapshot.ignoredCount == 1_000)

            // One key not seen before: reported alone.
            _ = try await loader.refresh()
            #expect(reported().count == 2)
            #expect(reported().last?.metadata == ["count": "1", "first": "\(prefix)new"])
            #expect(fixture.logs.messages(at: .warning).isEmpty)
        }
    }

    /// Values of the wrong type are a problem with the app or the server: a warning per payload.
    @Test func wrongTypedValuesMakeOneWarningPerPayloadWithTheirKeys() async throws {
        let payload = #"{"schemaVersion": 1, "flags": {"chat_view_redesign": "yes", "offline_mode": 3}}"#
        try await Fixture.run(.json(payload), .json(payload)) { fixture in
            let loader = fixture.loader()
            _ = try await loader.loadFlags()
            #expect(fixture.logs.messages(at: .warning) == ["Ignored remote values that don't fit the registry"])
            let entry = try #require(fixture.logs.recorded.first { $0.message.contains("Ignored remote values") })
            #expect(entry.metadata["count"] == "2")
            #expect(entry.metadata["first"]?.contains("chat_view_redesign") == true)
            _ = try await loader.refresh()
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
