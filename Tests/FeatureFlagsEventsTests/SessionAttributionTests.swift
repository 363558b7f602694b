import FeatureFlags
import FeatureFlagsEvents
import FeatureFlagsRemote
import Foundation
import RemoteTestSupport
import Testing

/// Crash attribution read by read: a session's variants reach its marker when the session first
/// reads them, not at the next flush; a crash is attributed to every variant the session read
/// (both, when a flag's variant changed mid-session), `$session` the same way; and a session
/// that begins in a process that has run before reads its variants again. Each launch is a new
/// monitor, recorder and delivery over one directory, as in `SessionHealthMonitorTests`.
struct SessionAttributionTests {
    typealias Fixture = SessionHealthMonitorTests.Fixture

    /// The flags of a launch, recording into its recorder, served `variant` of
    /// `chat_view_redesign` for `user-1`.
    static func flags(
        of launch: SessionHealthMonitorTests.Launch, serving variant: String, value: Bool = true
    ) -> FeatureFlagManager<TestFlag> {
        let flags = FeatureFlagManager<TestFlag>(FlagSetup(buildConfiguration: .release, eventRecorder: launch.recorder))
        serve(flags, variant: variant, value: value)
        return flags
    }

    static func serve(_ flags: FeatureFlagManager<TestFlag>, variant: String, value: Bool) {
        flags.engine.receiveRemoteValues(
            RemoteFlagValues(
                ["chat_view_redesign": RemoteFlagValue(.bool(value), variant: variant, reason: .split)], source: "ofrep",
                unit: "user-1", revision: "1"))
    }

    @Test func aCrashRightAfterTheFirstReadIsReportedWithThatVariant() async throws {
        let fixture = Fixture()
        let crashed = fixture.launch()
        await crashed.monitor.start(delivering: crashed.delivery)
        let flags = Self.flags(of: crashed, serving: "treatment")
        #expect(flags.isEnabled(.chatViewRedesign))
        fixture.clock.advance(by: 2)
        // The process dies here: no flush, no end.

        let next = fixture.launch()
        let report = await next.monitor.start(delivering: next.delivery)
        #expect(report.previous == [.init(id: "s1", outcome: .crashed, units: 1, queued: true)])
        let crashes = fixture.named("$crash")
        #expect(crashes.count == 1)
        #expect(crashes.first?.unit == "user-1")
        #expect(crashes.first?.variants == ["chat_view_redesign": "treatment"])
    }

    @Test func aVariantThatChangesMidSessionIsCountedForBothOnACrashAndOnACleanEnd() async throws {
        let fixture = Fixture()
        let crashed = fixture.launch()
        await crashed.monitor.start(delivering: crashed.delivery)
        let flags = Self.flags(of: crashed, serving: "control", value: false)
        crashed.expose("dark_mode", "on", unit: "user-1")
        #expect(!flags.isEnabled(.chatViewRedesign))
        await crashed.delivery.flush()
        // The server moves the unit to the new variant; the app reads it, then crashes.
        Self.serve(flags, variant: "treatment", value: true)
        #expect(flags.isEnabled(.chatViewRedesign))

        let next = fixture.launch()
        await next.monitor.start(delivering: next.delivery)
        // The server reads one variant per flag from an event: one event per variant, so each
        // variant is counted once for the session and no other flag twice.
        let crashes = fixture.named("$crash").map(\.variants)
        #expect(
            crashes == [["chat_view_redesign": "control", "dark_mode": "on"], ["chat_view_redesign": "treatment"]])

