import FlagServerModel
public import Foundation

/// How the server sends webhooks (`Server/Docs/Webhooks.md`).
public struct WebhookOptions: Sendable {
    /// Whether endpoints may point at addresses that are not globally reachable: loopback
    /// (`127.0.0.0/8`, `::1`, `localhost`), link-local (`169.254.0.0/16`, cloud metadata services
    /// among them, `fe80::/10`), private (`10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16`,
    /// `100.64.0.0/10`, `fc00::/7`), unspecified, multicast, broadcast, documentation and
    /// reserved ranges (``IPAddress/refusedRange``). Off by default: an admin could otherwise make
    /// the server send requests to itself, its host's metadata service or the internal network.
    /// `serve --allow-local-webhooks` (for tests and local development).
    public var allowsLocalTargets = false
    /// Resolves a target's host name before each attempt (numeric addresses, as `getaddrinfo`
    /// gives them); the attempt connects to one of them and to no other. Replaceable for tests.
    public var resolve: @Sendable (String) async -> [String] = HostAddresses.resolve
    /// The whole of one attempt (resolving the name, connecting, the request, the response head and
    /// the bounded body): an endpoint that does not answer holds only its own attempt this long.
    public var requestTimeout: Duration = .seconds(10)
    /// Attempts per delivery (the first included) before it is marked failed.
    public var maximumAttempts = 8
    /// The pause after the first failed attempt; each next pause is ``backoffFactor`` times longer
    /// (1 min, 3, 9, 27 min, 1.35 h, 4 h, 12 h: the eighth attempt about 18 hours after the first).
    public var firstRetryDelay: TimeInterval = 60
    /// How many times longer each pause after a failed attempt is than the one before (3 by default).
    public var backoffFactor: Double = 3
    /// Each pause is spread by up to this fraction either way, so that deliveries failing together
    /// do not come back together.
    public var jitter: Double = 0.2
    /// How often the service stores queued notifications and looks for due deliveries.
    public var pollInterval: Duration = .seconds(1)
    /// Deliveries sent at once by one server.
    public var batchSize = 16
    /// How long a claimed delivery is left to the server that claimed it before another server may
    /// take it (a server that stopped mid-attempt). Longer than ``requestTimeout``.
    public var claimLease: TimeInterval = 120
    /// The most response-body bytes read (and then dropped) per attempt.
    public var maximumResponseBytes = 64 * 1024
    /// Notifications waiting in memory to be stored; past it, new ones are dropped and logged.
    public var queueCapacity = 10_000
    /// How long delivered and failed deliveries stay in the log.
    public var retention: TimeInterval = 30 * 86_400

    /// The defaults documented on each member.
    public init() {}

    /// The pause before attempt `attempt + 1`, after `attempt` failed ones, with `random` in 0...1.
    func retryDelay(afterAttempt attempt: Int, random: Double) -> TimeInterval {
        let base = firstRetryDelay * pow(backoffFactor, Double(max(0, attempt - 1)))
        return base * (1 - jitter + 2 * jitter * random)
    }

    /// Why `text` cannot be an endpoint's URL (a message naming the field `url`), or `nil`.
    ///
    /// A host written as an address, in any spelling (``IPAddress``: `127.1`, `0177.0.0.1`,
    /// `[::ffff:7f00:1]`, …), is judged by the address it stands for; a name is judged by what it
    /// resolves to before every attempt (``target(of:)``), except `localhost` and `*.localhost`,
    /// refused as written.
    public func problem(url text: String) -> String? {
        guard text.utf8.count <= 2048 else { return "url: longer than 2048 bytes" }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return "url: expected an http or https URL, got \"\(text.prefix(100))\""
        }
        guard let host = Self.host(of: url)?.lowercased() else { return "url: it names no host" }
        guard url.user == nil, url.password == nil else {
            return "url: credentials in the URL are refused (they would show wherever the URL does); the signature authenticates the server"
        }
        guard url.fragment == nil else { return "url: a fragment is never sent; remove it" }
        guard !allowsLocalTargets else { return nil }
        if let address = IPAddress(host) {
            guard let range = address.refusedRange else { return nil }
            let spelled = address.description == host ? host : "\(host) (\(address))"
            return "url: \(spelled) is \(range); \(Self.refusalRule)"
        }
        if Self.isLocalName(host) { return "url: \(host) is a loopback name; \(Self.refusalRule)" }
        return nil
    }

    /// Where an attempt to `text` (a URL ``problem(url:)`` accepts) connects: its host and the
    /// addresses it may connect to, every one judged; or why it may not be called now.
    enum Target: Sendable, Equatable {
        /// Connect to one of `addresses` (in order), naming `host` in the request and for TLS.
        /// `host` is the URL's host as the HTTP client reads it (case kept), the key of its
        /// `dnsOverride`.
        case connect(host: String, addresses: [IPAddress])
        /// Nothing may be sent: the message says which URL and why.
        case refused(String)
    }

    /// Resolves the host of `text` once for this attempt and judges every address it resolves
    /// to: one refused address refuses the attempt (a name with a public and a loopback record
    /// is refused), unless ``allowsLocalTargets``. The attempt then connects to these addresses
    /// and no other, so that a DNS answer changing between this check and the connection (DNS
    /// rebinding) cannot reach a refused address.
    func target(of text: String) async -> Target {
        if let problem = problem(url: text) { return .refused(problem) }
        guard let url = URL(string: text), let written = Self.host(of: url) else { return .refused("url: it names no host") }
        let host = written.lowercased()
        if let address = IPAddress(host) { return .connect(host: written, addresses: [address]) }
        let resolved = await resolve(host)
        guard !resolved.isEmpty else { return .refused("url: \(host) does not resolve") }
        var addresses: [IPAddress] = []
        for text in resolved {
            guard let address = IPAddress(text) else { return .refused("url: \(host) resolves to \"\(text.prefix(64))\", which is no address") }
            if !allowsLocalTargets, let range = address.refusedRange {
                return .refused("url: \(host) resolves to \(address), \(range); \(Self.refusalRule)")
            }
            if !addresses.contains(address) { addresses.append(address) }
        }
        return .connect(host: written, addresses: addresses)
    }

    /// The end of every refusal: what is refused, and the way out for tests.
    static let refusalRule =
        "the server refuses loopback, link-local, private and other non-global addresses (serve --allow-local-webhooks allows them for tests)"

    /// The URL's host as AsyncHTTPClient reads it on Linux (`URL.host`, percent-decoded, without
    /// IPv6 brackets, case kept), `nil` when empty.
    static func host(of url: URL) -> String? {
        guard var host = url.host, !host.isEmpty else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : host
    }

    /// `localhost`, `*.localhost` (RFC 6761), with or without a final dot.
    static func isLocalName(_ host: String) -> Bool {
        let name = host.hasSuffix(".") ? String(host.dropLast()) : host
        return name == "localhost" || name.hasSuffix(".localhost")
    }
}
