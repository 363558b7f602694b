import Foundation
import HTTPTypes
import Hummingbird
import Prometheus

/// What the server and a relay both serve, set up in one place: the middleware (metrics, CORS with
/// `ETag` and `Retry-After` readable on every response, the OpenAPI document's methods and query
/// checks), OFREP (single and bulk), the flagd and `app_config` documents, event streams and their
/// tickets, the relay feed, health and metrics. The server adds its admin API and console to the
/// router this returns; a relay serves it as it is.
struct DeliveryRouting {
    let publisher: StatePublisher
    let rateLimiter: RateLimiter?
    let delivery: DeliveryOptions
    let limits: ServerLimits
    let now: @Sendable () -> Date
    let events: EventHub
    let tickets: StreamTickets
    let revisionEvents: RevisionEvents
    let metrics: PrometheusCollectorRegistry
    let readiness: Readiness

    /// A router with the delivery routes registered, and the authenticator they use.
    ///
    /// - Parameters:
    ///   - methods: The methods CORS allows (the server's admin API adds `PUT`, `PATCH`, `DELETE`).
    ///   - catchUp: How a replica catches up before answering a refetch that names a revision it
    ///     does not serve yet; `nil` where there is nothing to catch up with.
    ///   - feed: The relay feed of an environment (``RelayFeedRoutes``).
    func router(
        allowing methods: [HTTPRequest.Method], catchUp: ReplicaCatchUp?, feed: @escaping RelayFeedRoutes.Source
    ) -> (router: Router<BasicRequestContext>, authenticator: RequestAuthenticator) {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: MetricsMiddleware())
        router.add(middleware: ExposeHeadersMiddleware(headers: "ETag, Retry-After"))
        router.add(middleware: CORSMiddleware(
            allowOrigin: .all,
            allowHeaders: [.accept, .authorization, .contentType, .origin, .ifNoneMatch, .apiKey, .lastEventID, .idempotencyKey],
            allowMethods: methods,
            exposedHeaders: ["ETag", "Retry-After"]
        ))
        if let operations = DocumentedOperations.document {
            router.add(middleware: DocumentedOperationsMiddleware(operations: operations))
        }
        let authenticator = RequestAuthenticator(
            publisher: publisher, rateLimiter: rateLimiter, trustedProxies: delivery.trustedProxies)
        OFREPRoutes(authenticator: authenticator, limits: limits, now: now, catchUp: catchUp).register(on: router)
        DocumentRoutes(authenticator: authenticator).register(on: router)
        EventStreamRoutes(
            authenticator: authenticator, events: events, tickets: tickets, revisionEvents: revisionEvents
        ).register(on: router)
        RelayFeedRoutes(authenticator: authenticator, source: feed).register(on: router)
        ServiceRoutes(metrics: metrics, events: events, readiness: readiness).register(on: router)
        return (router, authenticator)
    }
}
