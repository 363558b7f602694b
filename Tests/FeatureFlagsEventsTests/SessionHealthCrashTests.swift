// Processes: macOS and Linux (the CI) only.
#if os(macOS) || os(Linux)
import FeatureFlags
import FeatureFlagsEvents
import FeatureFlagsRemote
import Foundation
import Testing

/// kill -9 during the report of a crashed session. The crash helper's health mode runs as a real
/// process: a first launch exposes two units and is killed with its session running (its marker
/// left); a second reports it and is killed at every point of the report (each save of the
/// queue, once its temporary file is written and once it is renamed, and after `start` returned);
/// a third finishes. The crashed session's `$crash` must be in the queue exactly once per unit,
/// with its variants, whatever the point of the kill.
struct SessionHealthCrashTests {
    struct Run {
        var points: [String] = []
        var killedAt: String?
        var crashes: [FlagEventBatch.Tracked] = []
        var markersLeft: [String] = []
    }

    /// Runs the helper's health `mode` in `directory`, kills it with SIGKILL once it says it is
    /// running, and returns the id of the session it left behind.
    static func crashSession(_ directory: URL, mode: String) async throws -> String {
        let crashing = try CrashHelperProcess(
            arguments: ["health", directory.path, mode], standardError: directory.appendingPathComponent("\(mode).stderr"))
        var session: String?
        for await line in crashing.lines {
            if line.hasPrefix("session ") { session = String(line.dropFirst("session ".count)) }
            if line == "running" { crashing.kill() }
        }
        #expect(crashing.waitForExit().killed)
        return try #require(session)
    }

    static func run(killingReportAt target: Int?) async throws -> Run {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("session-health-crash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var run = Run()

        // The launch that crashes.
        let crashed = try await Self.crashSession(directory, mode: "crash")

        // The launch that reports it, killed at the target point.
        let reporting = try CrashHelperProcess(
            arguments: ["health", directory.path, "report", "pause"],
            standardError: directory.appendingPathComponent("report.stderr"))
        for await line in reporting.lines where line.hasPrefix("point ") {
            run.points.append(line)
            if run.points.count - 1 == target {
                run.killedAt = line
                reporting.kill()
            } else {
                try reporting.proceed()
            }
        }
        _ = reporting.waitForExit()

        // The launch after it.
        let finishing = try CrashHelperProcess(
            arguments: ["health", directory.path, "report", "run"], standardError: directory.appendingPathComponent("finish.stderr"))
        var finished = false
        for await line in finishing.lines where line == "done" { finished = true }
        #expect(finishing.waitForExit().status == 0 && finished)

        let queue = FlagEventQueue(url: directory.appendingPathComponent("events.json"))
        #expect(queue.openingProblem == nil)
        // Offline: every batch formed waits in the file, as does every pending event.
        let pending = queue.pendingEvents.compactMap { event -> FlagEventBatch.Tracked? in
            guard case .tracked(let tracked) = event else { return nil }
            return FlagEventBatch(batchId: "-", source: tracked.source, dropped: .init(), events: [event]).events.first
        }
        run.crashes = (queue.batches.flatMap(\.events) + pending).filter {
            $0.name == "$crash" && $0.attributes["session"] == .string(crashed)
        }
        run.markersLeft = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasPrefix("session-health-\(crashed)")
        }
        return run
    }

    static func verify(_ run: Run) {
        let context = run.killedAt ?? "no kill"
        #expect(run.crashes.count == 2, "\(context): \(run.crashes.count) crash events of the crashed session")
        let variants = Dictionary(run.crashes.map { ($0.unit ?? "-", $0.variants) }, uniquingKeysWith: { first, _ in first })
        #expect(
            variants == ["user-1": ["new_checkout": "treatment", "dark_mode": "on"], "anon-7": ["new_checkout": "control"]],
            "\(context)")
        #expect(run.markersLeft.isEmpty, "\(context): \(run.markersLeft)")
    }

    /// kill -9 right after the first read of a flag, before any flush: the read's line was
    /// appended to the marker when the read returned, so the crash carries its variant.
    @Test func aKillRightAfterTheFirstReadLeavesItsVariantOnDisk() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("session-health-read-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let crashed = try await Self.crashSession(directory, mode: "read")

        let reporting = try CrashHelperProcess(
            arguments: ["health", directory.path, "report", "run"], standardError: directory.appendingPathComponent("report.stderr"))
        var finished = false
        for await line in reporting.lines where line == "done" { finished = true }
        #expect(reporting.waitForExit().status == 0 && finished)

        let queue = FlagEventQueue(url: directory.appendingPathComponent("events.json"))
        let pending = queue.pendingEvents.compactMap { event -> FlagEventBatch.Tracked? in
            guard case .tracked(let tracked) = event else { return nil }
            return FlagEventBatch(batchId: "-", source: tracked.source, dropped: .init(), events: [event]).events.first
        }
        let crashes = (queue.batches.flatMap(\.events) + pending).filter {
            $0.name == "$crash" && $0.attributes["session"] == .string(crashed)
        }
        #expect(crashes.count == 1)
        #expect(crashes.first?.unit == "user-1")
        #expect(crashes.first?.variants == ["new_checkout": "treatment"])
    }

    @Test func aKillAtAnyPointOfTheReportNeitherLosesNorRepeatsIt() async throws {
        let calibration = try await Self.run(killingReportAt: nil)
        Self.verify(calibration)
        for point in ["append written", "append renamed", "started"] {
            #expect(calibration.points.contains { $0.hasSuffix(" " + point) }, "no point \(point)")
        }
        for point in calibration.points.indices {
            let run = try await Self.run(killingReportAt: point)
            #expect(run.killedAt != nil, "no point \(point)")
            Self.verify(run)
        }
    }
}
#endif
