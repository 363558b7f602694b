import Crypto
import FlagServerModel
import Foundation
import Synchronization

/// Short-lived, single-use credentials for the event stream, for browsers: `EventSource` cannot
/// send `Authorization`, and a long-lived token must not travel in a URL (it lands in access logs,
/// proxies and browser history).
///
/// A client token asks for a ticket with an authenticated `POST /ofrep/v1/events/tickets`; the
/// ticket opens one stream of that token's environment (`GET /ofrep/v1/events?ticket=…`) within
/// ``lifetime`` of being issued, once. Only its SHA-256 digest is kept, in this process's memory:
/// behind a load balancer, the ticket's `POST` and its stream must reach the same replica (most
/// balancers keep a client on one replica; else the stream answers 401 and the app asks again).
public final class StreamTickets: Sendable {
    struct Ticket {
        var tokenID: String
        var environment: String
        var expires: Double
    }

    /// How long a ticket may be redeemed after it was issued.
    public let lifetime: Double
    /// Most tickets outstanding at once: issuing past it drops the expired ones, then refuses.
    public let capacity: Int
    private let now: @Sendable () -> Double
    private let tickets = Mutex<[String: Ticket]>([:])

    /// - Parameter now: seconds on a monotonic clock; injected by tests.
    public init(
        lifetime: Double = 60, capacity: Int = 100_000, now: @escaping @Sendable () -> Double = RateLimiter.monotonicSeconds
    ) {
        self.lifetime = lifetime
        self.capacity = capacity
        self.now = now
    }

    /// A new ticket for `token`'s stream, or `nil` when ``capacity`` tickets are outstanding.
    func issue(for token: TokenRecord) -> String? {
        var generator = SystemRandomNumberGenerator()
        let secret = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        let ticket = "fst_" + secret
        let time = now()
        let stored = Ticket(tokenID: token.id, environment: token.environment, expires: time + lifetime)
        let issued = tickets.withLock { tickets -> Bool in
            if tickets.count >= capacity { tickets = tickets.filter { $0.value.expires > time } }
            guard tickets.count < capacity else { return false }
            tickets[Self.digest(of: ticket)] = stored
            return true
        }
        return issued ? ticket : nil
    }

    /// Redeems `ticket` (it cannot be used again): the id and environment of the token it was
    /// issued for, or `nil` when it is unknown, used or expired.
    func redeem(_ ticket: String) -> (tokenID: String, environment: String)? {
        let time = now()
        let found = tickets.withLock { $0.removeValue(forKey: Self.digest(of: ticket)) }
        guard let found, found.expires > time else { return nil }
        return (found.tokenID, found.environment)
    }

    /// The keys tickets are kept under: their digests (for tests).
    var storedKeys: [String] { tickets.withLock { Array($0.keys) } }

    static func digest(of ticket: String) -> String {
        SHA256.hash(data: Data(ticket.utf8)).lowercaseHex
    }
}
