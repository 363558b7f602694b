import FlagServerModel
public import Foundation
public import Logging
public import Prometheus
public import ServiceLifecycle
import Synchronization

/// Keeps a replica's served state equal to the shared database's: every announced commit of
/// another replica is loaded, compiled, published and pushed to this replica's event streams.
///
/// Two paths lead there. The fast one: the store's notifications (PostgreSQL `LISTEN`), followed
/// within milliseconds. The safety net: a periodic comparison of the stored
/// ``StoreVersion`` with the served one, which catches a notification lost while the listening
/// connection was down. After the connection is re-established the version is checked at once.
///
/// A listening connection can also freeze without failing (the backend stopped, a stalled network
/// path: the TCP connection stays open and nothing arrives). To notice that, the replica sends a
/// ``Heartbeat`` through the database every ``Heartbeat/interval`` on another connection and
/// expects to hear it on the listening one within ``Heartbeat/timeout``; when it does not, it
/// reports itself not ready, closes the silent connection, listens on a new one and checks the
/// version (catching up on what it missed), and is ready again.
///
/// It runs as a service of ``FlagServer/application(host:port:onServerRunning:)``.
public final class ReplicaSynchronizer: Service, Sendable {
    /// When the periodic revision check runs.
    public enum Schedule: Sendable, Hashable {
        /// Every `interval` (30 seconds by default: it only matters when a notification was lost).
        case every(Duration)
        /// Only when ``checkNow()`` is called (tests trigger it themselves).
        case manual
    }

    /// How the listening connection is proved alive: a heartbeat sent through the database.
    public struct Heartbeat: Sendable, Hashable {
        /// How often the replica sends its heartbeat (500 ms by default).
        public var interval: Duration
        /// How long the listening connection may stay without this replica's heartbeat before it is
        /// taken as frozen and replaced (1.2 s by default: two heartbeats lost, so that a repair
        /// including the reconnection and the catch-up stays within 2 s).
        public var timeout: Duration

        /// A heartbeat every `interval`, the listening connection replaced after `timeout` without one.
        public init(interval: Duration = .milliseconds(500), timeout: Duration = .milliseconds(1200)) {
            self.interval = interval
            self.timeout = timeout
        }
    }

    let admin: FlagAdmin
    let store: any ReplicatedFlagStore
    let schedule: Schedule
    let reconnectDelay: Duration
    let heartbeat: Heartbeat?
    let readiness: Readiness
    /// Names this replica's heartbeats (random per process).
    let heartbeatID = UUID().uuidString
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let lag: Gauge
    private let reachable: Gauge
    private let repairs: Counter
    private let delay: DurationHistogram
    private let silences: Counter

    /// - Parameters:
    ///   - schedule: The periodic check.
    ///   - reconnectDelay: The pause before listening again after the connection failed (a
    ///     connection that only went silent is replaced at once).
    ///   - heartbeat: How the listening connection is proved alive; `nil` sends none.
    ///   - now: The clock the propagation delay is measured with (against the writer's commit time).
    public init(
        admin: FlagAdmin, store: any ReplicatedFlagStore, schedule: Schedule = .every(.seconds(30)),
        reconnectDelay: Duration = .seconds(1), heartbeat: Heartbeat? = Heartbeat(), readiness: Readiness, metrics: PrometheusCollectorRegistry,
        logger: Logger = Logger(label: "flag-server.replicas"), now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.admin = admin
        self.store = store
        self.schedule = schedule
        self.reconnectDelay = reconnectDelay
        self.heartbeat = heartbeat
        self.readiness = readiness
        self.logger = logger
        self.now = now
        lag = metrics.makeGauge(descriptor: .named(
            "flag_server_revision_lag",
            help: "Revisions this replica was behind the database after its last check (summed over environments)."))
        reachable = metrics.makeGauge(descriptor: .named(
            "flag_server_database_reachable", help: "1 when the last database contact succeeded, else 0."))
        repairs = metrics.makeCounter(descriptor: .named(
            "flag_server_revision_check_repairs_total",
            help: "Periodic checks that found this replica behind (a notification was lost)."))
        delay = metrics.makeDurationHistogram(
            descriptor: .named(
                "flag_server_propagation_delay_seconds",
                help: "From a commit on another replica to this replica serving it (the writer's clock against this one's)."),
            buckets: [
                .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
                .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
            ])
        silences = metrics.makeCounter(descriptor: .named(
            "flag_server_notification_silences_total",
            help: "Listening connections replaced because this replica's heartbeat did not come back in time."))
        reachable.set(1.0)
    }

