// A stand-in app for FlagEventQueueCrashTests, run as a process of its own so that the test can
// kill it with SIGKILL: it records tracked events, delivers them through FlagEventDelivery over
// a queue file to an HTTP endpoint, and reports on standard output every point where a kill is
// interesting:
//
//     enqueued <name> <name>...     these events are in the queue's file (the append was renamed)
//     point <n> <change> <step>     a save of the queue: `written` (temporary file complete, not
//                                   yet renamed) or `renamed`
//     point <n> send <batchId>      a request is about to be sent
//     point <n> answered <batchId> <status>
//                                   the server answered; the queue does not know yet
//     done                          everything recorded was delivered or dropped
//
// With `pause`, it stops after each `point` line until it reads a line on standard input, so the
// test kills it exactly there; with `run`, it does not wait.
//
// Usage: flag-event-queue-crash-helper <queue-file> <endpoint> <prefix> <rounds> <events-per-round> pause|run
//
// A second mode stands in for an app with a SessionHealthMonitor (SessionHealthCrashTests), over
// `<directory>/events.json` and the markers beside it, offline (every request fails):
//
//     flag-event-queue-crash-helper health <directory> crash   exposes two units, flushes, writes
//                                                              `session <id>` and `running`, then
//                                                              waits to be killed
//     flag-event-queue-crash-helper health <directory> read    starts the monitor, reads a flag the
//                                                              server served (`new_checkout`, variant
//                                                              `treatment`, unit `user-1`) once and,
//                                                              without a flush, writes `session <id>`
//                                                              and `running`, then waits to be killed
//     flag-event-queue-crash-helper health <directory> report pause|run
//                                                              starts the monitor, which reports
//                                                              what earlier launches left: a point
//                                                              at each save of the queue, one once
//                                                              `start` returned, then `done`
//
// Events are named `<prefix>-<round>-<index>`, except the third of round 1, which ends in
// `-reject`: the test's receiver refuses a batch holding it (400). Not a product: only the tests
// run it.

