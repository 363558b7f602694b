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
/// It runs as a service of ``FlagServer/application(host:port:onServerRunning:)``.
public final class ReplicaSynchronizer: Service, Sendable {
    /// When the periodic revision check runs.
    public enum Schedule: Sendable, Hashable {
        /// Every `interval` (30 seconds by default: it only matters when a notification was lost).
        case every(Duration)
        /// Only when ``checkNow()`` is called (tests trigger it themselves).
        case manual
    }

    let admin: FlagAdmin
    let store: any ReplicatedFlagStore
    let schedule: Schedule
    let reconnectDelay: Duration
    let readiness: Readiness
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let lag: Gauge
    private let reachable: Gauge
    private let repairs: Counter
    private let delay: DurationHistogram

    /// - Parameters:
    ///   - schedule: The periodic check.
    ///   - reconnectDelay: The pause before listening again after the connection failed.
    ///   - now: The clock the propagation delay is measured with (against the writer's commit time).
    public init(
        admin: FlagAdmin, store: any ReplicatedFlagStore, schedule: Schedule = .every(.seconds(30)),
        reconnectDelay: Duration = .seconds(1), readiness: Readiness, metrics: PrometheusCollectorRegistry,
        logger: Logger = Logger(label: "flag-server.replicas"), now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.admin = admin
        self.store = store
        self.schedule = schedule
        self.reconnectDelay = reconnectDelay
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
        while !Task.isCancelled {
            do {
                try await store.listen(
                    onListening: { [self] in
                        logger.debug("listening for revisions")
                        // Anything committed while the connection was down was announced to nobody.
                        await checkNow()
                    },
                    onAnnouncement: { [self] announcement in await receive(announcement) })
            } catch {
                guard !Task.isCancelled else { return }
                logger.warning("revision notifications interrupted; reconnecting", metadata: ["error": "\(error)"])
                databaseFailed(error)
            }
            try? await Task.sleep(for: reconnectDelay)
        }
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
