public import FlagEvaluation
public import Foundation
public import HTTPTypes
import Hummingbird
public import Logging
import NIOCore
public import Prometheus
import ServiceLifecycle

/// The flag server: storage, compiled state, delivery and the admin API, wired together.
///
/// ```swift
/// let store = try await SQLiteFlagStore(path: "data/flags.sqlite")
/// let server = try await FlagServer.start(store: store)
/// let app = server.application(host: "127.0.0.1", port: 8080)
/// try await app.runService()
/// ```
public final class FlagServer: Sendable {
    /// The environments created on first start.
    public static let defaultEnvironments = ["development", "staging", "production"]

    public let admin: FlagAdmin
    public let publisher: StatePublisher
    public let events: EventHub
    public let metrics: PrometheusCollectorRegistry
    public let limits: ServerLimits
    let rateLimiter: RateLimiter?
    let logger: Logger
    let now: @Sendable () -> Date

    /// What the first start created: the admin token text, shown once.
    public struct Bootstrap: Sendable {
        public var adminToken: String
    }

    init(
        admin: FlagAdmin, publisher: StatePublisher, events: EventHub, metrics: PrometheusCollectorRegistry,
        limits: ServerLimits, rateLimiter: RateLimiter?, logger: Logger, now: @escaping @Sendable () -> Date
    ) {
        self.admin = admin
        self.publisher = publisher
        self.events = events
        self.metrics = metrics
        self.limits = limits
        self.rateLimiter = rateLimiter
        self.logger = logger
        self.now = now
    }

    /// Migrates `store`, creates the default environments and a first admin token if the store
    /// has no environments yet, and loads the state.
    ///
    /// `fractionalBucketing` is flagd's current algorithm unless a deployment migrating from
    /// older flagd must keep its users in the buckets they had (``FractionalBucketing/legacy``).
    ///
    /// - Returns: The server, and the first admin token when this start created it.
    public static func start(
        store: any FlagStore, limits: ServerLimits = ServerLimits(), ttlSeconds: Int = 60,
        fractionalBucketing: FractionalBucketing = .current,
        rateLimiter: RateLimiter? = RateLimiter(perSecond: 50, burst: 100),
        metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        logger: Logger = Logger(label: "flag-server"), now: @escaping @Sendable () -> Date = Date.init
    ) async throws -> (server: FlagServer, bootstrap: Bootstrap?) {
        try await store.migrate()
        let publisher = StatePublisher(ttlSeconds: ttlSeconds, bucketing: fractionalBucketing)
        let events = EventHub()
        let admin = FlagAdmin(store: store, publisher: publisher, events: events, metrics: metrics, logger: logger, now: now)
        try await admin.reload()
        var bootstrap: Bootstrap?
        if await admin.state.environments.isEmpty {
            do {
                try await admin.write(actor: "flag-server (first start)", reason: "first start") { _ in
                    defaultEnvironments.map(StateChange.createEnvironment)
                }
                let (token, _) = try await admin.createToken(name: "first-admin", environment: TokenIssuer.allEnvironments, role: .admin)
                bootstrap = Bootstrap(adminToken: token)
            } catch {
                throw APIError(error)
            }
        }
        let server = FlagServer(
            admin: admin, publisher: publisher, events: events, metrics: metrics, limits: limits,
            rateLimiter: rateLimiter, logger: logger, now: now)
        return (server, bootstrap)
    }

    /// The routes of every endpoint.
    public func router() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: MetricsMiddleware())
        router.add(middleware: ExposeHeadersMiddleware(headers: "ETag, Retry-After"))
        router.add(middleware: CORSMiddleware(
            allowOrigin: .all,
            allowHeaders: [.accept, .authorization, .contentType, .origin, .ifNoneMatch, .apiKey, .lastEventID],
            allowMethods: [.get, .post, .put, .delete, .options],
            exposedHeaders: ["ETag", "Retry-After"]
        ))
        let authenticator = RequestAuthenticator(publisher: publisher, rateLimiter: rateLimiter)
        OFREPRoutes(authenticator: authenticator, limits: limits, now: now).register(on: router)
        DocumentRoutes(authenticator: authenticator).register(on: router)
        EventStreamRoutes(authenticator: authenticator, events: events).register(on: router)
        AdminRoutes(admin: admin, authenticator: authenticator, limits: limits).register(on: router)
        ServiceRoutes(metrics: metrics, events: events).register(on: router)
        return router
    }

    /// An application serving ``router()`` on `host:port` (port 0 picks a free port, reported
    /// to `onServerRunning`).
    public func application(
        host: String, port: Int, onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Application(
            router: router(),
            configuration: .init(address: .hostname(host, port: port), serverName: "flag-server"),
            services: [EventStreamShutdown(events: events)],
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
            logger: logger
        )
    }
}

/// Ends open event streams when a graceful shutdown begins, so that shutdown does not wait for
/// clients that never disconnect.
struct EventStreamShutdown: Service {
    let events: EventHub

    func run() async throws {
        try? await gracefulShutdown()
        events.finishAll()
    }
}
