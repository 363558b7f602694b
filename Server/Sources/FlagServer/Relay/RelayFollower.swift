import AsyncHTTPClient
public import FlagEvaluation
import FlagServerModel
public import Foundation
public import Logging
import NIOCore
import NIOHTTP1
public import Prometheus
public import ServiceLifecycle
import Synchronization

/// Keeps a relay's served state equal to its upstream's (a flag server, or another relay): it
/// holds the upstream's event stream open, and on every event (and when it connects, and every
/// ``Options/tokenRefresh``, for token revocations, which change no revision) asks for the
/// ``RelayFeed`` with `If-None-Match`, compiles it once, publishes it and sends the event to its
/// own streams.
///
/// When the upstream is lost the relay keeps serving its last state, reports itself stale
/// (``Readiness/staleSince``), and reconnects with a growing pause (``Options/backoff``).
///
/// Everything taken from upstream is bounded: the feed's size (``Options/maximumFeedBytes``)
/// and nesting, the time to receive it (``Options/requestTimeout``), an event-stream line
/// (64 KiB), and the silence of the stream (``Options/idleTimeout``, above the upstream's
/// keep-alive interval). The token goes only to the configured upstream: redirects are not
/// followed, and it is never logged.
public final class RelayFollower: Service, Sendable {
    /// Where and how to follow.
    public struct Options: Sendable, CustomStringConvertible {
        /// The upstream's base URL (`https://flags.example.com`), without credentials.
        public var upstream: URL
        /// A server token of the environment to relay (its text: kept in memory only).
        public var token: String
        /// How often the feed is asked for without an event, so token changes arrive (10 s).
        public var tokenRefresh: Duration = .seconds(10)
        /// The largest feed accepted (64 MiB).
        public var maximumFeedBytes: Int = 64 * 1024 * 1024
        /// The longest a feed request may take (30 s).
        public var requestTimeout: Duration = .seconds(30)
        /// The longest the event stream may stay silent before it is taken as lost (45 s: three
        /// of the upstream's keep-alive comments, 15 s apart by default).
        public var idleTimeout: Duration = .seconds(45)
        /// The first pause before reconnecting, and the longest (it doubles in between).
        public var backoff: (first: Duration, maximum: Duration) = (.milliseconds(500), .seconds(30))
        /// How `fractional` buckets here: must equal the upstream's, or the feed is refused.
        public var fractionalBucketing: FractionalBucketing = .current

        /// - Throws: ``RelayFeed/Refusal`` for a URL that is not `http(s)://host[:port][/path]`
        ///   or that carries credentials, a query or a fragment.
        public init(upstream: URL, token: String) throws(RelayFeed.Refusal) {
            guard let scheme = upstream.scheme?.lowercased(), scheme == "http" || scheme == "https",
                let host = upstream.host, !host.isEmpty
            else {
                throw RelayFeed.Refusal(description: "the upstream must be an http:// or https:// URL with a host")
            }
            guard upstream.user == nil, upstream.password == nil, upstream.query == nil, upstream.fragment == nil else {
                throw RelayFeed.Refusal(
                    description: "the upstream URL must not carry credentials, a query or a fragment: pass the token separately")
            }
            guard !token.isEmpty else { throw RelayFeed.Refusal(description: "the relay's upstream token is empty") }
            self.upstream = upstream
            self.token = token
        }

        /// Sets ``fractionalBucketing`` from its name (`current`, `legacy`, `v3`).
        public mutating func setFractionalBucketing(named name: String) throws(RelayFeed.Refusal) {
            guard let bucketing = FractionalBucketing(rawValue: name) else {
                throw RelayFeed.Refusal(
                    description: "--fractional-bucketing must be one of \(FractionalBucketing.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(name.prefix(32))\"")
            }
            fractionalBucketing = bucketing
        }

        /// The upstream's address for logs: scheme, host, port and path.
        public var upstreamDescription: String {
            var text = "\(upstream.scheme ?? "http")://\(upstream.host ?? "")"
            if let port = upstream.port { text += ":\(port)" }
            return text + upstream.path
        }

        /// The options with the token printed as `<REDACTED>`.
        public var description: String { "RelayFollower.Options(upstream: \(upstreamDescription), token: <REDACTED>)" }

        func url(_ path: String) -> String {
            var base = upstream.absoluteString
            while base.hasSuffix("/") { base.removeLast() }
            return base + path
        }
    }

    /// The feed now served, as received (so a relay following this one gets the same bytes).
    struct Served: Sendable {
        var etag: String
        var body: Data
        var environment: String
        var revision: Int
    }