    /// Listens and checks until the task is cancelled or a graceful shutdown begins.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.listenUntilCancelled() }
                if case .every(let interval) = self.schedule {
                    group.addTask {
                        while !Task.isCancelled {
                            try? await Task.sleep(for: interval)
                            guard !Task.isCancelled else { return }
                            await self.checkNow()
                        }
                    }
                }
                await group.waitForAll()
            }
        }
    }

    /// Compares the stored version with the served one and reloads if they differ.
    ///
    /// - Returns: Whether this replica was behind.
    @discardableResult
    public func checkNow() async -> Bool {
        let version: StoreVersion
        do {
            version = try await store.currentVersion()
        } catch {
            databaseFailed(error)
            return false
        }
        databaseReached()
        let served = await servedVersion()
        guard version != served else {
            lag.set(0.0)
            return false
        }
        let behind = version.revisions.reduce(0) { $0 + max(0, $1.value - (served.revisions[$1.key] ?? 0)) }
        if behind > 0 {
            repairs.increment()
            logger.notice(
                "revision check found this replica behind; reloading",
                metadata: ["revisionsBehind": "\(behind)"])
        }
        await refresh(announcement: nil, version: version)
        let after = await servedVersion()
        lag.set(Double(version.revisions.reduce(0) { $0 + max(0, $1.value - (after.revisions[$1.key] ?? 0)) }))
        return true
    }

    /// Handles one notification: reloads if it announces something newer than what is served.
    func receive(_ announcement: RevisionAnnouncement?) async {
        guard let announcement else {
            logger.warning("unreadable revision notification; checking the whole version")
            await checkNow()
            return
        }
        let served = await servedVersion()
        let newer = announcement.revisions.contains { $0.value > (served.revisions[$0.key] ?? 0) }
        guard newer || announcement.tokens else { return }
        await refresh(announcement: newer ? announcement : nil)
    }

    private func listenUntilCancelled() async {
        // Silences in a row on connections that never carried a heartbeat: the first is replaced
        // at once (the connection froze, not necessarily the database); after that the database
        // itself may not deliver, and reconnecting waits as after a failure.
        var silentInARow = 0
        while !Task.isCancelled {
            var immediately = false
            do {
                let heard = try await listenUntilSilent()
                guard !Task.isCancelled else { return }
                silences.increment()
                let timeout = heartbeat?.timeout ?? .zero
                logger.warning(
                    "revision notifications went silent (no heartbeat came back); listening on a new connection",
                    metadata: ["timeout": "\(timeout)"])
                readiness.listenerFailed("no heartbeat came back within \(timeout)")
                silentInARow = heard ? 1 : silentInARow + 1
                immediately = silentInARow == 1
            } catch {
                guard !Task.isCancelled else { return }
                logger.warning("revision notifications interrupted; reconnecting", metadata: ["error": "\(error)"])
                databaseFailed(error)
            }
            if !immediately { try? await Task.sleep(for: reconnectDelay) }
        }
    }

    /// Listens until the connection fails (throws) or goes silent (returns whether it had carried
    /// a heartbeat before).
    private func listenUntilSilent() async throws(StoreError) -> Bool {
        let watch = ListenerWatch()
        let clock = ContinuousClock()
        let (outcomes, outcome) = AsyncStream.makeStream(of: Result<Bool, StoreError>.self, bufferingPolicy: .bufferingOldest(1))
        // Neither task is awaited: a frozen connection may not end promptly even once closed,
        // and must not hold up its replacement. Cancelling the listening task closes it.
        let listening = Task { [self] in
            do {
                try await store.listen(
                    onListening: { [self] in
                        logger.debug("listening for revisions")
                        // Anything committed while the connection was down was announced to nobody.
                        await checkNow()
                        if readiness.isDatabaseReachable { readiness.listenerRestored() }
                        watch.listening(at: clock.now)
                    },
                    onAnnouncement: { [self] announcement in
                        if let beat = announcement?.heartbeat {
                            if beat == heartbeatID { watch.heard(at: clock.now) }
                            return
                        }
                        // A reload may take long: the time it takes is no silence.
                        watch.busy(true, at: clock.now)
                        await receive(announcement)
                        watch.busy(false, at: clock.now)
                    })
                outcome.yield(.failure(.database("the notification connection ended")))
            } catch let error as StoreError {
                outcome.yield(.failure(error))
            } catch {
                outcome.yield(.failure(.database("\(error)")))
            }
        }
        let watching = Task { [self] in
            guard let heartbeat else { return }
            let tick = min(heartbeat.interval, .milliseconds(100))
            var lastSent: ContinuousClock.Instant?
            while !Task.isCancelled {
                try? await Task.sleep(for: tick)
                let now = clock.now
                if watch.isSilent(at: now, for: heartbeat.timeout) {
                    outcome.yield(.success(watch.hasHeard))
                    return
                }
                guard watch.isListening else { continue }
                if lastSent.map({ now - $0 >= heartbeat.interval }) ?? true, watch.beginSending() {
                    lastSent = now
                    // Not awaited: a database that does not answer must not stop the watch.
                    Task { [self] in
                        try? await store.announce(RevisionAnnouncement(revisions: [:], committedAt: 0, heartbeat: heartbeatID))
                        watch.endSending()
                    }
                }
            }
        }
        var iterator = outcomes.makeAsyncIterator()
        let first = await withTaskCancellationHandler {
            await iterator.next()
        } onCancel: {
            outcome.finish()
        }
        listening.cancel()
        watching.cancel()
        guard let first else { return false }  // cancelled: the caller stops
        return try first.get()
    }

    private func refresh(announcement: RevisionAnnouncement?, version: StoreVersion? = nil) async {
        do {
            try await admin.refresh(knowing: version)
            databaseReached()
        } catch {
            databaseFailed(error)
            return
        }
        guard let announcement, announcement.committedAt.isFinite else { return }
        let seconds = max(0, now().timeIntervalSince1970 - announcement.committedAt)
        delay.record(.nanoseconds(Int64(seconds * 1e9)))
    }

    /// The version of what this replica serves (the same token generation as the store counts).
    private func servedVersion() async -> StoreVersion {
        let tokens = admin.publisher.current.tokens.values
        return StoreVersion(
            revisions: await admin.state.revisions,
            tokenGeneration: tokens.count + tokens.filter { $0.revokedAt != nil }.count)
    }

    private func databaseReached() {
        if !readiness.isDatabaseReachable { logger.info("database reachable again") }
        readiness.databaseReached()
        reachable.set(1.0)
    }

    private func databaseFailed(_ error: StoreError) {
        readiness.databaseFailed(error.description)
        reachable.set(0.0)
    }
}

