import AsyncHTTPClient
public import Foundation
public import Logging
import NIOCore
import NIOHTTP1
public import ServiceLifecycle
import Synchronization

/// Sends notifications to webhook endpoints (`Server/Docs/Webhooks.md`): a ``NotificationSink``
/// whose ``notify(_:)`` only appends to a bounded queue in memory, and a service, started with the
/// server, that stores what was queued as deliveries (one per endpoint that wants it) and sends the
/// due ones, signed, with retries.
///
/// A write therefore never waits for a receiver, nor for the database beyond its own commit. The
/// price: notifications queued in memory when the process dies (killed between a commit and the
/// next poll, about a second) are lost; the write itself is committed and audited. Once stored, a
/// delivery survives restarts and is sent by whichever server sharing the database claims it.
public final class WebhookDispatcher: NotificationSink, Service {
    let store: any WebhookStore
    public let options: WebhookOptions
    let now: @Sendable () -> Date
    let random: @Sendable () -> Double
    let logger: Logger

    private struct Queue {
        var notifications: [ServerNotification] = []
        var dropped = 0
    }

    private let queue = Mutex(Queue())

    /// - Parameters:
    ///   - random: A number in 0...1 for the jitter of retry pauses.
    public init(
        store: any WebhookStore, options: WebhookOptions = WebhookOptions(), now: @escaping @Sendable () -> Date = Date.init,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
        logger: Logger = Logger(label: "flag-server.webhooks")
    ) {
        self.store = store
        self.options = options
        self.now = now
        self.random = random
        self.logger = logger
    }

    /// Queues `notification` in memory and returns at once; past ``WebhookOptions/queueCapacity``
    /// it is dropped (and counted in the log).
    public func notify(_ notification: ServerNotification) {
        let accepted = queue.withLock { queue in
            guard queue.notifications.count < options.queueCapacity else {
                queue.dropped += 1
                return false
            }
            queue.notifications.append(notification)
            return true
        }
        if !accepted {
            logger.warning("webhook queue full; notification dropped", metadata: ["kind": "\(notification.kind)"])
        }
    }

    /// Notifications queued and not stored yet.
    public var queuedCount: Int { queue.withLock { $0.notifications.count } }

    /// Stores the queued notifications as deliveries to the endpoints that want them. When the
    /// store fails, they stay queued for the next round.
    ///
    /// - Returns: The deliveries stored.
    @discardableResult
    public func drain() async -> [WebhookDelivery] {
        let notifications = queue.withLock { queue in
            defer { queue.notifications = [] }
            return queue.notifications
        }
        guard !notifications.isEmpty else { return [] }
        do {
            let endpoints = try await store.webhookEndpoints()
            let time = now()
            var deliveries: [WebhookDelivery] = []
            for notification in notifications {
                let wanting = endpoints.filter { $0.wants(notification) }
                guard !wanting.isEmpty, let body = WebhookPayload.body(of: notification) else { continue }
                for endpoint in wanting {
                    deliveries.append(WebhookDelivery(endpoint: endpoint.id, kind: notification.kind.rawValue, body: body, at: time))
                }
            }
            try await store.insertWebhookDeliveries(deliveries)
            return deliveries
        } catch {
            queue.withLock { queue in
                let room = max(0, options.queueCapacity - queue.notifications.count)
                queue.dropped += max(0, notifications.count - room)
                queue.notifications = Array(notifications.prefix(room)) + queue.notifications
            }
            logger.warning("storing webhook deliveries failed; kept queued", metadata: ["error": "\(error)"])
            return []
        }
    }

