import FeatureFlags
import FeatureFlagsRemote
import Foundation
import Logging

/// Delivers what a ``FlagEventRecorder`` records to the flag server: drains the recorder into a
/// ``FlagEventQueue`` on disk and sends it in batches, on an interval, as soon as the recorder
/// holds ``FlagEventRecorder/Configuration/flushThreshold`` events, and when the app calls
/// ``flush()`` (on going to the background: on UIKit platforms
/// `flushWhenEnteringBackground()` does it).
///
/// ```swift
/// let delivery = FlagEventDelivery(
///     configuration: .init(
///         endpoint: URL(string: "https://flags.example.com/api/v1/events")!,
///         headerFields: ["Authorization": "Bearer \(clientToken)"],
///         queueFile: cachesDirectory.appendingPathComponent("flag-events.json")),
///     recorder: recorder)
/// delivery.start()
/// ```
///
/// Nothing here runs on a flag check or at launch: draining, writing the file and sending happen
/// in delivery's own task. A failed attempt (a connection error, a timeout, a 5xx, a 429) waits
/// with exponential backoff and jitter before the next, a `Retry-After` is honoured (at most a
/// day), and the wait is kept in the file, so a relaunch does not retry early. A batch the server
/// finds too large (413) is split in two, down to single events, which are dropped and counted
/// (a 413 for a batch of drop counts alone is a failure); a batch it refuses as malformed (400,
/// 422) is dropped and counted, as it would be refused again. Every batch keeps its id across
/// retries and relaunches.
public actor FlagEventDelivery {
    /// Where and how to deliver.
    public struct Configuration: Sendable {
        /// The ingestion endpoint (`POST`, `application/json`).
        public var endpoint: URL
        /// Header fields of every request, such as the client token's `Authorization`. Never
        /// logged.
        public var headerFields: [String: String]
        /// The queue's file (a file of its own, in the app's caches or support directory).
        public var queueFile: URL
        /// How much the queue keeps and how large a batch may be.
        public var limits: FlagEventQueue.Limits
        /// How often the recorder is drained and the queue sent (60 seconds).
        public var flushInterval: TimeInterval
        /// The first wait after a failure (10 seconds); each further failure doubles it.
        public var minimumBackoff: TimeInterval
        /// The longest wait after failures (one hour).
        public var maximumBackoff: TimeInterval
        /// How long one request may take (30 seconds).
        public var requestTimeout: TimeInterval
        /// The most batches sent by one flush (20): a flush is bounded work however much waits.
        public var batchesPerFlush: Int

        /// A configuration posting to `endpoint`; every other setting has the default documented on its member.
        public init(
            endpoint: URL, headerFields: [String: String] = [:], queueFile: URL,
            limits: FlagEventQueue.Limits = FlagEventQueue.Limits(), flushInterval: TimeInterval = 60,
            minimumBackoff: TimeInterval = 10, maximumBackoff: TimeInterval = 3_600, requestTimeout: TimeInterval = 30,
            batchesPerFlush: Int = 20
        ) {
            self.endpoint = endpoint
            self.headerFields = headerFields
            self.queueFile = queueFile
            self.limits = limits
            self.flushInterval = flushInterval
            self.minimumBackoff = minimumBackoff
            self.maximumBackoff = maximumBackoff
            self.requestTimeout = requestTimeout
            self.batchesPerFlush = max(1, batchesPerFlush)
        }
    }

    /// What one ``flush()`` did.
    public struct FlushResult: Sendable, Hashable {
        /// Ids of the batches the server accepted.
        public var accepted: [String] = []
        /// When the next attempt may be made, if an attempt failed or a wait is in effect.
        public var retryAt: Date?
        /// Whether events still wait in the queue.
        public var remaining: Bool = false
    }

    /// Where and how often events are sent.
    public let configuration: Configuration
    /// The recorder drained (the session health monitor begins its sessions).
    let recorder: FlagEventRecorder
    private let transport: any HTTPTransport
    private let clock: any RefreshClock
    private let random: @Sendable () -> Double
    private let logger: Logger
    private let queue: FlagEventQueue
    private var loop: Task<Void, Never>?
    private let cue = DeliveryCue()
    /// Hands its `$error` events to each flush and refreshes its marker after it (weak: the
    /// monitor holds the delivery).
    private weak var sessionHealth: SessionHealthMonitor?

    /// - Parameters:
    ///   - transport: sends the requests (`URLSessionTransport` by default).
    ///   - clock: the time of backoff and `Retry-After`, and the interval's sleeps.
    ///   - random: a number in `0..<1` for the jitter of each backoff.
    ///   - makeBatchID: the id of each new batch (a UUID by default).
    public init(
        configuration: Configuration, recorder: FlagEventRecorder, transport: any HTTPTransport = URLSessionTransport(),
        clock: any RefreshClock = SystemRefreshClock(), random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        makeBatchID: @escaping @Sendable () -> String = { UUID().uuidString },
        logger: Logger = Logger(label: "feature-flags.events")
    ) {
        self.configuration = configuration
        self.recorder = recorder
        self.transport = transport
        self.clock = clock
        self.random = random
        self.logger = logger
        queue = FlagEventQueue(url: configuration.queueFile, limits: configuration.limits, makeID: makeBatchID)
        if let problem = queue.openingProblem { logger.warning("\(problem)") }
    }

    // MARK: - Running

    /// Starts flushing on the interval and whenever the recorder reaches its flush threshold.
    /// Returns at once; ``stop()`` ends it.
    ///
    /// The interval goes on during a wait (backoff, `Retry-After`): each flush then only moves
    /// what the recorder holds into the queue's file, so that an app killed while delivery waits
    /// loses at most an interval's events, and the recorder's buffer does not fill.
    public func start() {
        guard loop == nil else { return }
        let cue = self.cue
        recorder.onFlushThreshold { cue.signal() }
        let interval = configuration.flushInterval
        let clock = self.clock
        loop = Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                await self.flush()
                await cue.wait(until: clock.now.addingTimeInterval(interval), clock: clock)
            }
        }
    }

    /// Stops the loop ``start()`` began; what is queued stays in the file for the next launch.
    public func stop() {
        loop?.cancel()
        loop = nil
        recorder.onFlushThreshold {}
    }

    /// Drains the recorder into the queue, then sends batches until the queue is empty, an
    /// attempt fails, a wait (backoff, `Retry-After`) is in effect, or ``Configuration/batchesPerFlush``
    /// were sent.
    @discardableResult
    public func flush() async -> FlushResult {
        let drained = recorder.drain()
        let health = sessionHealth
        let errors = health?.takeErrorEvents() ?? []
        do {
            try queue.append(drained.events + errors, dropped: drained.dropped)
        } catch {
            logger.warning("Could not write the event queue \(configuration.queueFile.lastPathComponent): \(error). The events stay in memory until the next flush.")
            health?.returnErrorEvents(errors)
        }
        // The marker's snapshot is rewritten here when reads were appended to it since (or it
        // is due for a refresh), off the thread of any check.
        health?.saveMarkerIfNeeded()
        var result = FlushResult()
        holdWaitToItsLongest()
        for _ in 0..<configuration.batchesPerFlush {
            if let notBefore = queue.notBefore, notBefore > clock.now {
                result.retryAt = notBefore
                break
            }
            let batch: FlagEventBatch?
            do {
                batch = try queue.nextBatch(fallbackSource: recorder.configuration.source)
            } catch {
                logger.warning("Could not write the event queue: \(error).")
                break
            }
            guard let batch else { break }
            var outcome = await send(batch)
            if case .tooLarge = outcome, batch.eventCount == 0 {
                // A batch of drop counts alone has nothing to split or drop: the server refuses
                // the smallest body there is, so it is a failure like a 5xx, with backoff.
                outcome = .retry(nil, "HTTP 413 for a batch without events")
            }
            do {
                switch outcome {
                case .accepted:
                    try queue.remove(batchId: batch.batchId)
                    result.accepted.append(batch.batchId)
                case .refused(let status):
                    logger.warning("The event server refused batch \(batch.batchId) with HTTP \(status); dropped \(batch.eventCount) events.")
                    try queue.drop(batchId: batch.batchId)
                case .tooLarge:
                    try queue.split(batchId: batch.batchId)
                case .retry(let retryAfter, let status):
                    let retryAt = retryAfter ?? backoff(after: queue.failures + 1)
                    try queue.recordFailure(retryAt: retryAt)
                    logger.info("Event delivery failed (\(status)); next attempt at \(retryAt).")
                    result.retryAt = retryAt
                }
            } catch {
                logger.warning("Could not write the event queue: \(error).")
                break
            }
            if case .retry = outcome { break }
        }
        result.remaining = !queue.isEmpty
        return result
    }

    /// The longest wait there can be: a day (the most a `Retry-After` asks for), or the
    /// maximum backoff if it is longer.
    var longestWait: TimeInterval {
        max(RemoteDurationLimits.retryAfter.upperBound, configuration.maximumBackoff)
    }

    /// Holds the wait read from the file to ``longestWait`` from now, and saves it so held: the
    /// device's clock may have been set back since the wait was written (or the file written by
    /// a version with other limits), and a wait a year ahead would stop delivery for a year.
    private func holdWaitToItsLongest() {
        let latest = clock.now.addingTimeInterval(longestWait)
        guard let notBefore = queue.notBefore, notBefore > latest else { return }
        do {
            try queue.recordFailure(retryAt: latest, countingFailure: false)
        } catch {
            logger.warning("Could not write the event queue: \(error).")
        }
    }

    /// Appends `events` to the queue's file unless events were appended under `key` before, in
    /// one write with the key (``FlagEventQueue/append(_:once:)``): the session health monitor's
    /// reports go through here, so a report repeated after a kill is queued once. Returns
    /// whether it appended; throws when the file could not be written (nothing was appended).
    @discardableResult
    public func enqueue(_ events: [FlagEvent], once key: String) throws -> Bool {
        try queue.append(events, once: key)
    }

    /// Lets `monitor` add its events to each flush and save its marker after it.
    func attach(_ monitor: SessionHealthMonitor) {
        sessionHealth = monitor
    }

    /// Sets what the queue calls at each step of each save (see `FlagEventQueue.checkpoint`),
    /// for the crash tests' helper.
    package func setQueueCheckpoint(_ checkpoint: @escaping @Sendable (_ change: String, _ step: String) -> Void) {
        queue.checkpoint = checkpoint
    }

    /// The queue, for tests and the debug menu.
    public var queuedBatches: [FlagEventBatch] { queue.batches }
    /// Events waiting, in batches or not.
    public var queuedEventCount: Int { queue.eventCount }

    // MARK: - Sending

    enum Outcome {
        case accepted
        case refused(Int)
        case tooLarge
        case retry(Date?, String)
    }

    private func send(_ batch: FlagEventBatch) async -> Outcome {
        let body: Data
        do {
            body = try batch.encoded()
        } catch {
            return .refused(0)
        }
        var headers = configuration.headerFields
        headers["Content-Type"] = "application/json"
        headers["Idempotency-Key"] = batch.batchId
        if batch.isSessionHealthOnly {
            // The server admits these before other batches when it is busy (and refuses the
            // header on any other batch with 422).
            headers["Flag-Event-Priority"] = "health"
        }
        let request = RemoteHTTPRequest(
            method: .post, url: configuration.endpoint, headerFields: headers, body: body,
            timeout: configuration.requestTimeout)
        let transport = self.transport
        let response: RemoteHTTPStreamingResponse
        do {
            response = try await Timeout.run(seconds: configuration.requestTimeout, clock: clock) {
                try await transport.send(request)
            }
        } catch {
            return .retry(nil, "\(error)")
        }
        let now = clock.now
        switch response.statusCode {
        case 200..<300:
            return .accepted
        case 413:
            return .tooLarge
        case 400, 422:
            return .refused(response.statusCode)
        default:
            let retryAfter = response.value(forHeaderField: "Retry-After").flatMap { RetryAfter.date(from: $0, now: now) }
            return .retry(retryAfter, "HTTP \(response.statusCode)")
        }
    }

    /// The wait after `failures` failed attempts in a row: the minimum doubled per further
    /// failure, at most the maximum, times a jitter between ½ and 1 so that devices that failed
    /// together do not retry together.
    func backoff(after failures: Int) -> Date {
        let exponent = min(max(failures - 1, 0), 30)
        let base = min(configuration.maximumBackoff, configuration.minimumBackoff * Double(1 << exponent))
        let jitter = 0.5 + 0.5 * min(max(random(), 0), 1)
        return clock.now.addingTimeInterval(base * jitter)
    }
}

/// Wakes delivery's loop early: a signal that is kept until the loop waits for it.
final class DeliveryCue: Sendable {
    private struct State {
        var signalled = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())

    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.signalled = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns at `deadline`, on a signal, or when the task is cancelled, whichever comes first.
    func wait(until deadline: Date, clock: any RefreshClock) async {
        let sleeper = Task {
            do {
                try await clock.sleep(until: deadline)
                self.signal()
            } catch {
                // Cancelled: the wait ended another way.
            }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    if state.signalled {
                        state.signalled = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            self.signal()
        }
        sleeper.cancel()
    }
}
