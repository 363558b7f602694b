public import Foundation

/// How the server sends webhooks (`Server/Docs/Webhooks.md`).
public struct WebhookOptions: Sendable {
    /// Whether endpoints may point at loopback (`127.0.0.0/8`, `::1`, `localhost`), link-local
    /// (`169.254.0.0/16`, `fe80::/10`, cloud metadata services among them) or unspecified
    /// (`0.0.0.0`, `::`) addresses. Off by default: an admin could otherwise make the server
    /// send requests to itself or its host's metadata service. `serve --allow-local-webhooks`
    /// (for tests and local development).
    public var allowsLocalTargets = false
    /// Resolves a target's host name before each attempt, so that a name pointing at a refused
    /// address is refused too (unless ``allowsLocalTargets``). Replaceable for tests.
    public var resolve: @Sendable (String) async -> [String] = HostAddresses.resolve
    /// The whole exchange of one attempt (connection, request, response head and the bounded body).
    public var requestTimeout: Duration = .seconds(10)
    /// Attempts per delivery (the first included) before it is marked failed.
    public var maximumAttempts = 8
    /// The pause after the first failed attempt; each next pause is ``backoffFactor`` times longer
    /// (1 min, 3, 9, 27 min, 1.35 h, 4 h, 12 h: the eighth attempt about 18 hours after the first).
    public var firstRetryDelay: TimeInterval = 60
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

    public init() {}

    /// The pause before attempt `attempt + 1`, after `attempt` failed ones, with `random` in 0...1.
    func retryDelay(afterAttempt attempt: Int, random: Double) -> TimeInterval {
        let base = firstRetryDelay * pow(backoffFactor, Double(max(0, attempt - 1)))
        return base * (1 - jitter + 2 * jitter * random)
    }

    /// Why `text` cannot be an endpoint's URL (a message naming the field `url`), or `nil`.
    public func problem(url text: String) -> String? {
        guard text.utf8.count <= 2048 else { return "url: longer than 2048 bytes" }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return "url: expected an http or https URL, got \"\(text.prefix(100))\""
        }
        guard var host = url.host?.lowercased(), !host.isEmpty else { return "url: it names no host" }
        guard url.user == nil, url.password == nil else {
            return "url: credentials in the URL are refused (they would show wherever the URL does); the signature authenticates the server"
        }
        guard url.fragment == nil else { return "url: a fragment is never sent; remove it" }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if !allowsLocalTargets, Self.isLocal(host: host) {
            return "url: \(host) is a loopback, link-local or unspecified address; the server refuses them (serve --allow-local-webhooks allows them for tests)"
        }
        return nil
    }

    /// Why the target of `text` (a URL ``problem(url:)`` accepts) cannot be called now: its host
    /// name resolves to a loopback, link-local or unspecified address. `nil` when it may be, or
    /// when ``allowsLocalTargets``. A name that does not resolve is left to the request to fail.
    func problem(resolving text: String) async -> String? {
        guard !allowsLocalTargets, let url = URL(string: text), var host = url.host?.lowercased() else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        // An address as written was judged by `problem(url:)`.
        guard !host.contains(":"), host.split(separator: ".").contains(where: { UInt8($0) == nil }) else { return nil }
        guard let local = await resolve(host).first(where: { Self.isLocal(host: $0.lowercased()) }) else { return nil }
        return "url: \(host) resolves to \(local), a loopback, link-local or unspecified address; the server refuses them (serve --allow-local-webhooks allows them for tests)"
    }

    /// Whether `host` (lowercased, without brackets) is a loopback, link-local or unspecified
    /// address or a `localhost` name. Names are judged as written here; before each attempt
    /// ``problem(resolving:)`` judges what they resolve to.
    static func isLocal(host: String) -> Bool {
        if host == "localhost" || host.hasSuffix(".localhost") || host == "localhost." { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        let octets = parts.compactMap { UInt8($0) }
        if parts.count == 4, octets.count == 4 {
            return octets[0] == 127 || octets[0] == 0 || (octets[0] == 169 && octets[1] == 254)
        }
        if host.contains(":") {
            if host == "::1" || host == "::" || host == "0:0:0:0:0:0:0:1" { return true }
            if host.hasPrefix("fe8") || host.hasPrefix("fe9") || host.hasPrefix("fea") || host.hasPrefix("feb") { return true }
            // IPv4-mapped (::ffff:127.0.0.1).
            if host.hasPrefix("::ffff:") { return isLocal(host: String(host.dropFirst(7))) }
        }
        return false
    }
}