        // The same switch in a session that ends cleanly: `$session` counts the same way.
        let clean = Self.flags(of: next, serving: "control", value: false)
        next.expose("dark_mode", "on", unit: "user-1")
        _ = clean.isEnabled(.chatViewRedesign)
        Self.serve(clean, variant: "treatment", value: true)
        _ = clean.isEnabled(.chatViewRedesign)
        await next.monitor.endSession()
        let sessions = fixture.named("$session").map(\.variants)
        #expect(
            sessions == [["chat_view_redesign": "control", "dark_mode": "on"], ["chat_view_redesign": "treatment"]])
    }

    @Test func aNewSessionInTheSameProcessReadsItsVariantsAgain() async throws {
        let fixture = Fixture()
        let launch = fixture.launch()
        await launch.monitor.start(delivering: launch.delivery)
        let flags = Self.flags(of: launch, serving: "treatment")
        _ = flags.isEnabled(.chatViewRedesign)
        await launch.monitor.handle(.enterBackground)
        // A warm resume: the same process, the same published values, a new session.
        await launch.monitor.handle(.enterForeground)
        #expect(launch.monitor.sessionID == "s2")
        _ = flags.isEnabled(.chatViewRedesign)
        // It crashes before any flush.
        let next = fixture.launch()
        await next.monitor.start(delivering: next.delivery)
        #expect(fixture.named("$session").map(\.variants) == [["chat_view_redesign": "treatment"]])
        let crashes = fixture.named("$crash")
        #expect(crashes.map { $0.attributes["session"] } == ["s2"])
        #expect(crashes.map(\.variants) == [["chat_view_redesign": "treatment"]])
        // Delivery sends the exposure of each session (the server counts a unit once per variant).
        await launch.delivery.flush()
        let queue = FlagEventQueue(url: fixture.queueFile)
        let pending = queue.pendingEvents.compactMap { event -> String? in
            if case .exposure(let exposure) = event { exposure.flag } else { nil }
        }
        let exposures = queue.batches.flatMap(\.exposures).map(\.flag) + pending
        #expect(exposures == ["chat_view_redesign", "chat_view_redesign"])
    }

    @Test func aFlagKeepsEightVariantsPerUnitAndSessionAndCountsTheRest() async throws {
        let fixture = Fixture()
        let crashed = fixture.launch()
        await crashed.monitor.start(delivering: crashed.delivery)
        for variant in 0..<10 { crashed.expose("new_checkout", "v\(variant)", unit: "user-1") }
        crashed.expose("dark_mode", "on", unit: "user-1")
        let next = fixture.launch()
        await next.monitor.start(delivering: next.delivery)
        let crashes = fixture.named("$crash")
        #expect(crashes.map { $0.variants["new_checkout"] } == (0..<8).map { "v\($0)" })
        #expect(crashes.filter { $0.variants["dark_mode"] != nil }.count == 1)
        #expect(crashes.allSatisfy { $0.attributes["omitted"] == .int(2) })
    }

    @Test func appendedLinesEscapeQuotesBackslashesAndControlCharacters() async throws {
        let fixture = Fixture()
        let crashed = fixture.launch()
        await crashed.monitor.start(delivering: crashed.delivery)
        crashed.expose("say \"hi\"", "back\\slash\nnew line\u{1}", unit: "naïve \t unit")
        let next = fixture.launch()
        await next.monitor.start(delivering: next.delivery)
        let crash = try #require(fixture.named("$crash").first)
        #expect(crash.unit == "naïve \t unit")
        #expect(crash.variants == ["say \"hi\"": "back\\slash\nnew line\u{1}"])
    }

    @Test func aLineCutShortByAKillIsLeftOutAndTheOthersAreRead() async throws {
        let fixture = Fixture()
        let crashed = fixture.launch()
        await crashed.monitor.start(delivering: crashed.delivery)
        crashed.expose("new_checkout", "treatment", unit: "user-1")
        crashed.expose("dark_mode", "on", unit: "user-1")
        let marker = fixture.directory.appendingPathComponent("session-health-s1.json")
        var content = try Data(contentsOf: marker)
        // The snapshot, then one line per read.
        #expect(String(decoding: content, as: UTF8.self).split(separator: "\n").count == 3)
        content.append(Data(#"{"f":"search","u":"user-1","v":"ne"#.utf8))
        try content.write(to: marker)

        let next = fixture.launch()
        await next.monitor.start(delivering: next.delivery)
        #expect(fixture.named("$crash").map(\.variants) == [["new_checkout": "treatment", "dark_mode": "on"]])
    }
}
