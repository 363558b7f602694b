// Processes: macOS and Linux (the CI) only.
#if os(macOS) || os(Linux)
import FeatureFlags
import FeatureFlagsEvents
import FeatureFlagsRemote
import Foundation
import RemoteTestSupport
import Synchronization
import Testing

/// kill -9 during enqueue and during flush. A real process (`flag-event-queue-crash-helper`)
/// records events and delivers them through ``FlagEventDelivery`` to a receiver on loopback that
/// counts a batch id once, as the flag server does; the test kills it with SIGKILL, relaunches it
/// over the same queue file, lets it finish, and checks that the file always parses, that every
/// event whose enqueue returned before the kill arrives exactly once (under one batch id), and
/// that what the receiver refused is counted as dropped, once.
///
/// The kills are made at every point the helper reports (each save of the queue once its
/// temporary file is written and once it is renamed, each request before it is sent and once it
/// is answered), with the helper stopped there, so each run is the same; and, for breadth, at
/// points the helper reaches while running freely (the test kills it after its n-th report line,
/// wherever it then is).
struct FlagEventQueueCrashTests {
    /// The flag server's side: a batch id is stored once; a batch of more than 4 events is too
    /// large (413); a batch holding an event whose name ends in `-reject` is refused (400); a
    /// batch of 3 events is answered 500 the first time although it was stored (the answer lost
    /// on the way back), so the helper must send it again under the same id.
    final class Receiver: Sendable {
        struct State {
            /// Every batch stored, by id, as it first arrived.
            var stored: [String: FlagEventBatch] = [:]
            /// Ids that came again with other contents.
            var changedBatches: [String] = []
            /// Names of the events of batches refused with 400.
            var refusedNames: Set<String> = []
            /// Bodies that were not a batch.
            var unreadable = 0
            /// Ids the receiver got more than once (for the test's own coverage).
            var repeated: Set<String> = []
        }

        private let state = Mutex(State())

        var snapshot: State { state.withLock { $0 } }

        func answer(_ request: RecordedRequest) -> ScriptedResponse {
            state.withLock { state in
                guard let batch = try? JSONDecoder().decode(FlagEventBatch.self, from: request.body) else {
                    state.unreadable += 1
                    return .respond(status: 400)
                }
                if batch.eventCount > 4 { return .respond(status: 413) }
                let names = batch.events.map(\.name)
                if names.contains(where: { $0.hasSuffix("-reject") }) {
                    state.refusedNames.formUnion(names)
                    return .respond(status: 400)
                }
                if let first = state.stored[batch.batchId] {
                    state.repeated.insert(batch.batchId)
                    if first != batch { state.changedBatches.append(batch.batchId) }
                    return .respond(status: 202)
                }
                state.stored[batch.batchId] = batch
                return .respond(status: batch.eventCount == 3 ? 500 : 202)
            }
        }
    }

    enum Kill: CustomStringConvertible {
        case never
        /// At the point numbered so, the helper stopped there.
        case atPoint(Int)
        /// Once the helper, running freely, wrote this many lines.
        case afterLine(Int)

        var description: String {
            switch self {
            case .never: "no kill"
            case .atPoint(let point): "kill at point \(point)"
            case .afterLine(let line): "kill after line \(line)"
            }
        }
    }

    struct Run {
        /// The first launch's point lines, in order.
        var points: [String] = []
        /// Its report lines.
        var lineCount = 0
        /// The point line at which it was killed.
        var killedAt: String?
        /// Whether SIGKILL ended it.
        var killed = false
        /// Whether the kill left a temporary file beside the queue's file.
        var temporaryFileLeft = false
        var receiver = Receiver.State()
    }

    /// The first launch records 3 rounds of 5 events (one of them refused), flushing after each,
    /// and is killed as `kill` says; the second records 3 more and delivers everything.
    static func run(_ kill: Kill) async throws -> Run {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flag-event-crash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let queueDirectory = directory.appendingPathComponent("queue")
        try FileManager.default.createDirectory(at: queueDirectory, withIntermediateDirectories: true)
        let queueFile = queueDirectory.appendingPathComponent("events.json")
        let receiver = Receiver()
        let server = try await TestHTTPServer.start { receiver.answer($0) }
        let endpoint = server.baseURL.appendingPathComponent("api/v1/events").absoluteString
        var run = Run()
        var acknowledged: Set<String> = []
        func note(_ line: String) {
            if line.hasPrefix("enqueued ") { acknowledged.formUnion(line.split(separator: " ").dropFirst().map(String.init)) }
        }

        let pausing = if case .afterLine = kill { false } else { true }
        let first = try CrashHelperProcess(
            arguments: [queueFile.path, endpoint, "a", "3", "5", pausing ? "pause" : "run"],
            standardError: directory.appendingPathComponent("first.stderr"))
        var finished = false
        for await line in first.lines {
            run.lineCount += 1
            note(line)
            if line == "done" { finished = true }
            if line.hasPrefix("point ") {
                run.points.append(line)
                if case .atPoint(let target) = kill, run.points.count - 1 == target {
                    run.killedAt = line
                    first.kill()
                } else if pausing {
                    try first.proceed()
                }
            }
            if case .afterLine(let target) = kill, run.lineCount == target {
                run.killedAt = line
                first.kill()
            }
        }
        let firstExit = first.waitForExit()
        run.killed = firstExit.killed
        if case .never = kill {
            #expect(finished && firstExit.status == 0, "\(kill): the first launch did not finish (status \(firstExit.status))")
        }

        // Whatever the moment of the kill, the file parses: a copy of it opens without a problem.
        let left = try FileManager.default.contentsOfDirectory(atPath: queueDirectory.path)
        run.temporaryFileLeft = left.contains { $0.hasPrefix("events.json.tmp-") }
        if FileManager.default.fileExists(atPath: queueFile.path) {
            let copy = directory.appendingPathComponent("copy/events.json")
            try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: queueFile, to: copy)
            #expect(FlagEventQueue(url: copy).openingProblem == nil, "\(kill) at \(run.killedAt ?? "-"): the queue file does not parse")
        }