/// What the heartbeat watch knows about the listening connection.
private final class ListenerWatch: Sendable {
    private struct State {
        /// Since when the connection has shown no sign of life (listening began, or the last
        /// heartbeat); `nil` before it listens and while a notification is being handled.
        var quietSince: ContinuousClock.Instant?
        var listening = false
        var heard = false
        var sending = false
    }

    private let state = Mutex(State())

    var isListening: Bool { state.withLock { $0.listening } }
    var hasHeard: Bool { state.withLock { $0.heard } }

    func listening(at now: ContinuousClock.Instant) {
        state.withLock {
            $0.listening = true
            $0.quietSince = now
        }
    }

    func heard(at now: ContinuousClock.Instant) {
        state.withLock {
            $0.heard = true
            $0.quietSince = now
        }
    }

    func busy(_ busy: Bool, at now: ContinuousClock.Instant) {
        state.withLock { $0.quietSince = busy ? nil : now }
    }

    func isSilent(at now: ContinuousClock.Instant, for timeout: Duration) -> Bool {
        state.withLock { state in state.quietSince.map { now - $0 > timeout } ?? false }
    }

    /// Whether a heartbeat may be sent now (none is still on its way to the database).
    func beginSending() -> Bool {
        state.withLock { state in
            if state.sending { return false }
            state.sending = true
            return true
        }
    }

    func endSending() { state.withLock { $0.sending = false } }
}
