@testable import FlagServer
import Foundation
import HTTPTypes
import NIOHTTP1
import Testing

/// Delivery tokens are limited per client (every phone of an app shares its client token),
/// admin tokens per token; forwarding headers count only from trusted proxies.
struct ClientRateLimitTests {
    static let loopbackProxy = DeliveryOptions(trustedProxies: try! TrustedProxies(parsing: "127.0.0.1, ::1"))

    private func bulk(_ server: TestServer, token: String, from client: String? = nil) async throws -> Int {
        try await server.request(
            .POST, "/ofrep/v1/evaluate/flags", token: token, body: #"{"context": {}}"#,
            headers: client.map { [("X-Forwarded-For", "\($0), 127.0.0.1")] } ?? []
        ).status
    }

    @Test
    func aThousandClientsOnOneTokenAreServedWhileOneOverItsLimitIsRefused() async throws {
        let clock = ManualSeconds()
        let limiter = RateLimiter(perSecond: 1, burst: 2, now: { clock.value })
        try await TestServer.with(rateLimiter: limiter, delivery: Self.loopbackProxy) { server in
            let token = try await server.token(.client, environment: "production")
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                var statuses: [Int] = []
                for client in 0..<1_000 {
                    if client >= 8 { statuses.append(try await group.next()!) }
                    group.addTask { try await bulk(server, token: token, from: "10.0.\(client / 256).\(client % 256)") }
                }
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses.count == 1_000)
            #expect(statuses.allSatisfy { $0 == 200 })
            // One client past its burst is refused, and only it.
            #expect(try await bulk(server, token: token, from: "10.0.0.1") == 200)
            #expect(try await bulk(server, token: token, from: "10.0.0.1") == 429)
            #expect(try await bulk(server, token: token, from: "10.0.0.2") == 200)
        }
    }

    @Test
    func anUntrustedPeersForwardingHeadersAreIgnored() async throws {
        let clock = ManualSeconds()
        let limiter = RateLimiter(perSecond: 1, burst: 2, now: { clock.value })
        try await TestServer.with(rateLimiter: limiter) { server in
            let token = try await server.token(.client, environment: "production")
            // No proxy is trusted: every request is the loopback peer's, whatever it claims.
            let statuses = [
                try await bulk(server, token: token, from: "10.0.0.1"),
                try await bulk(server, token: token, from: "10.0.0.2"),
                try await bulk(server, token: token, from: "10.0.0.3"),
            ]
            #expect(statuses == [200, 200, 429])
            let forwarded = try await server.request(
                .POST, "/ofrep/v1/evaluate/flags", token: token, body: #"{"context": {}}"#,
                headers: [("Forwarded", "for=10.0.0.4")])
            #expect(forwarded.status == 429)
        }
    }

    @Test
    func adminTokensAreLimitedPerToken() async throws {
        let clock = ManualSeconds()
        let limiter = RateLimiter(perSecond: 1, burst: 2, now: { clock.value })
        try await TestServer.with(rateLimiter: limiter, delivery: Self.loopbackProxy) { server in
            let admin = try await server.token(.admin, environment: "production")
            var statuses: [Int] = []
            for client in ["10.0.0.1", "10.0.0.2", "10.0.0.3"] {
                statuses.append(try await server.request(
                    .GET, "/admin/v1/environments/production/flags", token: admin, headers: [("X-Forwarded-For", client)]
                ).status)
            }
            #expect(statuses == [200, 200, 429])
        }
    }

    @Test
    func eventStreamsAreCappedPerClientNotPerToken() async throws {
        var limits = ServerLimits.forTests
        limits.maximumEventStreamsPerToken = 1
        try await TestServer.with(limits: limits, delivery: Self.loopbackProxy) { server in
            let token = try await server.token(.client, environment: "production")
            let first = try await server.openStream(token: token, headers: [("X-Forwarded-For", "10.0.0.1")])
            let second = try await server.openStream(token: token, headers: [("X-Forwarded-For", "10.0.0.2")])
            await #expect(throws: TestFailure.self) {
                _ = try await server.openStream(token: token, headers: [("X-Forwarded-For", "10.0.0.1")])
            }
            _ = (first, second)
        }
    }
}

