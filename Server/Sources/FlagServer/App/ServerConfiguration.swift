public import FlagEvaluation
import Foundation
public import Logging

/// How `flag-server serve` runs: from command-line options, falling back to environment
/// variables, falling back to defaults.
///
/// | option | variable | default |
/// |---|---|---|
/// | `--host` | `FLAG_SERVER_HOST` | `127.0.0.1` |
/// | `--port` | `FLAG_SERVER_PORT` | `8080` |
/// | `--data-directory` | `FLAG_SERVER_DATA_DIRECTORY` | `./flag-server-data` |
/// | `--database-url` | `FLAG_SERVER_DATABASE_URL` | none (SQLite in the data directory) |
/// | `--revision-check-seconds` | `FLAG_SERVER_REVISION_CHECK_SECONDS` | `30` (PostgreSQL replicas) |
/// | `--rollout-tick-seconds` | `FLAG_SERVER_ROLLOUT_TICK_SECONDS` | `10`: how often running rollout plans are looked at |
/// | `--rate-limit-per-second` | `FLAG_SERVER_RATE_LIMIT_PER_SECOND` | `50` per client of a delivery token (per admin token), burst twice that; `0` turns it off |
/// | `--trusted-proxies` | `FLAG_SERVER_TRUSTED_PROXIES` | none: comma-separated addresses and ranges (`10.0.0.0/8`) whose `Forwarded` / `X-Forwarded-For` name the client |
/// | `--refetches-per-second` | `FLAG_SERVER_REFETCHES_PER_SECOND` | `5000`: events ask clients to spread refetches over open streams ÷ this (at most 60 s); `0` for no spread |
/// | `--log-level` | `FLAG_SERVER_LOG_LEVEL` | `info` |
/// | `--ttl-seconds` | `FLAG_SERVER_TTL_SECONDS` | `60` |
/// | `--event-stream-keep-alive-seconds` | `FLAG_SERVER_EVENT_STREAM_KEEP_ALIVE_SECONDS` | `15`: an idle event stream sends `: keep-alive` this often |
/// | `--fractional-bucketing` | `FLAG_SERVER_FRACTIONAL_BUCKETING` | `current` (flagd's bucketing); `legacy` keeps the buckets of flagd before 0.11, `v3` is flagd's newest |
/// | `--secure-cookies` | `FLAG_SERVER_SECURE_COOKIES` | `false` (console cookies are `Secure` behind `X-Forwarded-Proto: https` anyway) |
/// | `--write-timeout-seconds` | `FLAG_SERVER_WRITE_TIMEOUT_SECONDS` | `10`: a write not committed by then fails 503 and is never committed later |
/// | `--idle-timeout-seconds` | `FLAG_SERVER_IDLE_TIMEOUT_SECONDS` | `30`: an idle connection, or one sending its headers slower, is closed |
/// | `--body-timeout-seconds` | `FLAG_SERVER_BODY_TIMEOUT_SECONDS` | `10`: the longest pause inside a request body |
/// | `--maximum-header-bytes` | `FLAG_SERVER_MAXIMUM_HEADER_BYTES` | `32768`: a larger request head is answered 431 |
/// | `--maximum-connections` | `FLAG_SERVER_MAXIMUM_CONNECTIONS` | `100000` open at once (then 503), lowered to fit the descriptor limit |
/// | `--listen-backlog` | `FLAG_SERVER_LISTEN_BACKLOG` | `4096` connections queued by the kernel before they are accepted |
/// | `--descriptor-limit` | `FLAG_SERVER_DESCRIPTOR_LIMIT` | `0`: raise the open-file soft limit to the hard limit at start; a number sets it (at most the hard limit) |
/// | `--maximum-event-streams` | `FLAG_SERVER_MAXIMUM_EVENT_STREAMS` | `100000` open at once in the process (then 503) |
/// | `--maximum-event-streams-per-token` | `FLAG_SERVER_MAXIMUM_EVENT_STREAMS_PER_TOKEN` | `64` open at once per client of a token (see `--trusted-proxies`; then 429) |
public struct ServerConfiguration: Sendable, Hashable {
    /// The address to listen on (`127.0.0.1` by default).
    public var host: String
    /// The TCP port to listen on (8080 by default).
    public var port: Int
    /// Where the SQLite databases live (`./flag-server-data` by default).
    public var dataDirectory: String
    /// A `postgres://` URL of a PostgreSQL database to use instead of SQLite; `nil` for SQLite.
    public var databaseURL: String?
    /// The PostgreSQL database ``databaseURL`` names; `nil` for SQLite in ``dataDirectory``.
    public var postgres: PostgresConfiguration?
    /// How often a PostgreSQL replica compares its revisions with the database's (a safety net
    /// for a lost notification).
    public var revisionCheckSeconds: Int
    /// How often the rollout executor looks at the running plans: a step is held its duration
    /// plus up to one tick, and an evaluation interval shorter than a tick waits for the tick.
    public var rolloutTickSeconds: Int
    /// Requests per second per client of a delivery token, and per admin token (burst twice
    /// that); 0 turns the limit off (benchmarks).
    public var rateLimitPerSecond: Int
    /// Trusted proxies and the refetch spread.
    public var delivery = DeliveryOptions()
    /// The lowest level logged (`info` by default).
    public var logLevel: Logger.Level
    /// How long, in seconds, clients may keep an `app_config` answer before they refetch (60 by default).
    public var ttlSeconds: Int
    /// Whether console cookies are always `Secure` (set it when TLS ends in a proxy that does not
    /// send `X-Forwarded-Proto: https`).
    public var secureCookies: Bool
    /// How often an event stream without events sends a keep-alive comment, so that proxies and
    /// load balancers do not cut it as idle (they often do after 60 s).
    public var eventStreamKeepAliveSeconds: Int
    /// How `fractional` assigns buckets: `current` unless a deployment migrating from older
    /// flagd must keep its users in the buckets they had (`legacy`).
    public var fractionalBucketing: FractionalBucketing
    /// Timeouts and caps on connections, requests, writes and event streams.
    public var limits = ServerLimits()
    /// The open-file soft limit `flag-server serve` sets at start; `nil` raises it to the hard
    /// limit (every connection is a descriptor).
    public var descriptorLimit: Int?

