import ArgumentParser
import FlagServer
import Foundation
import Hummingbird
import Logging
import Prometheus

struct RelayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay",
        abstract: "Follow an upstream flag server (or relay) for one environment and serve its delivery, without a database.",
        discussion: """
            The token is a server token of the environment to relay, read from FLAG_SERVER_RELAY_TOKEN \
            or from --token-file (never from the command line, which other users of the machine can \
            read). Clients use the tokens the upstream issued for that environment.
            """
    )

    @Option(help: "The upstream's base URL, https://flags.example.com (FLAG_SERVER_RELAY_UPSTREAM).") var upstream: String?
    @Option(help: "A file holding the server token (else FLAG_SERVER_RELAY_TOKEN).") var tokenFile: String?
    @Option(help: "Address to listen on (FLAG_SERVER_HOST, default 127.0.0.1).") var host: String?
    @Option(help: "Port to listen on, 0 for any free port (FLAG_SERVER_PORT, default 8080).") var port: Int?
    @Option(help: "trace, debug, info, notice, warning, error or critical (FLAG_SERVER_LOG_LEVEL, default info).")
    var logLevel: String?
    @Option(help: "ttlSeconds advertised by app_config (FLAG_SERVER_TTL_SECONDS, default 60).") var ttlSeconds: Int?
    @Option(help: "current, legacy or v3: must equal the upstream's (FLAG_SERVER_FRACTIONAL_BUCKETING, default current).")
    var fractionalBucketing: String?
    @Option(help: "Requests per second per token, 0 for no limit (FLAG_SERVER_RATE_LIMIT_PER_SECOND, default 50).")
    var rateLimitPerSecond: Int?
    @Option(help: "Seconds between feed requests without an event, for token changes (FLAG_SERVER_RELAY_TOKEN_REFRESH_SECONDS, default 10).")
    var tokenRefreshSeconds: Int?
    @Option(help: "Largest feed accepted from the upstream, in MiB (FLAG_SERVER_RELAY_MAXIMUM_FEED_MEGABYTES, default 64).")
    var maximumFeedMegabytes: Int?
    @Option(help: "Seconds the upstream's event stream may stay silent before it counts as lost (FLAG_SERVER_RELAY_IDLE_SECONDS, default 45).")
    var upstreamIdleSeconds: Int?
    @Option(help: "Event streams open at once, more are refused 503 (FLAG_SERVER_MAXIMUM_EVENT_STREAMS, default 4096).")
    var maximumEventStreams: Int?

    func run() async throws {
        let source = ConfigurationSource(environment: ProcessInfo.processInfo.environment)
        func setting(_ value: String?, _ name: String) -> String? { source.text(value, name) }
        func number(_ value: Int?, _ name: String, option: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
            do { return try source.integer(value, name, optionName: option, default: fallback, range: range) } catch {
                throw ValidationError(error.description)
            }
        }
        guard let upstreamText = setting(upstream, "FLAG_SERVER_RELAY_UPSTREAM"), let upstreamURL = URL(string: upstreamText) else {
            throw ValidationError("the relay needs --upstream (or FLAG_SERVER_RELAY_UPSTREAM): the base URL of a flag server or relay")
        }
        let token: String
        if let tokenFile {
            guard let text = try? String(contentsOfFile: tokenFile, encoding: .utf8) else {
                throw ValidationError("cannot read the token file \(tokenFile)")
            }
            token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        } else if let text = setting(nil, "FLAG_SERVER_RELAY_TOKEN") {
            token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        } else {
            throw ValidationError("the relay needs a server token: set FLAG_SERVER_RELAY_TOKEN or pass --token-file")
        }
        var options: RelayFollower.Options
        do {
            options = try RelayFollower.Options(upstream: upstreamURL, token: token)
        } catch {
            throw ValidationError(error.description)
        }
        do {
            try options.setFractionalBucketing(named: setting(fractionalBucketing, "FLAG_SERVER_FRACTIONAL_BUCKETING") ?? "current")
        } catch {
            throw ValidationError(error.description)
        }
        options.tokenRefresh = .seconds(try number(tokenRefreshSeconds, "FLAG_SERVER_RELAY_TOKEN_REFRESH_SECONDS", option: "token-refresh-seconds", default: 10, range: 1...3600))
        options.maximumFeedBytes =
            try number(maximumFeedMegabytes, "FLAG_SERVER_RELAY_MAXIMUM_FEED_MEGABYTES", option: "maximum-feed-megabytes", default: 64, range: 1...4096) * 1024 * 1024
        options.idleTimeout = .seconds(try number(upstreamIdleSeconds, "FLAG_SERVER_RELAY_IDLE_SECONDS", option: "upstream-idle-seconds", default: 45, range: 5...3600))
        let host = setting(host, "FLAG_SERVER_HOST") ?? "127.0.0.1"
        let port = try number(port, "FLAG_SERVER_PORT", option: "port", default: 8080, range: 0...65535)
        let ttl = try number(ttlSeconds, "FLAG_SERVER_TTL_SECONDS", option: "ttl-seconds", default: 60, range: 0...86400)
        let rate = try number(rateLimitPerSecond, "FLAG_SERVER_RATE_LIMIT_PER_SECOND", option: "rate-limit-per-second", default: 50, range: 0...1_000_000)
        var limits = ServerLimits()
        limits.maximumEventStreams = try number(
            maximumEventStreams, "FLAG_SERVER_MAXIMUM_EVENT_STREAMS", option: "maximum-event-streams", default: limits.maximumEventStreams, range: 1...10_000_000)
        let levelText = setting(logLevel, "FLAG_SERVER_LOG_LEVEL") ?? "info"
        guard let level = Logger.Level(rawValue: levelText) else {
            throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let registry = Observability.bootstrap(level: level)
        let logger = Logger(label: "flag-server.relay")
        // Every client connection is a descriptor: raise the soft limit to the hard limit, as serve does.
        if let limit = DescriptorLimit.raise() {
            logger.info("open-file limit \(limit.soft) (hard limit \(limit.hard))")
        }
        let relay = FlagRelay(
            options: options, limits: limits, ttlSeconds: ttl,
            rateLimiter: rate == 0 ? nil : RateLimiter(perSecond: Double(rate), burst: 2 * rate), metrics: registry, logger: logger)
        logger.info("relaying", metadata: ["upstream": "\(options.upstreamDescription)"])
        let app = relay.application(host: host, port: port) { port in
            logger.info("listening on http://\(host):\(port)")
        }
        try await app.runService()
    }
}
