import FlagEvaluation
import FlagServerModel
public import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
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

    /// The one write path: validation, revision, audit.
    public let admin: FlagAdmin
    /// The compiled state the delivery endpoints serve.
    public let publisher: StatePublisher
    /// The event streams, told of every committed revision.
    public let events: EventHub
    /// The server's Prometheus metrics, served at `/metrics`.
    public let metrics: PrometheusCollectorRegistry
    /// The bounds on what the server accepts: request and header sizes, event streams, connections
    /// and timeouts.
    public let limits: ServerLimits
    /// Whether the server can serve current values (`GET /health/ready`).
    public let readiness: Readiness
    /// Follows other replicas' commits when the store is shared (``ReplicatedFlagStore``).
    public let synchronizer: ReplicaSynchronizer?
    let rateLimiter: RateLimiter?
    /// The web console's users and sessions; `nil` when the store keeps no console accounts.
    public let consoleAccounts: ConsoleAccounts?
    /// Where the events apps send are kept (ingestion, insights, removal evidence); `nil` when the
    /// server takes no events.
    public let eventStore: (any FlagEventStore)?
    /// The ingestion endpoint's queue, metrics and decoding slots; `nil` without an event store.
    let ingestion: (queue: EventIngestionQueue, metrics: EventMetrics, decodes: DecodeSlots)?
    /// How long the event store keeps events (swept by a service of ``application(host:port:onServerRunning:)``);
    /// `nil`: never swept.
    public let eventRetention: EventRetention?
    /// The removal evidence computed from ``eventStore``, kept a minute (the admin API and the grid).
    let evidence: FlagEvidenceCache
    /// Running experiments' results, counted every
    /// ``ExperimentResultsRefreshService/defaultInterval`` by a service of
    /// ``application(host:port:onServerRunning:)``; `nil` when the event store computes none.
    let experimentResults: ExperimentResultsCache?
    /// Progressive rollouts (`Server/Docs/Rollouts.md`); `nil` when the store keeps no plans.
    public let rollouts: Rollouts?
    /// How often this server's ``RolloutExecutor`` looks at the running plans; `nil`: this server
    /// runs none (another process, or a test, acts on the plans).
    let rolloutTickInterval: Duration?
    let console: (renderer: ConsoleRenderer, options: ConsoleOptions)?
    let logger: Logger
    let now: @Sendable () -> Date
    /// Single-use event-stream tickets for browsers (`POST /ofrep/v1/events/tickets`).
    public let streamTickets = StreamTickets()
    /// How often an idle event stream sends a keep-alive comment.
    public let eventStreamKeepAlive: Duration
    /// Runs scheduled changes (a service of ``application(host:port:onServerRunning:)``); `nil`
    /// when the store keeps none.
    public let scheduler: ScheduledChangeExecutor?
    /// Trusted proxies and the refetch spread.
    public let delivery: DeliveryOptions
    /// Each revision's event-stream event, built once.
    let revisionEvents: RevisionEvents
    /// The longest a replica waits for the database before answering a refetch that names a
    /// revision it does not serve yet (see ``ReplicaCatchUp``): ``ServerLimits/catchUpLimit``.
    public var catchUpLimit: Duration { limits.catchUpLimit }
    /// Sends notifications to webhook endpoints (`Server/Docs/Webhooks.md`); `nil` when the store
    /// keeps none or dispatch is off (`serve --no-webhooks`).
    public let webhooks: WebhookDispatcher?
    /// The rules endpoints are checked against (`/admin/v1/webhooks`).
    let webhookOptions: WebhookOptions

    /// The name of the first admin token.
    static let firstAdminTokenName = "first-admin"
    /// How long a replica leaves an unfinished first start to another replica that may still be
    /// showing its token, before it issues a new one.
    static let bootstrapGrace: TimeInterval = 60

    /// What this start created, shown once: the first admin token (first start) and the first
    /// console admin's password (the first start with a console).
    public struct Bootstrap: Sendable, CustomStringConvertible {
        /// The first admin token's text, shown once; `nil` when this start issued none (it issues one at the
        /// first start, and again when an earlier first start stopped before showing its token).
        public var adminToken: String?
        /// The first console admin's name and password, shown once; `nil` when this start created none.
        public var consoleAdmin: (name: String, password: String)?

        /// The bootstrap with the token and password printed as `<REDACTED>`.
        public var description: String {
            "Bootstrap(adminToken: \(adminToken == nil ? "nil" : "<REDACTED>"), consoleAdmin: \(consoleAdmin.map { "\($0.name) <REDACTED>" } ?? "nil"))"
        }

        /// What `flag-server serve` prints once about what this start created: the first admin
        /// token, and the first console user with the console's full address (`consoleURL`,
        /// such as `http://127.0.0.1:8080/console`). `location` names the database.
        public func announcement(location: String, consoleURL: String) -> String {
            var text = ""
            if let adminToken {
                text += """
                    Created environments \(FlagServer.defaultEnvironments.joined(separator: ", ")) in \(location).
                    First admin token (shown only this once; only its hash is stored):

                        \(adminToken)


                    """
            }
            if let consoleAdmin {
                text += """
                    Created the console user "\(consoleAdmin.name)" (role admin). Sign in at \(consoleURL)
                    Its password (shown only this once; only its bcrypt hash is stored):

                        \(consoleAdmin.password)


                    """
            }
            return text
        }
    }

    /// This server's version (`flag-server --version`).
    public static let version = "0.1.0"

    init(
        admin: FlagAdmin, publisher: StatePublisher, events: EventHub, metrics: PrometheusCollectorRegistry,
        limits: ServerLimits, readiness: Readiness, synchronizer: ReplicaSynchronizer?, rateLimiter: RateLimiter?,
        consoleAccounts: ConsoleAccounts? = nil, console: (renderer: ConsoleRenderer, options: ConsoleOptions)? = nil,
        logger: Logger, now: @escaping @Sendable () -> Date, eventStreamKeepAlive: Duration = .seconds(15),
        delivery: DeliveryOptions = DeliveryOptions(), eventStore: (any FlagEventStore)? = nil,
        eventIngestion: EventIngestionOptions = EventIngestionOptions(), eventRetention: EventRetention? = nil,
        webhooks: WebhookDispatcher? = nil, webhookOptions: WebhookOptions = WebhookOptions(),
        scheduler: ScheduledChangeExecutor? = nil, rolloutTickInterval: Duration? = .seconds(10)
    ) {
        self.admin = admin
        self.rolloutTickInterval = rolloutTickInterval
        self.webhooks = webhooks
        self.webhookOptions = webhookOptions
        self.scheduler = scheduler
        self.eventStore = eventStore
        self.eventRetention = eventStore == nil ? nil : eventRetention
        ingestion = eventStore.map { store in
            let metrics = EventMetrics(registry: metrics, maximumSeries: eventIngestion.maximumEvaluationSeries) { environment, flag in
                publisher.current.environments[environment]?.types[flag] != nil
            }
            let queue = EventIngestionQueue(store: store, options: eventIngestion) { batches, result, elapsed in
                metrics.committed(batches, result, elapsed)
                if case .failure(let error) = result {
                    logger.warning(
                        "storing \(batches.count) event batches failed; their requests were answered 503: \(error)",
                        metadata: ["events": "\(batches.reduce(0) { $0 + $1.eventCount })"])
                }
            }
            return (queue, metrics, DecodeSlots(count: eventIngestion.concurrentDecodes, niceness: eventIngestion.ingestThreadNiceness))
        }
        evidence = FlagEvidenceCache(store: eventStore, now: now)
        experimentResults = eventStore?.capabilities.experimentResults.map { ExperimentResultsCache(store: $0, now: now) }
        rollouts = admin.store.capabilities.rollouts.map {
            Rollouts(admin: admin, store: $0, events: eventStore?.capabilities.rolloutEvents,
                results: eventStore?.capabilities.experimentResults, now: now)
        }
        self.publisher = publisher
        self.events = events
        self.metrics = metrics
        self.limits = limits
        self.readiness = readiness
        self.synchronizer = synchronizer
        self.rateLimiter = rateLimiter
        self.consoleAccounts = consoleAccounts
        self.console = console
        self.logger = logger
        self.now = now
        self.eventStreamKeepAlive = eventStreamKeepAlive
        self.delivery = delivery
        revisionEvents = RevisionEvents(
            spread: .init(refetchesPerSecond: delivery.refetchesPerSecond), openStreams: { events.subscriberCount })
    }

    /// Migrates `store`, creates the default environments and a first admin token if the store
    /// has no environments yet, creates the first console admin if the console has no user yet,
    /// and loads the state. Over a ``ReplicatedFlagStore`` (PostgreSQL), the server also follows the
    /// commits of other replicas (see ``ReplicaSynchronizer``).
    ///
    /// - Parameters:
    ///   - store: Where flags, environments, tokens and the rest are kept; migrated here.
    ///   - eventStore: Where the events apps send are kept; migrated here. `nil`: the server takes
    ///     no events (no ingestion endpoint, none advertised).
    ///   - configuration: Every setting (limits, bucketing, replicas, events, webhooks, schedules,
    ///     rollouts); by default `flag-server serve`'s.
    ///   - metrics: The Prometheus registry the server reports to.
    ///   - consoleAccounts: The console's users and sessions; by default kept in `store` when it
    ///     is a ``ConsoleAccountStore`` (else the console is off).
    ///   - logger: Where the server logs.
    ///   - now: The clock (tests move it).
    ///   - showBootstrap: Shows what this start created (the first admin token, the first console
    ///     password) to the operator. The first start is recorded as finished only after it
    ///     returns: a start stopped before that (killed) leaves the bootstrap unfinished, and the
    ///     next start revokes the unseen token and issues a new one.
    /// - Returns: The server, and what this start created (shown once).
    public static func start(
        store: any FlagStore, eventStore: (any FlagEventStore)? = nil, configuration: Configuration = Configuration(),
        metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), consoleAccounts: ConsoleAccounts? = nil,
        logger: Logger = Logger(label: "flag-server"), now: @escaping @Sendable () -> Date = Date.init,
        showBootstrap: @Sendable (Bootstrap) async throws -> Void = { _ in }
    ) async throws -> (server: FlagServer, bootstrap: Bootstrap?) {
        let limits = configuration.limits
        let rateLimiter = configuration.rateLimiter
        let consoleOptions = configuration.console
        let eventStreamKeepAlive = configuration.eventStreamKeepAlive
        let delivery = configuration.delivery
        let eventIngestion = configuration.eventIngestion
        let eventRetention = configuration.eventRetention
        let webhooks = configuration.webhooks
        let rolloutTickInterval = configuration.rolloutTickInterval
        try await store.migrate()
        try await eventStore?.migrate()
        let publisher = StatePublisher(
            ttlSeconds: configuration.ttlSeconds, bucketing: configuration.fractionalBucketing,
            eventIngestion: eventStore == nil ? nil : EventIngestionRoutes.advertisement(eventIngestion))
        let events = EventHub(maximumStreams: limits.maximumEventStreams, maximumStreamsPerOwner: limits.maximumEventStreamsPerToken)
        let dispatcher = webhooks.flatMap { options in
            store.capabilities.webhooks.map { WebhookDispatcher(store: $0, options: options, now: now, logger: logger) }
        }
        let admin = FlagAdmin(
            store: store, publisher: publisher, events: events, metrics: metrics, logger: logger, now: now,
            writeTimeout: limits.writeTimeout, notifications: dispatcher ?? DiscardingNotificationSink())
        try await admin.reload()
        var bootstrap: Bootstrap?
        if await admin.state.environments.isEmpty {
            do {
                // Replicas starting together on an empty database: the write of one wins, the
                // others retry on its state, find the environments there and create no token.
                // No client waits for this write: a slow database at start is waited for longer.
                let created = try await admin.write(
                    actor: "flag-server (first start)", reason: "first start", timeout: .seconds(300)
                ) { state in
                    defaultEnvironments.filter { state.environments[$0] == nil }.map(StateChange.createEnvironment)
                }
                if !created.isEmpty {
                    let (token, _) = try await admin.createToken(
                        name: firstAdminTokenName, environment: TokenIssuer.allEnvironments, role: .admin)
                    bootstrap = Bootstrap(adminToken: token)
                }
            } catch {
                throw APIError(error)
            }
        } else if try await !store.isBootstrapFinished() {
            // An earlier first start committed the environments and stopped (killed) before it
            // showed the first admin token: nobody has that token. Revoke it and issue a new one.
            // A replica whose first start is still running (its token younger than
            // `bootstrapGrace`) is left to show its own.
            let unseen = try await store.tokens().filter {
                $0.name == firstAdminTokenName && $0.role == .admin && $0.environment == TokenIssuer.allEnvironments
                    && $0.revokedAt == nil
            }
            let starting = store is any ReplicatedFlagStore
                && unseen.contains { now().timeIntervalSince($0.createdAt) < bootstrapGrace }
            if !starting {
                do {
                    for token in unseen { try await admin.revokeToken(id: token.id) }
                    let (token, _) = try await admin.createToken(
                        name: firstAdminTokenName, environment: TokenIssuer.allEnvironments, role: .admin)
                    bootstrap = Bootstrap(adminToken: token)
                    logger.notice(
                        "the first start did not finish: revoked its unseen admin token and issued a new one",
                        metadata: ["revoked": "\(unseen.map(\.id))"])
                } catch {
                    throw APIError(error)
                }
            }
        }
        let accounts = consoleAccounts ?? store.capabilities.consoleAccounts.map {
            ConsoleAccounts(
                store: $0, now: now, passwordCheckThreads: consoleOptions.passwordCheckThreads,
                passwordCheckQueue: consoleOptions.passwordCheckQueue)
        }
        var console: (renderer: ConsoleRenderer, options: ConsoleOptions)?
        if let accounts {
            console = (try await ConsoleRenderer.load(), consoleOptions)
            do {
                // With password sign-in turned off, a password would open nothing: admins come
                // from the provider's role claim instead.
                let passwords = consoleOptions.singleSignOn?.allowsPasswords ?? true
                if passwords, let first = try await accounts.createFirstAdminIfNeeded() {
                    bootstrap = Bootstrap(adminToken: bootstrap?.adminToken, consoleAdmin: first)
                }
            } catch {
                throw APIError(error)
            }
        }
        if let bootstrap {
            // Finished only once the secrets were handed over: a start killed before this point
            // issues a new first token next time.
            try await showBootstrap(bootstrap)
            if bootstrap.adminToken != nil {
                do { try await store.finishBootstrap(at: now()) } catch { throw APIError(AdminError(store: error)) }
            }
        }
        let readiness = Readiness(stateLoaded: true)
        let synchronizer = store.capabilities.replicated.map {
            ReplicaSynchronizer(
                admin: admin, store: $0, schedule: configuration.revisionCheck, reconnectDelay: configuration.reconnectDelay,
                heartbeat: configuration.heartbeat,
                readiness: readiness,
                metrics: metrics, logger: logger)
        }
        let server = FlagServer(
            admin: admin, publisher: publisher, events: events, metrics: metrics, limits: limits, readiness: readiness,
            synchronizer: synchronizer, rateLimiter: rateLimiter, consoleAccounts: accounts, console: console,
            logger: logger, now: now, eventStreamKeepAlive: eventStreamKeepAlive, delivery: delivery,
            eventStore: eventStore, eventIngestion: eventIngestion, eventRetention: eventRetention,
            webhooks: dispatcher, webhookOptions: webhooks ?? WebhookOptions(),
            scheduler: store.capabilities.schedules.map {
                ScheduledChangeExecutor(admin: admin, store: $0, grace: configuration.scheduleGrace, now: now, logger: logger)
            }, rolloutTickInterval: rolloutTickInterval)
        return (server, bootstrap)
    }

    /// The routes of every endpoint.
    public func router() -> Router<BasicRequestContext> {
        // A replica checks the database before answering a refetch that names a newer revision.
        let readiness = self.readiness
        let catchUp = synchronizer.map { synchronizer in
            ReplicaCatchUp(limit: catchUpLimit) {
                await synchronizer.checkNow()
                return readiness.isDatabaseReachable
            }
        }
        // What a relay of one environment follows (see ``FlagRelay``).
        let (admin, publisher) = (self.admin, self.publisher)
        let (router, authenticator) = DeliveryRouting(
            publisher: publisher, rateLimiter: rateLimiter, delivery: delivery, limits: limits, now: now, events: events,
            tickets: streamTickets, revisionEvents: revisionEvents, metrics: metrics, readiness: readiness
        ).router(allowing: [.get, .post, .put, .patch, .delete, .options], catchUp: catchUp) { key in
            let state = await admin.state
            let serving = publisher.current
            let compiled = serving.environments[key]
            guard let revision = state.environments[key]?.revision else { return nil }
            let tokens = RelayFeed.deliveryTokens(of: key, in: serving.tokens.values)
            return (
                RelayFeed.etag(environment: key, revision: revision, tokens: tokens),
                {
                    let feed = RelayFeed(
                        state: state, environment: key, lastModified: compiled?.revision == revision ? compiled?.lastModified : nil,
                        bucketing: publisher.bucketing, tokens: tokens)
                    return (try? JSONEncoder().encode(feed)) ?? Data()
                }
            )
        }
        // Before the routes that change things: a route takes the middleware added before it.
        if let webhooks { router.add(middleware: NotificationOutboxMiddleware(dispatcher: webhooks)) }
        if let ingestion {
            EventIngestionRoutes(
                authenticator: authenticator, queue: ingestion.queue, metrics: ingestion.metrics, decodes: ingestion.decodes, now: now,
                connectionBodyTimeout: limits.bodyTimeout
            ).register(on: router)
        }
        AdminRoutes(
            admin: admin, authenticator: authenticator, limits: limits, accounts: consoleAccounts, eventStore: eventStore, now: now,
            evidence: evidence, experimentResults: experimentResults,
            webhooks: admin.store.capabilities.webhooks.map { WebhookAdministration(store: $0, options: webhookOptions, now: now) }
        ).register(on: router)
        if let consoleAccounts, let console {
            ConsoleRoutes(
                admin: admin, accounts: consoleAccounts, renderer: console.renderer, options: console.options, limits: limits,
                signInLimiter: SignInLimiter(options: console.options), trustedProxies: delivery.trustedProxies,
                now: now,
                singleSignOn: console.options.singleSignOn.map {
                    OIDCSignIn(configuration: $0, accounts: consoleAccounts, logger: logger, now: now)
                },
                eventStore: eventStore,
                evidence: evidence, experimentResults: experimentResults,
                webhooks: admin.store.capabilities.webhooks.map { WebhookAdministration(store: $0, options: webhookOptions, now: now) }
            ).register(on: router)
        }
        return router
    }

    /// An application serving ``router()`` on `host:port` (port 0 picks a free port, reported
    /// to `onServerRunning`).
    public func application(
        host: String, port: Int, onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Self.guardedApplication(
            router: router(), serverName: "flag-server", host: host, port: port, limits: limits, events: events, logger: logger,
            services: [EventStreamService(events: events, keepAlive: eventStreamKeepAlive)] + (synchronizer.map { [$0] } ?? [])
                + (eventStore.flatMap { store in
                    eventRetention.map { [EventRetentionService(retention: $0, store: store, now: now, logger: logger)] }
                } ?? [])
                + experimentResultsServices + (webhooks.map { [$0] } ?? []) + (scheduler.map { [$0] } ?? [])
                + rolloutServices + externalWriteServices,
            onServerRunning: onServerRunning)
    }

    /// On SQLite, the service that serves what another process committed to the file (a token
    /// from `flag-server add-token`); replicas on PostgreSQL have the synchronizer instead.
    private var externalWriteServices: [any Service] {
        guard let store = admin.store as? SQLiteFlagStore else { return [] }
        return [ExternalWriteWatcher(admin: admin, store: store, logger: logger)]
    }

    /// The service acting on running rollout plans, where the store keeps plans and the server runs one.
    private var rolloutServices: [any Service] {
        guard let rollouts, let rolloutTickInterval else { return [] }
        return [RolloutReplicaService(rollouts: rollouts, store: admin.store, tickInterval: rolloutTickInterval, logger: logger)]
    }

    /// The service counting running experiments' results in the background, where the event
    /// store computes results and the flag store keeps experiments.
    private var experimentResultsServices: [any Service] {
        guard let experimentResults, let store = admin.store.capabilities.experiments else { return [] }
        let experiments = Experiments(admin: admin, store: store, now: now)
        return [
            ExperimentResultsRefreshService(
                cache: experimentResults, interval: ExperimentResultsRefreshService.defaultInterval, logger: logger
            ) { try await experiments.runningResultsQueries() }
        ]
    }

    /// An application serving `router` within the connection limits: it never accepts connections
    /// until the descriptors run out (the runtime traps then), keeping some free below the limit,
    /// and answers connections past the cap 503. The server and the relay serve through it.
    static func guardedApplication(
        router: Router<BasicRequestContext>, serverName: String, host: String, port: Int, limits: ServerLimits,
        events: EventHub, logger: Logger, services: [any Service], onServerRunning: @escaping @Sendable (Int) async -> Void
    ) -> some ApplicationProtocol {
        let descriptors = DescriptorLimit.current()
        let cap = limits.connectionCap(descriptorLimit: descriptors)
        let reserve = descriptors.map { DescriptorLimit.reserved(below: $0.soft) } ?? 256
        let connections = OpenConnections(cap: cap, refusing: min(64, reserve / 4))
        if cap < limits.maximumConnections, let descriptors {
            logger.notice(
                "serving at most \(cap) connections (not \(limits.maximumConnections)): the descriptor limit is \(descriptors.soft), and \(reserve) stay free",
                metadata: ["descriptorLimit": "\(descriptors)"])
        }
        return Application(
            responder: router.buildResponder(),
            server: ConnectionGuard.server(limits: limits, connections: connections, events: events),
            configuration: .init(
                address: .hostname(host, port: port), serverName: serverName, backlog: limits.listenBacklog,
                availableConnectionsDelegate: MaximumAvailableConnections(connections.acceptLimit, logger: logger)),
            services: services,
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
            logger: logger
        )
    }
}

/// Sends every open event stream a keep-alive comment every `keepAlive` (one timer for all
/// streams, not one per stream). Hummingbird shuts its server down before its services, so the
/// streams end at a graceful shutdown through their own handler (``EventStreamRoutes``); this
/// service ends any left when it stops.
struct EventStreamService: Service {
    let events: EventHub
    let keepAlive: Duration

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await Task.sleep(for: keepAlive) } catch { break }
                events.sendKeepAlive()
            }
        }
        events.finishAll()
    }
}