struct TrustedProxiesTests {
    func headers(_ fields: [(String, String)]) -> HTTPFields {
        var headers = HTTPFields()
        for (name, value) in fields { headers.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return headers
    }

    @Test
    func theClientIsTheFirstUntrustedAddressFromTheRight() throws {
        let proxies = try TrustedProxies(parsing: "10.0.0.0/8, 192.168.1.7")
        // The peer is a trusted proxy, which trusted another: the client is left of both; what
        // the client itself wrote further left is not believed.
        let chain = headers([("X-Forwarded-For", "1.1.1.1, 203.0.113.9"), ("X-Forwarded-For", "10.1.2.3")])
        #expect(proxies.client(peer: "192.168.1.7", headers: chain) == "203.0.113.9")
        // An untrusted peer's header is not read.
        #expect(proxies.client(peer: "198.51.100.1", headers: chain) == "198.51.100.1")
        #expect(TrustedProxies.none.client(peer: "10.0.0.1", headers: chain) == "10.0.0.1")
        // Forwarded (RFC 7239) wins over X-Forwarded-For, with quotes, brackets and ports.
        let forwarded = headers([
            ("Forwarded", #"for="[2001:db8::1]:4711";proto=https, for=10.0.0.5"#), ("X-Forwarded-For", "203.0.113.9"),
        ])
        #expect(proxies.client(peer: "10.0.0.1", headers: forwarded) == "2001:db8::1")
        #expect(proxies.client(peer: "10.0.0.1", headers: headers([("X-Forwarded-For", "203.0.113.9:80")])) == "203.0.113.9")
        // Only trusted hops: the farthest is the client.
        #expect(proxies.client(peer: "10.0.0.1", headers: headers([("X-Forwarded-For", "10.0.0.2")])) == "10.0.0.2")
    }

    @Test
    func anIPv6ClientIsCountedByItsSlash64() {
        #expect(TrustedProxies.limitKey(of: "2001:db8:1:2:aaaa::1") == TrustedProxies.limitKey(of: "2001:db8:1:2:bbbb::9"))
        #expect(TrustedProxies.limitKey(of: "2001:db8:1:2::1") != TrustedProxies.limitKey(of: "2001:db8:1:3::1"))
        #expect(TrustedProxies.limitKey(of: "203.0.113.9") == "203.0.113.9")
        #expect(TrustedProxies.limitKey(of: "unknown") == "unknown")
    }

    @Test(arguments: ["10.0.0.0/33", "example.com", "10.0.0.0/x", "::1/129"])
    func aBadEntryIsRefusedNamingIt(_ text: String) {
        #expect(throws: ConfigurationError.self) { try TrustedProxies(parsing: "127.0.0.1, \(text)") }
        do {
            _ = try TrustedProxies(parsing: text)
        } catch {
            #expect(error.description.contains(text))
        }
    }

    @Test
    func theConfigurationReadsTheListFromTheEnvironment() throws {
        let configuration = try ServerConfiguration(environment: ["FLAG_SERVER_TRUSTED_PROXIES": "10.0.0.0/8,::1"])
        #expect(configuration.delivery.trustedProxies.trusts("10.9.9.9"))
        #expect(configuration.delivery.trustedProxies.trusts("::1"))
        #expect(!configuration.delivery.trustedProxies.trusts("11.0.0.1"))
        #expect(try ServerConfiguration(environment: [:]).delivery.trustedProxies == .none)
        #expect(try ServerConfiguration(refetchesPerSecond: 0, environment: [:]).delivery.refetchesPerSecond == 0)
    }
}

struct RateLimiterTableTests {
    @Test
    func aFullTableForgetsTheLeastRecentlyUsedClientsNotTheOneBeingLimited() {
        let clock = ManualSeconds()
        let limiter = RateLimiter(perSecond: 0.001, burst: 1, maximumKeys: 8, now: { clock.value })
        for client in 0..<7 {
            clock.advance(by: 1)
            #expect(limiter.acquire("old-\(client)") == nil)
        }
        clock.advance(by: 1)
        #expect(limiter.acquire("busy") == nil)
        #expect(limiter.acquire("busy") != nil)
        // New clients fill the table past its size; the busy client stays limited.
        for client in 0..<100 {
            clock.advance(by: 0.001)
            #expect(limiter.acquire("new-\(client)") == nil)
            #expect(limiter.keyCount <= 8)
            if client < 6 { #expect(limiter.acquire("busy") != nil) }
        }
    }
}

extension RateLimiterTableTests {
    /// A sweep frees an eighth of the table at once, so the next sweeps wait for that many new
    /// clients instead of coming with every one.
    @Test
    func aSweepFreesAnEighthOfTheTable() {
        let clock = ManualSeconds()
        let limiter = RateLimiter(perSecond: 0.001, burst: 1, maximumKeys: 16, now: { clock.value })
        for client in 0..<16 {
            clock.advance(by: 1)
            _ = limiter.acquire("client-\(client)")
        }
        #expect(limiter.keyCount == 16)
        clock.advance(by: 1)
        _ = limiter.acquire("one-more")
        #expect(limiter.keyCount == 15)
        _ = limiter.acquire("and-another")
        #expect(limiter.keyCount == 16)
        // The oldest went first.
        #expect(limiter.acquire("client-15") != nil)
    }
}