    /// The SQLite file inside ``dataDirectory``.
    public var databasePath: String { dataDirectory + "/flags.sqlite" }

    /// Resolves options (`nil` when not given) against `environment`.
    ///
    /// - Throws: ``ConfigurationError`` naming the option or variable and the bad value.
    public init(
        host: String? = nil, port: Int? = nil, dataDirectory: String? = nil, databaseURL: String? = nil,
        logLevel: String? = nil, ttlSeconds: Int? = nil, revisionCheckSeconds: Int? = nil, rolloutTickSeconds: Int? = nil,
        rateLimitPerSecond: Int? = nil, secureCookies: Bool? = nil, eventStreamKeepAliveSeconds: Int? = nil,
        fractionalBucketing: String? = nil, writeTimeoutSeconds: Int? = nil, idleTimeoutSeconds: Int? = nil,
        bodyTimeoutSeconds: Int? = nil, maximumHeaderBytes: Int? = nil, maximumConnections: Int? = nil,
        maximumEventStreams: Int? = nil, maximumEventStreamsPerToken: Int? = nil, trustedProxies: String? = nil,
        refetchesPerSecond: Int? = nil, listenBacklog: Int? = nil, descriptorLimit: Int? = nil,
        environment: [String: String]
    ) throws(ConfigurationError) {
        let source = ConfigurationSource(environment: environment)
        func integer(_ option: Int?, _ variable: String, default value: Int, range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
            try source.integer(option, variable, default: value, range: range)
        }
        self.host = host ?? environment["FLAG_SERVER_HOST"] ?? "127.0.0.1"
        self.port = try integer(port, "FLAG_SERVER_PORT", default: 8080, range: 0...65535)
        self.dataDirectory = dataDirectory ?? environment["FLAG_SERVER_DATA_DIRECTORY"] ?? "./flag-server-data"
        self.databaseURL = databaseURL ?? environment["FLAG_SERVER_DATABASE_URL"]
        let levelText = logLevel ?? environment["FLAG_SERVER_LOG_LEVEL"] ?? "info"
        guard let level = Logger.Level(rawValue: levelText.lowercased()) else {
            throw ConfigurationError(
                "log level \"\(levelText)\" is not one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.logLevel = level
        self.ttlSeconds = try integer(ttlSeconds, "FLAG_SERVER_TTL_SECONDS", default: 60, range: 0...86_400)
        if let secureCookies {
            self.secureCookies = secureCookies
        } else if let text = environment["FLAG_SERVER_SECURE_COOKIES"] {
            switch text.lowercased() {
            case "1", "true", "yes": self.secureCookies = true
            case "0", "false", "no", "": self.secureCookies = false
            default: throw ConfigurationError("FLAG_SERVER_SECURE_COOKIES=\(text) is not true or false")
            }
        } else {
            self.secureCookies = false
        }
        self.revisionCheckSeconds = try integer(
            revisionCheckSeconds, "FLAG_SERVER_REVISION_CHECK_SECONDS", default: 30, range: 1...3600)
        self.rolloutTickSeconds = try integer(
            rolloutTickSeconds, "FLAG_SERVER_ROLLOUT_TICK_SECONDS", default: 10, range: 1...600)
        self.rateLimitPerSecond = try integer(
            rateLimitPerSecond, "FLAG_SERVER_RATE_LIMIT_PER_SECOND", default: 50, range: 0...1_000_000)
        self.eventStreamKeepAliveSeconds = try integer(
            eventStreamKeepAliveSeconds, "FLAG_SERVER_EVENT_STREAM_KEEP_ALIVE_SECONDS", default: 15, range: 1...3600)
        let bucketingText = fractionalBucketing ?? environment["FLAG_SERVER_FRACTIONAL_BUCKETING"] ?? "current"
        guard let bucketing = FractionalBucketing(rawValue: bucketingText.lowercased()) else {
            throw ConfigurationError(
                "\(fractionalBucketing == nil ? "FLAG_SERVER_FRACTIONAL_BUCKETING" : "--fractional-bucketing") \"\(bucketingText)\" is not one of \(FractionalBucketing.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.fractionalBucketing = bucketing
        limits.writeTimeout = .seconds(try integer(writeTimeoutSeconds, "FLAG_SERVER_WRITE_TIMEOUT_SECONDS", default: 10, range: 1...600))
        limits.idleTimeout = .seconds(try integer(idleTimeoutSeconds, "FLAG_SERVER_IDLE_TIMEOUT_SECONDS", default: 30, range: 1...3600))
        limits.bodyTimeout = .seconds(try integer(bodyTimeoutSeconds, "FLAG_SERVER_BODY_TIMEOUT_SECONDS", default: 10, range: 1...3600))
        limits.maximumHeaderBytes = try integer(
            maximumHeaderBytes, "FLAG_SERVER_MAXIMUM_HEADER_BYTES", default: 32 * 1024, range: 1024...1024 * 1024)
        limits.maximumConnections = try integer(
            maximumConnections, "FLAG_SERVER_MAXIMUM_CONNECTIONS", default: 100_000, range: 1...10_000_000)
        limits.listenBacklog = try integer(listenBacklog, "FLAG_SERVER_LISTEN_BACKLOG", default: 4096, range: 1...1_000_000)
        let descriptors = try integer(descriptorLimit, "FLAG_SERVER_DESCRIPTOR_LIMIT", default: 0, range: 0...100_000_000)
        self.descriptorLimit = descriptors == 0 ? nil : descriptors
        limits.maximumEventStreams = try integer(
            maximumEventStreams, "FLAG_SERVER_MAXIMUM_EVENT_STREAMS", default: 100_000, range: 0...10_000_000)
        limits.maximumEventStreamsPerToken = try integer(
            maximumEventStreamsPerToken, "FLAG_SERVER_MAXIMUM_EVENT_STREAMS_PER_TOKEN", default: 64, range: 0...1_000_000)
        delivery.trustedProxies = try TrustedProxies(parsing: trustedProxies ?? environment["FLAG_SERVER_TRUSTED_PROXIES"] ?? "")
        delivery.refetchesPerSecond = try integer(
            refetchesPerSecond, "FLAG_SERVER_REFETCHES_PER_SECOND", default: 5_000, range: 0...10_000_000)
        if let url = self.databaseURL, !url.isEmpty {
            postgres = try PostgresConfiguration(url: url)
        } else {
            postgres = nil
        }
    }

    /// `url` with any `user:password@` replaced by `<REDACTED>@`.
    static func redactingCredentials(_ url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].lastIndex(of: "@") else { return url }
        return url[..<scheme.upperBound] + "<REDACTED>" + url[at...]
    }
}

/// A bad option or environment variable.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, naming the option or variable and the value.
    public var description: String
    init(_ description: String) { self.description = description }
}
