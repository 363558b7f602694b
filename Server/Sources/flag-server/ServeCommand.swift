import ArgumentParser
import FlagServer
import Foundation
import Hummingbird
import Logging
import Prometheus

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Start the server (SQLite in the data directory, or PostgreSQL; created with three environments on first start)."
    )

    @Option(help: "Address to listen on (FLAG_SERVER_HOST, default 127.0.0.1).") var host: String?
    @Option(help: "Port to listen on, 0 for any free port (FLAG_SERVER_PORT, default 8080).") var port: Int?
    @Option(help: "Directory of the SQLite database (FLAG_SERVER_DATA_DIRECTORY, default ./flag-server-data).")
    var dataDirectory: String?
    @Option(help: "PostgreSQL URL, postgres://user:password@host:5432/database (FLAG_SERVER_DATABASE_URL); replaces SQLite.")
    var databaseURL: String?
    @Option(help: "Seconds between a replica's revision checks (FLAG_SERVER_REVISION_CHECK_SECONDS, default 30).")
    var revisionCheckSeconds: Int?
    @Option(help: "Seconds between the rollout executor's looks at running plans (FLAG_SERVER_ROLLOUT_TICK_SECONDS, default 10).")
    var rolloutTickSeconds: Int?
    @Option(help: "Requests per second per client of a delivery token, and per admin token; 0 for no limit (FLAG_SERVER_RATE_LIMIT_PER_SECOND, default 50).")
    var rateLimitPerSecond: Int?
    @Option(help: "Comma-separated proxy addresses and ranges (10.0.0.0/8) whose Forwarded / X-Forwarded-For name the client (FLAG_SERVER_TRUSTED_PROXIES, default none).")
    var trustedProxies: String?
    @Option(help: "Refetches per second to aim at after a change: events ask clients to spread theirs over open streams / this, at most 60 s; 0 for no spread (FLAG_SERVER_REFETCHES_PER_SECOND, default 5000).")
    var refetchesPerSecond: Int?
    @Option(help: "trace, debug, info, notice, warning, error or critical (FLAG_SERVER_LOG_LEVEL, default info).")
    var logLevel: String?
    @Option(help: "ttlSeconds advertised by app_config (FLAG_SERVER_TTL_SECONDS, default 60).") var ttlSeconds: Int?
    @Option(help: "Seconds between keep-alive comments on an idle event stream (FLAG_SERVER_EVENT_STREAM_KEEP_ALIVE_SECONDS, default 15).")
    var eventStreamKeepAliveSeconds: Int?
    @Option(help: "How fractional rollouts assign buckets: current, legacy (flagd before 0.11: keeps users in the buckets they had) or v3 (FLAG_SERVER_FRACTIONAL_BUCKETING, default current).")
    var fractionalBucketing: String?
    @Flag(
        inversion: .prefixedNo,
        help: "Always mark console cookies Secure, for TLS ended by a proxy (FLAG_SERVER_SECURE_COOKIES, default false).")
    var secureCookies: Bool?
    @Option(help: "Seconds a write may take before it fails 503, never committed later (FLAG_SERVER_WRITE_TIMEOUT_SECONDS, default 10).")
    var writeTimeoutSeconds: Int?
    @Option(help: "Seconds before an idle connection, or one sending its headers slower, is closed (FLAG_SERVER_IDLE_TIMEOUT_SECONDS, default 30).")
    var idleTimeoutSeconds: Int?
    @Option(help: "Longest pause in seconds inside a request body (FLAG_SERVER_BODY_TIMEOUT_SECONDS, default 10).")
    var bodyTimeoutSeconds: Int?
    @Option(help: "Largest request head in bytes, larger is answered 431 (FLAG_SERVER_MAXIMUM_HEADER_BYTES, default 32768).")
    var maximumHeaderBytes: Int?
    @Option(help: "Connections open at once, more are answered 503; lowered to fit the descriptor limit (FLAG_SERVER_MAXIMUM_CONNECTIONS, default 100000).")
    var maximumConnections: Int?
    @Option(help: "Connections the kernel queues before the server accepts them, capped by net.core.somaxconn (FLAG_SERVER_LISTEN_BACKLOG, default 4096).")
    var listenBacklog: Int?
    @Option(help: "Open-file soft limit to set at start, at most the hard limit; 0 raises it to the hard limit (FLAG_SERVER_DESCRIPTOR_LIMIT, default 0).")
    var descriptorLimit: Int?
    @Option(help: "Event streams open at once, more are refused 503 (FLAG_SERVER_MAXIMUM_EVENT_STREAMS, default 100000).")
    var maximumEventStreams: Int?
    @Option(help: "Event streams open at once per client of a token, more are refused 429 (FLAG_SERVER_MAXIMUM_EVENT_STREAMS_PER_TOKEN, default 64).")
    var maximumEventStreamsPerToken: Int?
    @Option(help: "Seconds after its time a scheduled change still runs when no server ran then; later it is marked missed (FLAG_SERVER_SCHEDULE_GRACE_SECONDS, default 3600).")
    var scheduleGraceSeconds: Int?
    @OptionGroup(title: "Console single sign-on (OpenID Connect)") var singleSignOn: SingleSignOnOptions
    @OptionGroup(title: "Events from apps (exposures, evaluation summaries, tracked events)") var eventOptions: EventOptions
    @OptionGroup(title: "Webhooks") var webhookOptions: WebhookCommandOptions

    func run() async throws {
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration(
                host: host, port: port, dataDirectory: dataDirectory, databaseURL: databaseURL, logLevel: logLevel,
                ttlSeconds: ttlSeconds, revisionCheckSeconds: revisionCheckSeconds, rolloutTickSeconds: rolloutTickSeconds,
                rateLimitPerSecond: rateLimitPerSecond, secureCookies: secureCookies,
                eventStreamKeepAliveSeconds: eventStreamKeepAliveSeconds, fractionalBucketing: fractionalBucketing,
                writeTimeoutSeconds: writeTimeoutSeconds, idleTimeoutSeconds: idleTimeoutSeconds,
                bodyTimeoutSeconds: bodyTimeoutSeconds, maximumHeaderBytes: maximumHeaderBytes,
                maximumConnections: maximumConnections, maximumEventStreams: maximumEventStreams,
                maximumEventStreamsPerToken: maximumEventStreamsPerToken, trustedProxies: trustedProxies,
                refetchesPerSecond: refetchesPerSecond, listenBacklog: listenBacklog, descriptorLimit: descriptorLimit,
                environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ArgumentParser.ValidationError(error.description)
        }
        let eventStorage: EventStorageConfiguration
        do {
            eventStorage = try eventOptions.configuration(server: configuration, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ArgumentParser.ValidationError(error.description)
        }
        var consoleOptions = ConsoleOptions(secureCookies: configuration.secureCookies)
        do {
            consoleOptions.singleSignOn = try singleSignOn.configuration(environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ArgumentParser.ValidationError(error.description)
        }
        let registry = Observability.bootstrap(level: configuration.logLevel)
        let logger = Logger(label: "flag-server")
        // Every connection is a descriptor: raise the soft limit (to the hard limit by default).
        let before = DescriptorLimit.current()
        if let after = DescriptorLimit.raise(to: configuration.descriptorLimit) {
            logger.info(
                "open-file limit \(after.soft) (hard limit \(after.hard)\(before.map { $0.soft == after.soft ? "" : ", raised from \($0.soft)" } ?? ""))")
        }

        let store: any FlagStore
        let location: String
        if let postgres = configuration.postgres {
            store = PostgresFlagStore(configuration: postgres, logger: logger)
            location = postgres.description
        } else {
            try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
            store = try await SQLiteFlagStore(path: configuration.databasePath, logger: logger)
            location = configuration.databasePath
        }
        let eventStore = try await eventStorage.makeStore(logger: logger)
        let settings = FlagServer.Configuration(
            limits: configuration.limits, ttlSeconds: configuration.ttlSeconds, fractionalBucketing: configuration.fractionalBucketing,
            rateLimiter: configuration.rateLimitPerSecond == 0
                ? nil : RateLimiter(perSecond: Double(configuration.rateLimitPerSecond), burst: 2 * configuration.rateLimitPerSecond),
            console: consoleOptions, revisionCheck: .every(.seconds(configuration.revisionCheckSeconds)),
            eventStreamKeepAlive: .seconds(configuration.eventStreamKeepAliveSeconds), delivery: configuration.delivery,
            eventIngestion: eventStorage.ingestion, eventRetention: eventStorage.retention, webhooks: webhookOptions.options(),
            scheduleGrace: try scheduleGrace(), rolloutTickInterval: .seconds(configuration.rolloutTickSeconds))
        let (server, _) = try await FlagServer.start(
            store: store, eventStore: eventStore, configuration: settings, metrics: registry, logger: logger,
            showBootstrap: { bootstrap in
                // Shown once, before the server listens: the first start counts as finished only once
                // this returns, so a start killed before that shows a new first token next time.
                // Written unbuffered so that it reaches a redirected stdout at once. With `--port 0`
                // the port is chosen later, and the "listening on" line below names it.
                let port = configuration.port == 0 ? "<port>" : String(configuration.port)
                FileHandle.standardOutput.write(Data(
                    bootstrap.announcement(location: location, consoleURL: "http://\(configuration.host):\(port)/console").utf8))
            })
        let app = server.application(host: configuration.host, port: configuration.port) { port in
            logger.info("listening on http://\(configuration.host):\(port)")
        }
        try await app.runService()
        await eventStore?.close()
        await store.close()
    }
}

extension ServeCommand {
    /// `--schedule-grace-seconds`, else `FLAG_SERVER_SCHEDULE_GRACE_SECONDS`, else an hour.
    func scheduleGrace() throws -> TimeInterval {
        let text = ProcessInfo.processInfo.environment["FLAG_SERVER_SCHEDULE_GRACE_SECONDS"]
        guard let seconds = scheduleGraceSeconds ?? (text.map { Int($0) ?? -1 }) else { return ScheduledChangeExecutor.defaultGrace }
        guard seconds >= 0 else {
            throw ValidationError(
                "--schedule-grace-seconds (or FLAG_SERVER_SCHEDULE_GRACE_SECONDS): expected whole seconds, 0 or more, got \(scheduleGraceSeconds.map(String.init) ?? text ?? "")")
        }
        return TimeInterval(seconds)
    }
}