import FeatureFlags
import FeatureFlagsEvents
import FeatureFlagsRemote
import Foundation
import Logging
import Synchronization

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writes the report lines (unbuffered, one `write` each, so a kill loses none that were
/// written) and holds the process at each point when pausing.
final class Reporter: Sendable {
    private struct State {
        var point = 0
        var unacknowledged: [String] = []
    }

    private let pausing: Bool
    private let state = Mutex(State())

    init(pausing: Bool) {
        self.pausing = pausing
    }

    func recorded(_ name: String) {
        state.withLock { $0.unacknowledged.append(name) }
    }

    /// Reports a point; `enqueued` says that the events recorded so far reached the file.
    func point(_ what: String, enqueued: Bool = false) {
        let (number, names) = state.withLock { state -> (Int, [String]) in
            defer { state.point += 1 }
            guard enqueued else { return (state.point, []) }
            defer { state.unacknowledged = [] }
            return (state.point, state.unacknowledged)
        }
        if !names.isEmpty { Self.write("enqueued \(names.joined(separator: " "))") }
        Self.write("point \(number) \(what)")
        // Blocks this thread until the test says go on (or kills the process): the helper has
        // nothing else to do meanwhile.
        if pausing, readLine() == nil { exit(3) }
    }

    static func write(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// The default transport, reporting before each request and after each answer.
struct ReportingTransport: HTTPTransport {
    let base = URLSessionTransport()
    let reporter: Reporter

    func send(_ request: RemoteHTTPRequest) async throws -> RemoteHTTPStreamingResponse {
        let batchId = request.headerFields["Idempotency-Key"] ?? "-"
        reporter.point("send \(batchId)")
        let response = try await base.send(request)
        reporter.point("answered \(batchId) \(response.statusCode)")
        return response
    }
}

// The test may stop reading once it killed a process; a write to a closed pipe must not be
// what ends this one.
signal(SIGPIPE, SIG_IGN)

/// A server that cannot be reached: the health mode queues, never sends.
struct OfflineTransport: HTTPTransport {
    struct Offline: Error {}

    func send(_ request: RemoteHTTPRequest) async throws -> RemoteHTTPStreamingResponse {
        throw Offline()
    }
}

func runHealth(_ arguments: [String]) async -> Never {
    guard arguments.count >= 4, ["crash", "read", "report"].contains(arguments[3]) else {
        FileHandle.standardError.write(Data("usage: flag-event-queue-crash-helper health <directory> crash|read|report [pause|run]\n".utf8))
        exit(2)
    }
    let directory = URL(fileURLWithPath: arguments[2])
    let reporter = Reporter(pausing: arguments.count > 4 && arguments[4] == "pause")
    let silent = Logger(label: "crash-helper") { _ in SwiftLogNoOpLogHandler() }
    let source = FlagEventSource(appVersion: "1.0", buildConfiguration: .release, platform: "CrashTest")
    let monitor = SessionHealthMonitor(.init(directory: directory, source: source, logger: silent))
    let recorder = FlagEventRecorder(.init(source: source, hooks: [monitor], logger: silent))
    let delivery = FlagEventDelivery(
        configuration: .init(
            endpoint: URL(string: "https://flags.invalid/ofrep/v1/ingestion")!,
            queueFile: directory.appendingPathComponent("events.json")),
        recorder: recorder, transport: OfflineTransport(), logger: silent)
    if arguments[3] == "crash" {
        await monitor.start(delivering: delivery)
        for (flag, variant, unit) in [("new_checkout", "treatment", "user-1"), ("dark_mode", "on", "user-1"), ("new_checkout", "control", "anon-7")] {
            recorder.recordExposure(
                flag: flag, variant: variant, value: .string(variant), isSensitive: false, reason: .split, revision: nil, unit: unit)
        }
        await delivery.flush()
        Reporter.write("session \(monitor.sessionID ?? "-")")
        Reporter.write("running")
        // The test kills the process here: the session never ends.
        _ = readLine()
        exit(0)
    }
    if arguments[3] == "read" {
        await monitor.start(delivering: delivery)
        let registry = try! FlagRegistry([FlagDefinition(key: "new_checkout", type: .boolean, default: false)])
        let flags = FlagEngine(registry: registry, setup: FlagSetup(buildConfiguration: .release, logger: silent, eventRecorder: recorder))
        flags.receiveRemoteValues(
            RemoteFlagValues(
                ["new_checkout": RemoteFlagValue(.bool(true), variant: "treatment", reason: .split)], source: "ofrep",
                unit: "user-1"))
        guard flags.value(forKey: "new_checkout") == .bool(true) else { exit(4) }
        Reporter.write("session \(monitor.sessionID ?? "-")")
        Reporter.write("running")
        // The test kills the process here, before any flush.
        _ = readLine()
        exit(0)
    }
    await delivery.setQueueCheckpoint { change, step in reporter.point("\(change) \(step)") }
    await monitor.start(delivering: delivery)
    reporter.point("started")
    Reporter.write("done")
    exit(0)
}

let arguments = CommandLine.arguments
if arguments.count > 1, arguments[1] == "health" {
    await runHealth(arguments)
}
guard arguments.count == 7, let endpoint = URL(string: arguments[2]), let rounds = Int(arguments[4]),
    let perRound = Int(arguments[5]), ["pause", "run"].contains(arguments[6])
else {
    FileHandle.standardError.write(
        Data("usage: flag-event-queue-crash-helper <queue-file> <endpoint> <prefix> <rounds> <events-per-round> pause|run\n".utf8))
    exit(2)
}
let queueFile = URL(fileURLWithPath: arguments[1])
let prefix = arguments[3]
let reporter = Reporter(pausing: arguments[6] == "pause")

let recorder = FlagEventRecorder(.init(source: FlagEventSource(appVersion: "1.0", buildConfiguration: .release, platform: "CrashTest")))
let delivery = FlagEventDelivery(
    configuration: .init(
        endpoint: endpoint, queueFile: queueFile, limits: .init(batchEvents: 6),
        // No waits: a failure is retried on the next flush, so a run is quick.
        minimumBackoff: 0, maximumBackoff: 0, requestTimeout: 600, batchesPerFlush: 4),
    recorder: recorder, transport: ReportingTransport(reporter: reporter),
    logger: Logger(label: "crash-helper") { _ in SwiftLogNoOpLogHandler() })
await delivery.setQueueCheckpoint { change, step in
    reporter.point("\(change) \(step)", enqueued: change == "append" && step == "renamed")
}

for round in 0..<rounds {
    for index in 0..<perRound {
        let name = round == 1 && index == 2 ? "\(prefix)-\(round)-\(index)-reject" : "\(prefix)-\(round)-\(index)"
        reporter.recorded(name)
        recorder.track(name, unit: nil)
    }
    await delivery.flush()
}
// What remains (a relaunch with nothing new to record does only this); bounded.
var flushes = 0
while flushes < 100, await delivery.flush().remaining {
    flushes += 1
}
if await delivery.queuedEventCount == 0, await delivery.queuedBatches.isEmpty {
    Reporter.write("done")
    exit(0)
}
Reporter.write("not done: \(await delivery.queuedEventCount) events wait")
exit(1)
