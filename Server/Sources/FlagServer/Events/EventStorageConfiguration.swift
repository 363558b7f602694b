import Foundation
public import Logging

/// Where `flag-server serve` keeps the events apps send, and for how long: from command-line
/// options, falling back to environment variables, falling back to defaults.
///
/// | option | variable | default |
/// |---|---|---|
/// | `--no-events` / `--events` | `FLAG_SERVER_EVENTS` (`true` / `false`) | on: the server takes events |
/// | `--events-database` | `FLAG_SERVER_EVENTS_DATABASE` | SQLite: `flags-events.sqlite` beside the flag database; PostgreSQL: the same database (the option is refused) |
/// | `--events-retention-days` | `FLAG_SERVER_EVENTS_RETENTION_DAYS` | `30`: raw events kept |
/// | `--events-hourly-retention-days` | `FLAG_SERVER_EVENTS_HOURLY_RETENTION_DAYS` | `14`: hourly rollups kept (daily rollups are kept) |
/// | `--events-ingest-share` | `FLAG_SERVER_EVENTS_INGEST_SHARE` | `150`: percent of a core's processor time the ingest's work (decoding, the SQLite event store's threads) may use over a second before requests are shed (``EventIngestionOptions/maximumIngestShare``); 0 sheds only on the queue's size |
/// | `--events-thread-niceness` | `FLAG_SERVER_EVENTS_THREAD_NICENESS` | `10`: nice value of the ingest's threads (``EventIngestionOptions/ingestThreadNiceness``) |
/// | `--events-body-timeout` | `FLAG_SERVER_EVENTS_BODY_TIMEOUT` | `30`: seconds a request's body may take to arrive whole, else 408 (``EventIngestionOptions/bodyReadTimeout``) |
/// | `--events-token-budget-mib` | `FLAG_SERVER_EVENTS_TOKEN_BUDGET_MIB` | `8`: MiB of the 32 MiB ingestion byte budget one token's requests may hold, else 429 (``EventIngestionOptions/maximumQueuedBytesPerToken``) |
public struct EventStorageConfiguration: Sendable, Hashable {
    /// Where the event store lives.
    public enum Location: Sendable, Hashable {
        /// The server takes no events (`--no-events`): no ingestion endpoint is served or advertised.
        case off
        /// A SQLite file of its own, so that event writes never wait on the flag database's lock.
        case sqlite(path: String)
        /// The flag server's PostgreSQL database.
        case postgres(PostgresConfiguration)
    }

    /// Where the events are kept, or whether the server takes none.
    public var location: Location
    /// How long raw events and hourly rollups are kept, and how often the sweep runs.
    public var retention: EventRetention
    /// How requests are admitted and where their work runs (the other members keep their defaults).
    public var ingestion = EventIngestionOptions()

    /// Resolves the options (`nil` when not given) against `environment`, for a server configured
    /// as `server`.
    ///
    /// - Throws: ``ConfigurationError`` naming the option or variable and the bad value.
    public init(
        events: Bool? = nil, eventsDatabase: String? = nil, retentionDays: Int? = nil, hourlyRetentionDays: Int? = nil,
        ingestSharePercent: Int? = nil, threadNiceness: Int? = nil, bodyTimeoutSeconds: Int? = nil, tokenBudgetMiB: Int? = nil,
        server: ServerConfiguration, environment: [String: String]
    ) throws(ConfigurationError) {
        let source = ConfigurationSource(environment: environment)
        let share = try source.integer(
            ingestSharePercent, "FLAG_SERVER_EVENTS_INGEST_SHARE", optionName: "events-ingest-share", default: 150, range: 0...1000)
        ingestion.maximumIngestShare = share == 0 ? .infinity : Double(share) / 100
        ingestion.ingestThreadNiceness = Int32(try source.integer(
            threadNiceness, "FLAG_SERVER_EVENTS_THREAD_NICENESS", optionName: "events-thread-niceness", default: 10, range: 0...19))
        ingestion.bodyReadTimeout = .seconds(try source.integer(
            bodyTimeoutSeconds, "FLAG_SERVER_EVENTS_BODY_TIMEOUT", optionName: "events-body-timeout", default: 30, range: 1...600))
        // At least one largest batch (1 MiB), and less than the whole budget (32 MiB).
        ingestion.maximumQueuedBytesPerToken = 1024 * 1024 * (try source.integer(
            tokenBudgetMiB, "FLAG_SERVER_EVENTS_TOKEN_BUDGET_MIB", optionName: "events-token-budget-mib", default: 8, range: 1...31))
        func days(_ option: Int?, _ variable: String, flag: String, default value: Int) throws(ConfigurationError) -> Int {
            try source.integer(option, variable, optionName: String(flag.dropFirst(2)), default: value, range: 1...3650)
        }
        let enabled: Bool
        if let events {
            enabled = events
        } else if let text = environment["FLAG_SERVER_EVENTS"] {
            switch text.lowercased() {
            case "1", "true", "yes": enabled = true
            case "0", "false", "no": enabled = false
            default: throw ConfigurationError("FLAG_SERVER_EVENTS=\(text) is not true or false")
            }
        } else {
            enabled = true
        }
        retention = EventRetention(
            rawDays: try days(retentionDays, "FLAG_SERVER_EVENTS_RETENTION_DAYS", flag: "--events-retention-days", default: 30),
            hourlyDays: try days(
                hourlyRetentionDays, "FLAG_SERVER_EVENTS_HOURLY_RETENTION_DAYS", flag: "--events-hourly-retention-days", default: 14))
        let path = eventsDatabase ?? environment["FLAG_SERVER_EVENTS_DATABASE"]
        if !enabled {
            location = .off
        } else if let postgres = server.postgres {
            if let path, !path.isEmpty {
                throw ConfigurationError(
                    "\(eventsDatabase == nil ? "FLAG_SERVER_EVENTS_DATABASE" : "--events-database") names a SQLite file; with PostgreSQL (\(ServerConfiguration.redactingCredentials(server.databaseURL ?? ""))) events are kept in the same database")
            }
            location = .postgres(postgres)
        } else if let path, !path.isEmpty {
            location = .sqlite(path: path)
        } else {
            location = .sqlite(path: Self.defaultSQLitePath(beside: server.databasePath))
        }
    }

    /// `flags-events.sqlite` beside `flags.sqlite`: the flag database's name with `-events` before
    /// its extension.
    static func defaultSQLitePath(beside databasePath: String) -> String {
        let url = URL(fileURLWithPath: databasePath)
        let name = url.deletingPathExtension().lastPathComponent + "-events." + (url.pathExtension.isEmpty ? "sqlite" : url.pathExtension)
        let directory = (databasePath as NSString).deletingLastPathComponent
        return directory.isEmpty ? name : directory + "/" + name
    }

    /// Opens the event store ``location`` names; `nil` for ``Location/off``. The caller migrates
    /// it (`FlagServer.start` does). A SQLite store runs its calls at ``ingestion``'s
    /// ``EventIngestionOptions/ingestThreadNiceness``.
    public func makeStore(logger: Logger) async throws -> (any FlagEventStore)? {
        switch location {
        case .off:
            return nil
        case .sqlite(let path):
            return try await SQLiteFlagEventStore(path: path, threadNiceness: ingestion.ingestThreadNiceness, logger: logger)
        case .postgres(let configuration):
            return PostgresFlagEventStore(configuration: configuration, logger: logger)
        }
    }
}
