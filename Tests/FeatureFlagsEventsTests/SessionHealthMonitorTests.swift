import FeatureFlags
import FeatureFlagsEvents
import FeatureFlagsRemote
import Foundation
import RemoteTestSupport
import Synchronization
import Testing

/// Session health: markers, `$crash` and `$session` reports attributed to the variants a session
/// was served, exactly once across relaunches, bounded markers, unreadable ones, `$error`'s rate
/// limit and MetricKit's diagnostics. Each "launch" is a new monitor, recorder and delivery over
/// the same directory, on a manual clock.
struct SessionHealthMonitorTests {
    static let source = FlagEventSource(appVersion: "4.2", buildConfiguration: .release, platform: "TestOS")
    static let updated = FlagEventSource(appVersion: "4.3", buildConfiguration: .release, platform: "TestOS")
    static let endpoint = URL(string: "https://flags.example.com/ofrep/v1/ingestion")!

    final class Fixture: Sendable {
        let clock = ManualClock()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("session-health-\(UUID().uuidString)")
        let sessionNumbers = Mutex(0)

        deinit { try? FileManager.default.removeItem(at: directory) }

        var queueFile: URL { directory.appendingPathComponent("events.json") }

        /// The markers in the directory, by name.
        var markers: [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
                .filter { $0.hasPrefix("session-health-") }.sorted()
        }

        /// The tracked events in the queue's file (pending or in batches), as a relaunch reads it.
        var queuedTracked: [TrackedFlagEvent] {
            let queue = FlagEventQueue(url: queueFile)
            let pending = queue.pendingEvents.compactMap { event -> TrackedFlagEvent? in
                if case .tracked(let tracked) = event { tracked } else { nil }
            }
            let batched = queue.batches.flatMap { batch in
                batch.events.map {
                    TrackedFlagEvent(
                        name: $0.name, value: $0.value, attributes: $0.attributes, unit: $0.unit, variants: $0.variants,
                        time: Date(timeIntervalSince1970: Double($0.time) / 1000), source: batch.source)
                }
            }
            return pending + batched
        }

        func named(_ name: String) -> [TrackedFlagEvent] {
            queuedTracked.filter { $0.name == name }
        }

        /// One launch of the app: the monitor (sessions `s1`, `s2`… in order of creation), a
        /// recorder with it as a hook, and a delivery whose server is unreachable, so that what is
        /// queued stays in the file for the test to read.
        func launch(
            source: FlagEventSource = SessionHealthMonitorTests.source, maximumUnits: Int = 4, maximumFlags: Int = 64,
            errorBurst: Int = 10, errorInterval: TimeInterval = 6
        ) -> Launch {
            let clock = self.clock
            let fixture = self
            let monitor = SessionHealthMonitor(
                .init(
                    directory: directory, source: source, maximumUnits: maximumUnits, maximumFlagsPerUnit: maximumFlags,
                    errorBurst: errorBurst, errorInterval: errorInterval, now: { clock.now },
                    makeSessionID: {
                        fixture.sessionNumbers.withLock {
                            $0 += 1
                            return "s\($0)"
                        }
                    }))
            let recorder = FlagEventRecorder(.init(source: source, hooks: [monitor], now: { clock.now }))
            let delivery = FlagEventDelivery(
                configuration: .init(endpoint: SessionHealthMonitorTests.endpoint, queueFile: queueFile),
                recorder: recorder, transport: EventTransport(.connectionError), clock: clock)
            return Launch(monitor: monitor, recorder: recorder, delivery: delivery)
        }
    }

    struct Launch {
        let monitor: SessionHealthMonitor
        let recorder: FlagEventRecorder
        let delivery: FlagEventDelivery

        func expose(_ flag: String, _ variant: String, unit: String?) {
            recorder.recordExposure(
                flag: flag, variant: variant, value: .string(variant), isSensitive: false, reason: .split, revision: nil,
                unit: unit)
        }
    }