    let options: Options
    let publisher: StatePublisher
    let events: EventHub
    let readiness: Readiness
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let served = Mutex<Served?>(nil)
    /// The HTTP client while ``run()`` runs.
    private let running = Mutex<HTTPClient?>(nil)
    private let connected: Gauge
    private let feeds: Counter
    private let failures: Counter

    /// A follower publishing what it receives to `publisher` and `events`, reporting to `readiness` and `metrics`.
    public init(
        options: Options, publisher: StatePublisher, events: EventHub, readiness: Readiness,
        metrics: PrometheusCollectorRegistry, logger: Logger = Logger(label: "flag-server.relay"),
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.options = options
        self.publisher = publisher
        self.events = events
        self.readiness = readiness
        self.logger = logger
        self.now = now
        connected = metrics.makeGauge(descriptor: .named(
            "flag_server_relay_upstream_connected", help: "1 while the relay's event stream from its upstream is open, else 0."))
        feeds = metrics.makeCounter(descriptor: .named(
            "flag_server_relay_feeds_applied_total", help: "Feeds from the upstream compiled and published."))
        failures = metrics.makeCounter(descriptor: .named(
            "flag_server_relay_upstream_failures_total", help: "Connections to the upstream lost or refused."))
    }

    /// The feed this relay serves to relays following it: its ETag and body, if it has one for
    /// `environment`.
    func feed(for environment: String) -> (etag: String, body: @Sendable () -> Data)? {
        guard let served = served.withLock({ $0 }), served.environment == environment else { return nil }
        return (served.etag, { served.body })
    }

    /// The revision served, if any.
    public var revision: Int? { served.withLock { $0?.revision } }

