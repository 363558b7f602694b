import FlagEvaluation
public import Foundation
import Hummingbird
import HummingbirdCore
public import Logging
import NIOCore
public import Prometheus
import ServiceLifecycle

/// A relay: a process without a database that follows an upstream flag server (or another relay)
/// for one environment and serves delivery near its clients, with the server's own routes over
/// the server's compiled state: OFREP (single and bulk, the same ETags and 304s), the event
/// stream and its tickets, `app_config`, the flagd file, and the relay feed, so that another
/// relay can follow this one.
///
/// Clients present the tokens the upstream issued: the feed carries the environment's client and
/// server tokens as stored (digests only), so the relay checks them as the server does, and never
/// sees or forwards a token of its clients. Admin tokens and the admin API stay on the server.
///
/// ```swift
/// let relay = FlagRelay(options: try RelayFollower.Options(upstream: URL(string: "https://flags.example.com")!, token: token))
/// try await relay.application(host: "0.0.0.0", port: 8080).runService()
/// ```
public final class FlagRelay: Sendable {
    /// The compiled state the relay serves, swapped on every feed.
    public let publisher: StatePublisher
    /// The relay's own event streams, told of every revision it publishes.
    public let events: EventHub
    /// The relay's Prometheus metrics (its upstream connection, feeds applied and failures, and delivery), served with its routes.
    public let metrics: PrometheusCollectorRegistry
    /// The request size limits of the delivery endpoints.
    public let limits: ServerLimits
    /// Ready once the first feed is served; stale (still ready) while the upstream is lost.
    public let readiness: Readiness
    /// The service that keeps the served state equal to the upstream's.
    public let follower: RelayFollower
    let rateLimiter: RateLimiter?
    let logger: Logger
    let now: @Sendable () -> Date
    let streamTickets = StreamTickets()
    let eventStreamKeepAlive: Duration
    /// The trusted proxies (rate limits count per client behind them) and the refetch spread.
    let delivery: DeliveryOptions
    /// Each revision's event, with the changes and refetch spread the server's events carry.
    let revisionEvents: RevisionEvents

    /// - Parameters:
    ///   - ttlSeconds: The `ttlSeconds` this relay's `app_config` advertises.
    public init(
        options: RelayFollower.Options, limits: ServerLimits = ServerLimits(), ttlSeconds: Int = 60,
        rateLimiter: RateLimiter? = RateLimiter(perSecond: 50, burst: 100),
        metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        logger: Logger = Logger(label: "flag-server.relay"), now: @escaping @Sendable () -> Date = Date.init,
        eventStreamKeepAlive: Duration = .seconds(15), delivery: DeliveryOptions = DeliveryOptions()
    ) {
        publisher = StatePublisher(ttlSeconds: ttlSeconds, bucketing: options.fractionalBucketing)
        let events = EventHub(maximumStreams: limits.maximumEventStreams, maximumStreamsPerOwner: limits.maximumEventStreamsPerToken)
        self.events = events
        readiness = Readiness(stateLoaded: false)
        follower = RelayFollower(
            options: options, publisher: publisher, events: events, readiness: readiness, metrics: metrics, logger: logger,
            now: now)
        self.metrics = metrics
        self.limits = limits
        self.rateLimiter = rateLimiter
        self.logger = logger
        self.now = now
        self.eventStreamKeepAlive = eventStreamKeepAlive
        self.delivery = delivery
        revisionEvents = RevisionEvents(
            spread: .init(refetchesPerSecond: delivery.refetchesPerSecond), openStreams: { events.subscriberCount })
    }

    /// The delivery routes, the relay feed, health and metrics.
    public func router() -> Router<BasicRequestContext> {
        let follower = self.follower
        return DeliveryRouting(
            publisher: publisher, rateLimiter: rateLimiter, delivery: delivery, limits: limits, now: now, events: events,
            tickets: streamTickets, revisionEvents: revisionEvents, metrics: metrics, readiness: readiness
        ).router(allowing: [.get, .post, .options], catchUp: nil) { follower.feed(for: $0) }.router
    }

    /// An application serving ``router()`` on `host:port` and following the upstream (port 0
    /// picks a free port, reported to `onServerRunning`).
    public func application(
        host: String, port: Int, onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        FlagServer.guardedApplication(
            router: router(), serverName: "flag-server relay", host: host, port: port, limits: limits, events: events, logger: logger,
            services: [EventStreamService(events: events, keepAlive: eventStreamKeepAlive), follower],
            onServerRunning: onServerRunning)
    }
}