    /// A launch that exposes two units, flushes, and is then given up without ending its session
    /// (the process died).
    static func crashedLaunch(_ fixture: Fixture) async -> Launch {
        let launch = fixture.launch()
        await launch.monitor.start(delivering: launch.delivery)
        launch.expose("new_checkout", "treatment", unit: "user-1")
        launch.expose("dark_mode", "on", unit: "user-1")
        launch.expose("new_checkout", "control", unit: "anon-7")
        fixture.clock.advance(by: 90)
        await launch.delivery.flush()
        return launch
    }

    @Test func aCleanEndQueuesASessionAndLeavesNothingToReport() async throws {
        let fixture = Fixture()
        let first = fixture.launch()
        let report = await first.monitor.start(delivering: first.delivery)
        #expect(report.session == "s1" && report.previous.isEmpty)
        #expect(fixture.markers == ["session-health-s1.json"])
        first.expose("new_checkout", "treatment", unit: "user-1")
        fixture.clock.advance(by: 120)
        await first.monitor.endSession()
        #expect(fixture.markers.isEmpty)
        let sessions = fixture.named("$session")
        #expect(sessions.count == 1)
        let session = try #require(sessions.first)
        #expect(session.value == 120)
        #expect(session.unit == "user-1" && session.variants == ["new_checkout": "treatment"])
        #expect(session.attributes == ["session": "s1"])

        let second = fixture.launch()
        let next = await second.monitor.start(delivering: second.delivery)
        #expect(next.previous.isEmpty && next.problems.isEmpty)
        #expect(fixture.named("$crash").isEmpty)
        #expect(fixture.markers == ["session-health-s2.json"])
    }

    @Test func aLeftMarkerIsOneCrashAttributedToThePreviousSessionsUnitsAndVariants() async throws {
        let fixture = Fixture()
        _ = await Self.crashedLaunch(fixture)
        fixture.clock.advance(by: 3_600)

        let second = fixture.launch(source: Self.updated)
        let report = await second.monitor.start(delivering: second.delivery)
        #expect(report.previous == [.init(id: "s1", outcome: .crashed, units: 2, queued: true)])
        let crashes = fixture.named("$crash")
        #expect(crashes.count == 2)
        let byUnit = Dictionary(uniqueKeysWithValues: crashes.map { ($0.unit ?? "-", $0) })
        #expect(byUnit["user-1"]?.variants == ["new_checkout": "treatment", "dark_mode": "on"])
        #expect(byUnit["anon-7"]?.variants == ["new_checkout": "control"])
        for crash in crashes {
            // The crashed session's app version, not the relaunch's; its duration up to the
            // marker's last write (the flush at 90 s).
            #expect(crash.source == Self.source)
            #expect(crash.value == 90)
            #expect(crash.attributes == ["session": "s1", "detection": "marker"])
        }
        #expect(fixture.markers == ["session-health-s2.json"])
    }