    /// Claims the due deliveries and attempts each (at most ``WebhookOptions/batchSize`` at once),
    /// recording every attempt.
    ///
    /// - Parameter client: The HTTP client; `nil` makes one for this round.
    /// - Returns: The deliveries as recorded after their attempts.
    @discardableResult
    func deliverDue(client: HTTPClient? = nil) async -> [WebhookDelivery] {
        let time = now()
        let claimed: [WebhookDelivery]
        let endpoints: [String: WebhookEndpoint]
        do {
            claimed = try await store.claimWebhookDeliveries(
                dueAt: time, leaseUntil: time.addingTimeInterval(options.claimLease), limit: options.batchSize)
            guard !claimed.isEmpty else { return [] }
            let all = try await store.webhookEndpoints()
            endpoints = Dictionary(all.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        } catch {
            logger.warning("reading due webhook deliveries failed", metadata: ["error": "\(error)"])
            return []
        }
        let http = client ?? Self.makeClient()
        let results = await withTaskGroup(of: WebhookDelivery.self) { group in
            for delivery in claimed {
                group.addTask { await self.attempt(delivery, to: endpoints[delivery.endpoint], client: http) }
            }
            var results: [WebhookDelivery] = []
            for await result in group { results.append(result) }
            return results
        }
        if client == nil { try? await http.shutdown() }
        for delivery in results {
            do { try await store.updateWebhookDelivery(delivery) } catch {
                // Its endpoint was deleted meanwhile (its deliveries with it), or the database went
                // away: the lease runs out and the delivery is attempted again.
                logger.notice("recording a webhook attempt failed", metadata: ["delivery": "\(delivery.id)", "error": "\(error)"])
            }
        }
        return results
    }

    /// One attempt of `delivery`, and the delivery as it stands after it.
    func attempt(_ delivery: WebhookDelivery, to endpoint: WebhookEndpoint?, client: HTTPClient) async -> WebhookDelivery {
        var delivery = delivery
        let started = now()
        let clock = ContinuousClock.now
        var statusCode: Int?
        var failure: String?
        if let endpoint, endpoint.enabled {
            if let problem = options.problem(url: endpoint.url) {
                failure = "refused: " + problem
            } else if let problem = await options.problem(resolving: endpoint.url) {
                failure = "refused: " + problem
            } else {
                (statusCode, failure) = await send(delivery, to: endpoint, client: client)
            }
        } else {
            failure = endpoint == nil ? "the endpoint was deleted" : "the endpoint is disabled"
        }
        let elapsed = ContinuousClock.now - clock
        let milliseconds = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        delivery.attempts.append(.init(time: started, statusCode: statusCode, error: failure, milliseconds: milliseconds))
        if delivery.attempts.count > WebhookDelivery.maximumLoggedAttempts {
            delivery.attempts.removeFirst(delivery.attempts.count - WebhookDelivery.maximumLoggedAttempts)
        }
        delivery.attemptCount += 1
        let finished = now()
        delivery.updatedAt = finished
        if let statusCode, (200..<300).contains(statusCode) {
            delivery.status = .delivered
            delivery.nextAttemptAt = nil
        } else if endpoint?.enabled != true || delivery.attemptCount >= options.maximumAttempts {
            delivery.status = .failed
            delivery.nextAttemptAt = nil
            logger.notice(
                "webhook delivery failed for good",
                metadata: ["delivery": "\(delivery.id)", "endpoint": "\(delivery.endpoint)", "attempts": "\(delivery.attemptCount)"])
        } else {
            delivery.status = .pending
            delivery.nextAttemptAt = finished.addingTimeInterval(options.retryDelay(afterAttempt: delivery.attemptCount, random: random()))
        }
        return delivery
    }

    /// Posts `delivery` to `endpoint`: its status code, or why there is none. Reads at most
    /// ``WebhookOptions/maximumResponseBytes`` of the answer (and keeps none), all within
    /// ``WebhookOptions/requestTimeout``.
    private func send(_ delivery: WebhookDelivery, to endpoint: WebhookEndpoint, client: HTTPClient) async -> (Int?, String?) {
        let timestamp = Int(now().timeIntervalSince1970)
        var request = HTTPClientRequest(url: endpoint.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "flag-server/\(FlagServer.version)")
        request.headers.add(name: "Webhook-Id", value: delivery.id)
        request.headers.add(name: "Webhook-Timestamp", value: String(timestamp))
        request.headers.add(name: "Webhook-Signature", value: WebhookSignature.header(secret: endpoint.secret, timestamp: timestamp, body: delivery.body))
        request.body = .bytes(ByteBuffer(string: delivery.body))
        let timeout = options.requestTimeout
        let limit = options.maximumResponseBytes
        let prepared = request
        do {
            let status = try await withThrowingTaskGroup(of: Int.self) { group in
                group.addTask {
                    let response = try await client.execute(prepared, timeout: .milliseconds(Int64(timeout / .milliseconds(1))))
                    var read = 0
                    for try await chunk in response.body {
                        read += chunk.readableBytes
                        if read >= limit { break }
                    }
                    return Int(response.status.code)
                }
                group.addTask {
                    // On purpose: the deadline of the whole exchange (cancelled when it ends first).
                    try await Task.sleep(for: timeout)
                    throw HTTPClientError.deadlineExceeded
                }
                defer { group.cancelAll() }
                guard let first = try await group.next() else { throw CancellationError() }
                return first
            }
            return (status, (200..<300).contains(status) ? nil : "answered \(status)")
        } catch let error as HTTPClientError {
            if error == .deadlineExceeded { return (nil, "no answer within \(timeout)") }
            // AsyncHTTPClient's errors name what happened, not the request.
            return (nil, "\(error)")
        } catch {
            // The type only: another error's description might quote the URL.
            return (nil, "the request failed (\(type(of: error)))")
        }
    }

    /// A client that never follows redirects (a 3xx is a failed attempt) and connects within the
    /// request timeout.
    static func makeClient() -> HTTPClient {
        HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5))))
    }

    /// Stores queued notifications and sends due deliveries every ``WebhookOptions/pollInterval``
    /// until the server shuts down (storing what is queued then); prunes the log hourly.
    public func run() async throws {
        let client = Self.makeClient()
        await cancelWhenGracefulShutdown {
            var lastPrune: Date?
            while !Task.isCancelled {
                await self.drain()
                // Every due delivery, batch after batch.
                while !Task.isCancelled {
                    let attempted = await self.deliverDue(client: client)
                    if attempted.isEmpty { break }
                }
                let time = self.now()
                if lastPrune.map({ time.timeIntervalSince($0) > 3600 }) ?? true {
                    lastPrune = time
                    do {
                        try await self.store.deleteWebhookDeliveries(finishedBefore: time.addingTimeInterval(-self.options.retention))
                    } catch {
                        self.logger.notice("pruning the webhook log failed", metadata: ["error": "\(error)"])
                    }
                }
                do { try await Task.sleep(for: self.options.pollInterval) } catch { break }
            }
        }
        await drain()
        try? await client.shutdown()
    }
}
