public import FlagEvaluation
public import Foundation

extension FlagServer {
    /// How a server runs: every setting of
    /// ``FlagServer/start(store:eventStore:configuration:metrics:consoleAccounts:logger:now:showBootstrap:)``
    /// that is not a dependency, each defaulting to what `flag-server serve` uses without options.
    ///
    /// ```swift
    /// var configuration = FlagServer.Configuration()
    /// configuration.fractionalBucketing = .legacy
    /// configuration.rolloutTickInterval = nil      // this server runs no rollout executor
    /// let (server, _) = try await FlagServer.start(store: store, configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// Bounds on requests, bodies, streams and writes.
        public var limits: ServerLimits
        /// The refetch interval advertised to apps, in seconds.
        public var ttlSeconds: Int
        /// flagd's current fractional bucketing unless a deployment migrating from older flagd
        /// must keep its users in the buckets they had (``FractionalBucketing/legacy``).
        public var fractionalBucketing: FractionalBucketing
        /// The per-client request limiter of the delivery endpoints; `nil`: none.
        public var rateLimiter: RateLimiter?
        /// The console's options (sessions, sign-in, single sign-on, password checks).
        public var console: ConsoleOptions
        /// How often a replica compares its revisions with the database's, in case a notification
        /// was lost.
        public var revisionCheck: ReplicaSynchronizer.Schedule
        /// The pause before a replica listens again after its connection failed.
        public var reconnectDelay: Duration
        /// How a replica proves its listening connection alive (see ``ReplicaSynchronizer/Heartbeat``).
        public var heartbeat: ReplicaSynchronizer.Heartbeat?
        /// How often an event stream without events sends the comment `: keep-alive`, so that
        /// proxies do not cut it as idle.
        public var eventStreamKeepAlive: Duration
        /// The trusted proxies, and the refetch spread events advertise.
        public var delivery: DeliveryOptions
        /// The bounds of `POST /ofrep/v1/ingestion` and of its queue.
        public var eventIngestion: EventIngestionOptions
        /// How long the event store keeps events, swept at start and then every interval; `nil`:
        /// never swept.
        public var eventRetention: EventRetention?
        /// How webhooks are sent (`Server/Docs/Webhooks.md`); `nil`: this server sends none and
        /// records no notifications (endpoints can still be managed).
        public var webhooks: WebhookOptions?
        /// How long after its time a scheduled change still runs when no server ran at its time;
        /// later it is marked missed (`Server/Docs/ScheduledChanges.md`).
        public var scheduleGrace: TimeInterval
        /// How often the server's rollout executor looks at the running plans
        /// (`Server/Docs/Rollouts.md`); `nil`: the server runs none.
        public var rolloutTickInterval: Duration?

        /// A configuration; every setting left out is `flag-server serve`'s default.
        public init(
            limits: ServerLimits = ServerLimits(), ttlSeconds: Int = 60, fractionalBucketing: FractionalBucketing = .current,
            rateLimiter: RateLimiter? = RateLimiter(perSecond: 50, burst: 100), console: ConsoleOptions = ConsoleOptions(),
            revisionCheck: ReplicaSynchronizer.Schedule = .every(.seconds(30)), reconnectDelay: Duration = .seconds(1),
            heartbeat: ReplicaSynchronizer.Heartbeat? = ReplicaSynchronizer.Heartbeat(), eventStreamKeepAlive: Duration = .seconds(15),
            delivery: DeliveryOptions = DeliveryOptions(), eventIngestion: EventIngestionOptions = EventIngestionOptions(),
            eventRetention: EventRetention? = EventRetention(), webhooks: WebhookOptions? = WebhookOptions(),
            scheduleGrace: TimeInterval = ScheduledChangeExecutor.defaultGrace, rolloutTickInterval: Duration? = .seconds(10)
        ) {
            self.limits = limits
            self.ttlSeconds = ttlSeconds
            self.fractionalBucketing = fractionalBucketing
            self.rateLimiter = rateLimiter
            self.console = console
            self.revisionCheck = revisionCheck
            self.reconnectDelay = reconnectDelay
            self.heartbeat = heartbeat
            self.eventStreamKeepAlive = eventStreamKeepAlive
            self.delivery = delivery
            self.eventIngestion = eventIngestion
            self.eventRetention = eventRetention
            self.webhooks = webhooks
            self.scheduleGrace = scheduleGrace
            self.rolloutTickInterval = rolloutTickInterval
        }
    }
}