    @Test func aReportRepeatedAfterAKillBeforeTheMarkerWasRemovedIsQueuedOnce() async throws {
        let fixture = Fixture()
        _ = await Self.crashedLaunch(fixture)
        let marker = fixture.directory.appendingPathComponent("session-health-s1.json")
        let saved = try Data(contentsOf: marker)

        let second = fixture.launch()
        #expect(await second.monitor.start(delivering: second.delivery).previous.first?.queued == true)
        // The second launch was killed after the queue's write and before the marker's removal:
        // the marker is back, the report in the queue.
        try saved.write(to: marker)
        let third = fixture.launch()
        let report = await third.monitor.start(delivering: third.delivery)
        // s1 again, found already queued; and s2, the second launch's own session, which the
        // kill ended too.
        #expect(
            report.previous == [
                .init(id: "s1", outcome: .crashed, units: 2, queued: false),
                .init(id: "s2", outcome: .crashed, units: 0, queued: true),
            ])
        #expect(fixture.named("$crash").filter { $0.attributes["session"] == "s1" }.count == 2)
        #expect(!fixture.markers.contains("session-health-s1.json"))
    }

    @Test func theFirstReadOfAVariantIsAppendedAndFlushesFoldTheLinesIn() async throws {
        let fixture = Fixture()
        let launch = fixture.launch()
        await launch.monitor.start(delivering: launch.delivery)
        let marker = fixture.directory.appendingPathComponent("session-health-s1.json")
        let atStart = try String(decoding: Data(contentsOf: marker), as: UTF8.self)
        #expect(atStart.hasSuffix("\n") && atStart.split(separator: "\n").count == 1)
        launch.expose("new_checkout", "treatment", unit: "user-1")
        // On disk when the read returns: one line, appended.
        let afterRead = try String(decoding: Data(contentsOf: marker), as: UTF8.self)
        #expect(afterRead.hasPrefix(atStart))
        #expect(afterRead.dropFirst(atStart.count) == #"{"f":"new_checkout","u":"user-1","v":"treatment","t":1900000000000}"# + "\n")
        // A repeated exposure of the same variant appends nothing.
        launch.expose("new_checkout", "treatment", unit: "user-1")
        #expect(try String(decoding: Data(contentsOf: marker), as: UTF8.self) == afterRead)
        // The flush rewrites the snapshot with the read folded in.
        await launch.delivery.flush()
        let afterFlush = try String(decoding: Data(contentsOf: marker), as: UTF8.self)
        #expect(afterFlush.split(separator: "\n").count == 1)
        #expect(afterFlush.contains(#""new_checkout":["treatment"]"#))
        // Nothing changed and the refresh interval has not passed: the next flush writes nothing.
        try FileManager.default.removeItem(at: marker)
        fixture.clock.advance(by: 60)
        await launch.delivery.flush()
        #expect(!FileManager.default.fileExists(atPath: marker.path))
        // Past the refresh interval it is written again, to date the session's last sign of life.
        fixture.clock.advance(by: 300)
        await launch.delivery.flush()
        #expect(FileManager.default.fileExists(atPath: marker.path))
    }

    @Test func theMarkerStaysBoundedAndSaysWhatItLeftOut() async throws {
        let fixture = Fixture()
        let launch = fixture.launch(maximumUnits: 3, maximumFlags: 5)
        await launch.monitor.start(delivering: launch.delivery)
        for unit in 0..<10 {
            for flag in 0..<20 {
                launch.expose("flag_\(flag)", "variant_\(flag)", unit: "user-\(unit)")
            }
        }
        // A variant longer than the server takes is left out, not written.
        launch.expose("long", String(repeating: "v", count: 300), unit: "user-9")
        await launch.delivery.flush()
        let marker = fixture.directory.appendingPathComponent("session-health-s1.json")
        let size = try Data(contentsOf: marker).count
        #expect(size < 2_000)

        let second = fixture.launch()
        let report = await second.monitor.start(delivering: second.delivery)
        #expect(report.previous.first?.units == 3)
        let crashes = fixture.named("$crash")
        // The three units exposed most recently, five flags each.
        #expect(Set(crashes.compactMap(\.unit)) == ["user-7", "user-8", "user-9"])
        #expect(crashes.allSatisfy { $0.variants.count == 5 })
        // 7 units left out; 15 flags of each of the 10 units, and the long variant.
        #expect(crashes.allSatisfy { $0.attributes["omitted"] == .int(7 + 150 + 1) })
    }

    @Test(arguments: [
        ("garbage", Data("{not json".utf8)),
        ("oversized", Data(("{\"pad\":\"" + String(repeating: "x", count: 1_100_000) + "\"}").utf8)),
        ("out of bounds", Data(#"{"version":1,"session":"s9","start":0,"lastSeen":1,"source":{"appVersion":"1","buildConfiguration":"release","platform":"iOS"},"units":[{"unit":"u","variants":{"f":"\#(String(repeating: "v", count: 300))"}}],"omittedUnits":0,"omittedFlags":0}"#.utf8)),
        ("another session's content", Data(#"{"version":1,"session":"other","start":0,"lastSeen":1,"source":{"appVersion":"1","buildConfiguration":"release","platform":"iOS"},"units":[],"omittedUnits":0,"omittedFlags":0}"#.utf8)),
    ])
    func anUnreadableMarkerIsAnUncleanSessionWithoutVariants(kind: String, content: Data) async throws {
        let fixture = Fixture()
        try FileManager.default.createDirectory(at: fixture.directory, withIntermediateDirectories: true)
        try content.write(to: fixture.directory.appendingPathComponent("session-health-s9.json"))
        let launch = fixture.launch()
        let report = await launch.monitor.start(delivering: launch.delivery)
        #expect(report.previous == [.init(id: "s9", outcome: .unreadable, units: 0, queued: true)], "\(kind)")
        let crashes = fixture.named("$crash")
        #expect(crashes.count == 1, "\(kind)")
        #expect(crashes.first?.variants == [:] && crashes.first?.unit == nil, "\(kind)")
        #expect(crashes.first?.attributes == ["session": "s9", "detection": "marker", "marker": "unreadable"], "\(kind)")
        #expect(fixture.markers == ["session-health-s1.json"], "\(kind)")
    }

    @Test func aMarkerWhoseEndWasRecordedIsACleanSession() async throws {
        let fixture = Fixture()
        try FileManager.default.createDirectory(at: fixture.directory, withIntermediateDirectories: true)
        let marker = #"{"end":61000,"lastSeen":60000,"omittedFlags":0,"omittedUnits":0,"session":"s7","source":{"appVersion":"4.1","buildConfiguration":"release","platform":"TestOS"},"start":1000,"units":[{"unit":"user-1","variants":{"f":"on"}}],"version":1}"#
        try Data(marker.utf8).write(to: fixture.directory.appendingPathComponent("session-health-s7.json"))
        let launch = fixture.launch()
        let report = await launch.monitor.start(delivering: launch.delivery)
        #expect(report.previous == [.init(id: "s7", outcome: .endedCleanly, units: 1, queued: true)])
        #expect(fixture.named("$crash").isEmpty)
        let session = try #require(fixture.named("$session").first)
        #expect(session.value == 60 && session.variants == ["f": "on"] && session.source.appVersion == "4.1")
    }

    @Test func aSessionEndsAtTheBackgroundAndANewOneBeginsAtTheForeground() async throws {
        let fixture = Fixture()
        let launch = fixture.launch()
        await launch.monitor.start(delivering: launch.delivery)
        launch.expose("new_checkout", "treatment", unit: "user-1")
        await launch.monitor.handle(.enterBackground)
        await launch.monitor.endSession()  // after the lifecycle's own end: nothing more
        #expect(launch.monitor.sessionID == nil)
        #expect(fixture.markers.isEmpty)
        await launch.monitor.handle(.enterForeground)
        #expect(launch.monitor.sessionID == "s2")
        #expect(fixture.markers == ["session-health-s2.json"])
        launch.expose("dark_mode", "on", unit: "user-1")
        await launch.monitor.endSession()
        let sessions = fixture.named("$session")
        #expect(sessions.map { $0.attributes["session"] } == ["s1", "s2"])
        // Each session reports the variants it read.
        #expect(sessions.map(\.variants) == [["new_checkout": "treatment"], ["dark_mode": "on"]])
    }

    @Test func handledErrorsAreRateLimitedAndCountWhatWasSuppressed() async throws {
        let fixture = Fixture()
        let launch = fixture.launch(errorBurst: 2, errorInterval: 10)
        await launch.monitor.start(delivering: launch.delivery)
        launch.expose("new_checkout", "control", unit: "anon-1")
        launch.expose("new_checkout", "treatment", unit: "user-1")
        let kept = (0..<5).map { launch.monitor.reportError(domain: "NSURLErrorDomain", code: -1001 - $0) }
        #expect(kept == [true, true, false, false, false])
        fixture.clock.advance(by: 10)
        #expect(launch.monitor.reportError(domain: "Checkout", code: 7))
        #expect(!launch.monitor.reportError(domain: "", code: 1))
        await launch.delivery.flush()
        let errors = fixture.named("$error")
        #expect(errors.map { $0.attributes["code"] } == [.int(-1001), .int(-1002), .int(7)])
        #expect(errors.last?.attributes["suppressed"] == .int(3))
        #expect(errors.last?.attributes["session"] == "s1")
        // Attributed to the unit exposed most recently, with its variants.
        #expect(errors.allSatisfy { $0.unit == "user-1" && $0.variants == ["new_checkout": "treatment"] })
    }

    @Test func crashDiagnosticsOfASessionItsMarkerReportedAreNotCountedAgain() async throws {
        let fixture = Fixture()
        _ = await Self.crashedLaunch(fixture)
        let crashedAt = fixture.clock.now
        fixture.clock.advance(by: 600)
        let second = fixture.launch()
        // Diagnostics may arrive before the monitor started: they wait for it.
        let early = Task {
            await second.monitor.reportCrashDiagnostics([
                CrashDiagnostic(begin: crashedAt, end: crashedAt, signal: 11),
                // A crash in the background, long after the reported session: not seen by markers.
                CrashDiagnostic(begin: crashedAt.addingTimeInterval(-86_400 * 3), end: crashedAt.addingTimeInterval(-86_400 * 2), signal: 6),
            ])
        }
        _ = await early.value
        #expect(fixture.named("$crash").isEmpty)
        await second.monitor.start(delivering: second.delivery)
        let crashes = fixture.named("$crash")
        #expect(crashes.filter { $0.attributes["detection"] == "marker" }.count == 2)
        let system = crashes.filter { $0.attributes["detection"] == "metrickit" }
        #expect(system.map { $0.attributes["signal"] } == [.int(6)])
        #expect(system.first?.variants == [:])
        // The same diagnostics handed over again count once.
        let again = await second.monitor.reportCrashDiagnostics([
            CrashDiagnostic(begin: crashedAt, end: crashedAt, signal: 11),
            CrashDiagnostic(begin: crashedAt.addingTimeInterval(-86_400 * 3), end: crashedAt.addingTimeInterval(-86_400 * 2), signal: 6),
        ])
        #expect(again == 0)
        #expect(fixture.named("$crash").count == 3)
    }

    @Test func diagnosticsWaitingForTheStartAreBounded() async throws {
        let fixture = Fixture()
        let launch = fixture.launch()
        let time = fixture.clock.now.addingTimeInterval(-86_400)
        // 100 distinct crashes before the monitor started: the first 64 wait for it.
        for batch in 0..<2 {
            await launch.monitor.reportCrashDiagnostics(
                (0..<50).map { CrashDiagnostic(begin: time, end: time, signal: batch * 50 + $0) })
        }
        await launch.monitor.start(delivering: launch.delivery)
        let crashes = fixture.named("$crash")
        #expect(crashes.count == 64)
        #expect(crashes.map { $0.attributes["signal"] } == (0..<64).map { .int($0) })
    }

    @Test func startingTwiceDoesNothingTheSecondTime() async throws {
        let fixture = Fixture()
        let launch = fixture.launch()
        await launch.monitor.start(delivering: launch.delivery)
        let again = await launch.monitor.start(delivering: launch.delivery)
        // The running session's own marker is never reported.
        #expect(again.previous.isEmpty && !again.problems.isEmpty)
        #expect(fixture.named("$crash").isEmpty)
    }
}
