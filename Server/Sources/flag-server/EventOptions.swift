import ArgumentParser
import FlagServer

/// `serve`'s options for the events apps send: where they are kept and for how long (see
/// ``EventStorageConfiguration``).
struct EventOptions: ParsableArguments {
    @Flag(
        inversion: .prefixedNo,
        help: "Take the events apps send at POST /ofrep/v1/ingestion (FLAG_SERVER_EVENTS, default true).")
    var events: Bool?
    @Option(help: "SQLite file of the events (FLAG_SERVER_EVENTS_DATABASE, default flags-events.sqlite beside the flag database; with PostgreSQL, the same database).")
    var eventsDatabase: String?
    @Option(help: "Days raw events are kept (FLAG_SERVER_EVENTS_RETENTION_DAYS, default 30).")
    var eventsRetentionDays: Int?
    @Option(help: "Days hourly rollups are kept; daily rollups stay (FLAG_SERVER_EVENTS_HOURLY_RETENTION_DAYS, default 14).")
    var eventsHourlyRetentionDays: Int?
    @Option(help: "Percent of a core's processor time the work of ingesting (decoding, the SQLite event store's threads) may use over a second before requests are shed with 503 and Retry-After; 0 sheds only when the queue is full (FLAG_SERVER_EVENTS_INGEST_SHARE, default 150).")
    var eventsIngestShare: Int?
    @Option(help: "Nice value (0-19) of the threads that decode and store events, so that delivery's threads get the cores first (FLAG_SERVER_EVENTS_THREAD_NICENESS, default 10).")
    var eventsThreadNiceness: Int?
    @Option(help: "Seconds a request's body may take to arrive whole; later, it is answered 408 and its bytes given back (FLAG_SERVER_EVENTS_BODY_TIMEOUT, default 30).")
    var eventsBodyTimeout: Int?
    @Option(help: "MiB of the 32 MiB ingestion byte budget the requests of one token may hold at once, so that one token cannot starve the others; past it, 429 with Retry-After (FLAG_SERVER_EVENTS_TOKEN_BUDGET_MIB, 1-31, default 8).")
    var eventsTokenBudgetMib: Int?

    func configuration(server: ServerConfiguration, environment: [String: String]) throws(ConfigurationError) -> EventStorageConfiguration {
        try EventStorageConfiguration(
            events: events, eventsDatabase: eventsDatabase, retentionDays: eventsRetentionDays,
            hourlyRetentionDays: eventsHourlyRetentionDays, ingestSharePercent: eventsIngestShare,
            threadNiceness: eventsThreadNiceness, bodyTimeoutSeconds: eventsBodyTimeout, tokenBudgetMiB: eventsTokenBudgetMib,
            server: server, environment: environment)
    }
}