    /// Follows the upstream (and refreshes its tokens) until a graceful shutdown.
    public func run() async throws {
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: HTTPClient.Configuration(
                redirectConfiguration: .disallow,
                timeout: .init(connect: .seconds(5), read: .nanoseconds(options.idleTimeout.nanoseconds))))
        running.withLock { $0 = client }
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.followUntilCancelled(client) }
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: self.options.tokenRefresh)
                        guard !Task.isCancelled, self.revision != nil else { continue }
                        do { try await self.fetchFeed(client) } catch {
                            self.logger.debug("periodic feed request failed", metadata: ["error": "\(error)"])
                        }
                    }
                }
                await group.waitForAll()
            }
        }
        running.withLock { $0 = nil }
        try? await client.shutdown()
    }

    /// Asks the upstream for the feed now (as the periodic request does), while ``run()`` runs.
    public func fetchFeedNow() async throws {
        guard let client = running.withLock({ $0 }) else {
            throw RelayFeed.Refusal(description: "the relay is not running")
        }
        try await fetchFeed(client)
    }

    private func followUntilCancelled(_ client: HTTPClient) async {
        var pause = options.backoff.first
        while !Task.isCancelled {
            do {
                try await followOnce(client) { pause = self.options.backoff.first }
                throw RelayFeed.Refusal(description: "the upstream ended the event stream")
            } catch {
                guard !Task.isCancelled else { return }
                connected.set(0.0)
                failures.increment()
                readiness.upstreamLost(at: now())
                logger.warning(
                    "lost the upstream; serving the last state and reconnecting",
                    metadata: [
                        "upstream": "\(options.upstreamDescription)", "error": "\(Self.describe(error))",
                        "retryInSeconds": "\(pause.seconds)",
                    ])
            }
            // Spread reconnections of many relays: between half and all of the pause.
            let jittered = pause * Double.random(in: 0.5...1.0)
            try? await Task.sleep(for: jittered)
            pause = min(pause * 2, options.backoff.maximum)
        }
    }

    /// Opens the event stream, fetches the feed, then fetches it again after every event newer
    /// than what is served. Returns when the stream ends.
    private func followOnce(_ client: HTTPClient, connectedNow: () -> Void) async throws {
        var request = HTTPClientRequest(url: options.url("/ofrep/v1/events"))
        request.headers.add(name: "Authorization", value: "Bearer \(options.token)")
        request.headers.add(name: "Accept", value: "text/event-stream")
        let response = try await client.execute(request, timeout: .seconds(Int64(options.requestTimeout.seconds)))
        guard response.status == .ok else {
            throw RelayFeed.Refusal(description: "the upstream answered the event stream with \(response.status.code)")
        }
        try await fetchFeed(client)
        connected.set(1.0)
        readiness.upstreamReached()
        connectedNow()
        logger.info("following the upstream", metadata: ["upstream": "\(options.upstreamDescription)"])
        var lines = SSELineReader(maximumLine: 64 * 1024)
        var eventID: Int?
        for try await buffer in response.body {
            for line in try lines.append(buffer) {
                if line.isEmpty {
                    // The end of an event: fetch what it announces if it is newer.
                    if let id = eventID, id > (revision ?? -1) { try await fetchFeed(client) }
                    eventID = nil
                } else if line.hasPrefix("id:") {
                    eventID = Int(line.dropFirst(3).trimmingCharacters(in: .whitespaces))
                }
            }
        }
    }

    /// Asks for the feed (with `If-None-Match`) and publishes it if it changed.
    func fetchFeed(_ client: HTTPClient) async throws {
        var request = HTTPClientRequest(url: options.url("/relay/v1/environment"))
        request.headers.add(name: "Authorization", value: "Bearer \(options.token)")
        if let etag = served.withLock({ $0?.etag }) { request.headers.add(name: "If-None-Match", value: etag) }
        let (limit, maximum, prepared) = (options.requestTimeout, options.maximumFeedBytes, request)
        let body: Data? = try await withThrowingTaskGroup(of: Data?.self) { group in
            group.addTask {
                let request = prepared
                let response = try await client.execute(request, timeout: .seconds(Int64(limit.seconds)))
                if response.status == .notModified { return nil }
                guard response.status == .ok else {
                    throw RelayFeed.Refusal(description: "the upstream answered the feed request with \(response.status.code)")
                }
                do {
                    return Data(try await response.body.collect(upTo: maximum).readableBytesView)
                } catch is NIOTooManyBytesError {
                    throw RelayFeed.Refusal(description: "the upstream's feed is larger than \(maximum) bytes")
                }
            }
            group.addTask {
                try await Task.sleep(for: limit)
                throw RelayFeed.Refusal(description: "the upstream's feed did not arrive within \(limit)")
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let body else { return }
        try apply(RelayFeed.decode(body), body: body)
    }

    /// Compiles and publishes `feed`, and announces a new revision to this relay's streams.
    /// A feed that cannot be served leaves the served state as it was.
    func apply(_ feed: RelayFeed, body: Data) throws(RelayFeed.Refusal) {
        guard feed.fractionalBucketing == publisher.bucketing.rawValue else {
            throw RelayFeed.Refusal(
                description: "the upstream buckets fractional splits as \"\(feed.fractionalBucketing)\" and this relay as "
                    + "\"\(publisher.bucketing.rawValue)\": start the relay with --fractional-bucketing \(feed.fractionalBucketing)")
        }
        let key = feed.environment.key
        if let previous = served.withLock({ $0 }), previous.environment != key {
            throw RelayFeed.Refusal(
                description: "the upstream now sends environment \"\(key)\" instead of \"\(previous.environment)\"; restart the relay to change environments")
        }
        let state = feed.serverState
        guard state.flagdDocument(environment: key, forEvaluation: true) != nil else {
            throw RelayFeed.Refusal(description: "the upstream's environment \"\(key)\" cannot be compiled")
        }
        let before = revision
        publisher.publish(
            state, tokens: feed.tokens, modified: feed.lastModified.map { [key: Date(timeIntervalSince1970: $0)] } ?? [:])
        served.withLock { $0 = Served(etag: feed.etag, body: body, environment: key, revision: feed.environment.revision) }
        feeds.increment()
        readiness.stateDidLoad()
        if before != feed.environment.revision {
            events.publish(environment: key, revision: feed.environment.revision)
            logger.debug("serving a new revision", metadata: ["environment": "\(key)", "revision": "\(feed.environment.revision)"])
        }
    }

    /// An error's description for the log, without anything from a request (no headers).
    static func describe(_ error: any Error) -> String {
        switch error {
        case let refusal as RelayFeed.Refusal: refusal.description
        case let error as HTTPClientError: "\(error)"
        default: "\(type(of: error))"
        }
    }
}

/// Splits an event stream into lines (`\n`, `\r\n` or `\r`), refusing a line longer than a limit.
struct SSELineReader {
    let maximumLine: Int
    private var pending: [UInt8] = []
    private var afterCarriageReturn = false

    init(maximumLine: Int) { self.maximumLine = maximumLine }

    mutating func append(_ buffer: ByteBuffer) throws(RelayFeed.Refusal) -> [String] {
        var lines: [String] = []
        for byte in buffer.readableBytesView {
            if afterCarriageReturn {
                afterCarriageReturn = false
                if byte == UInt8(ascii: "\n") { continue }
            }
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                lines.append(String(decoding: pending, as: UTF8.self))
                pending.removeAll(keepingCapacity: true)
                afterCarriageReturn = byte == UInt8(ascii: "\r")
            } else {
                guard pending.count < maximumLine else {
                    throw RelayFeed.Refusal(description: "the upstream's event stream sent a line longer than \(maximumLine) bytes")
                }
                pending.append(byte)
            }
        }
        return lines
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    var nanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
}