        // Relaunched over the same file: 3 more events, then everything is delivered.
        let second = try CrashHelperProcess(
            arguments: [queueFile.path, endpoint, "b", "1", "3", "run"],
            standardError: directory.appendingPathComponent("second.stderr"))
        var secondFinished = false
        for await line in second.lines {
            note(line)
            if line == "done" { secondFinished = true }
        }
        let secondExit = second.waitForExit()
        let stderr = (try? String(contentsOf: directory.appendingPathComponent("second.stderr"), encoding: .utf8)) ?? ""
        #expect(secondFinished && secondExit.status == 0, "\(kill) at \(run.killedAt ?? "-"): the relaunch did not deliver everything (status \(secondExit.status)) \(stderr)")
        await server.shutdown()
        run.receiver = receiver.snapshot

        // The relaunch removed what the kill left, and delivered everything.
        let remaining = try FileManager.default.contentsOfDirectory(atPath: queueDirectory.path)
        #expect(remaining == ["events.json"], "\(kill) at \(run.killedAt ?? "-"): files left beside the queue: \(remaining)")
        #expect(FlagEventQueue(url: queueFile).isEmpty)

        verify(run, acknowledged: acknowledged, kill: kill)
        return run
    }

    /// Every acknowledged event arrived under exactly one batch id or was refused; nothing
    /// refused arrived; the drops reported are exactly the refused events.
    static func verify(_ run: Run, acknowledged: Set<String>, kill: Kill) {
        let context = "\(kill) at \(run.killedAt ?? "-")"
        let receiver = run.receiver
        var batchesOfEvent: [String: Set<String>] = [:]
        for (id, batch) in receiver.stored {
            for event in batch.events { batchesOfEvent[event.name, default: []].insert(id) }
        }
        let delivered = Set(batchesOfEvent.keys)
        #expect(batchesOfEvent.filter { $0.value.count > 1 }.isEmpty, "\(context): events sent under two batch ids")
        #expect(receiver.changedBatches.isEmpty, "\(context): a batch id reused for other events")
        #expect(receiver.unreadable == 0, "\(context): bodies that are not batches")
        let missing = acknowledged.subtracting(delivered).subtracting(receiver.refusedNames)
        #expect(missing.isEmpty, "\(context): enqueued and never delivered: \(missing.sorted())")
        #expect(delivered.isDisjoint(with: receiver.refusedNames), "\(context): refused events delivered")
        let droppedReported = receiver.stored.values.reduce(0) { total, batch in
            total + (batch.dropped.map { $0.exposures + $0.summaries + $0.tracked } ?? 0)
        }
        #expect(
            droppedReported == receiver.refusedNames.count,
            "\(context): \(receiver.refusedNames.count) events refused, \(droppedReported) reported dropped")
        // The relaunch's own events always arrive.
        #expect(delivered.isSuperset(of: ["b-0-0", "b-0-1", "b-0-2"]), "\(context)")
    }

    @Test func aKillAtAnyPointOfEnqueueAndFlushLosesNothingOnDiskAndSendsNothingTwice() async throws {
        let calibration = try await Self.run(.never)
        // The points a kill is interesting at are all there: mid-write and after the rename of
        // an append, a batch formed, a batch removed, split and dropped, and a request sent and
        // answered.
        for point in [
            "append written", "append renamed", "form written", "form renamed", "remove written", "remove renamed",
            "split written", "split renamed", "drop written", "drop renamed", "failure written", "failure renamed",
        ] {
            #expect(calibration.points.contains { $0.hasSuffix(" " + point) }, "no point \(point)")
        }
        #expect(calibration.points.contains { $0.contains(" send ") })
        #expect(calibration.points.contains { $0.contains(" answered ") && $0.hasSuffix(" 500") })
        #expect(calibration.receiver.refusedNames.count == 3)

        for point in calibration.points.indices {
            let run = try await Self.run(.atPoint(point))
            let killedAt = try #require(run.killedAt, "no point \(point)")
            #expect(run.killed, "not killed at \(killedAt)")
            // A kill between a temporary file's write and its rename leaves it (and the relaunch
            // deletes it, as `run` checked); a kill anywhere else leaves none.
            #expect(run.temporaryFileLeft == killedAt.hasSuffix(" written"), "\(killedAt)")
        }
    }

    @Test func aKillWhereverAFreeRunningProcessGotToLosesNothingOnDiskAndSendsNothingTwice() async throws {
        // The same scenario without stopping at points: the kill lands wherever the helper got
        // to after its n-th line (n from a fixed sequence; where it lands varies run to run, and
        // the checks hold for every landing place).
        let lines = try await Self.run(.afterLine(Int.max)).lineCount
        var generator = SplitMix64(seed: 23)
        for _ in 0..<12 {
            _ = try await Self.run(.afterLine(Int.random(in: 1..<lines, using: &generator)))
        }
    }
}

/// A seeded generator, so the free-running kills are made after the same lines every run.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
#endif
