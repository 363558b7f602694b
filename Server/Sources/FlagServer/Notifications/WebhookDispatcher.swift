import AsyncHTTPClient
import FlagServerModel
public import Foundation
public import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
public import ServiceLifecycle
import Synchronization

/// Sends notifications to webhook endpoints (`Server/Docs/Webhooks.md`): a ``NotificationSink``
/// whose ``notify(_:)`` only appends to a bounded queue in memory, and a service, started with the
/// server, that sends the due deliveries, signed, with retries.
///
/// **The outbox.** Queued notifications become stored deliveries (one per endpoint that wants
/// each) in one of two ways: a request that changed something stores them before it is answered
/// (``persistQueued()``, called by ``NotificationOutboxMiddleware``), so that a notification of a
/// change its caller was told of survives the process being killed; and the service stores what
/// the server's own actions (schedules, rollouts) queued on each round. A write never waits for a
/// receiver. Once stored, a delivery survives restarts and is sent by whichever server sharing
/// the database claims it.
///
/// **Per endpoint.** Each endpoint with due deliveries gets a worker of its own, which claims only
/// that endpoint's deliveries and attempts them, each attempt within
/// ``WebhookOptions/requestTimeout``; the service starts workers without waiting for running ones.
/// An endpoint that hangs therefore holds only its own worker: other endpoints' deliveries go on.
public final class WebhookDispatcher: NotificationSink, Service {
    let store: any WebhookStore
    /// Attempts, pauses, timeouts, queue size and log retention of the deliveries.
    public let options: WebhookOptions
    let now: @Sendable () -> Date
    let random: @Sendable () -> Double
    let logger: Logger

    private struct Queue {
        /// Oldest first; a notification's number orders it among all ever queued.
        var notifications: [(number: UInt64, notification: ServerNotification)] = []
        var lastNumber: UInt64 = 0
        /// The lowest number a running ``drain()`` took and is storing.
        var storingFrom: UInt64?
        var dropped = 0
    }

    private let queue = Mutex(Queue())
    /// One ``drain()`` at a time, so that ``persistQueued()`` can wait for the one storing its
    /// notifications.
    private let storing = AsyncLock()
    /// The endpoints whose worker runs (``run()``).
    private let busy = Mutex(Set<String>())

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
        let accepted = queue.withLock { queue -> UInt64? in
            guard queue.notifications.count < options.queueCapacity else {
                queue.dropped += 1
                return nil
            }
            queue.lastNumber += 1
            queue.notifications.append((queue.lastNumber, notification))
            return queue.lastNumber
        }
        if let accepted {
            Self.queuedByRequest?.note(accepted)
        } else {
            logger.warning("webhook queue full; notification dropped", metadata: ["kind": "\(notification.kind)"])
        }
    }

    /// Notifications queued and not stored yet.
    public var queuedCount: Int { queue.withLock { $0.notifications.count } }

    /// The notifications queued by the task that binds it (and its child tasks): a request,
    /// bound by ``NotificationOutboxMiddleware``, so that it waits for its own notifications only.
    final class RequestNotifications: Sendable {
        private let highest = Mutex<UInt64?>(nil)

        /// The number of the last notification queued, `nil` when none was.
        var last: UInt64? { highest.withLock { $0 } }

        func note(_ number: UInt64) { highest.withLock { $0 = max($0 ?? 0, number) } }
    }

    /// Where ``notify(_:)`` notes what it queued, when a request bound it.
    @TaskLocal static var queuedByRequest: RequestNotifications?

    /// Returns once every notification queued before the call (through `target`, when given: a
    /// request's last one) is stored as deliveries, by this call or by a ``drain()`` running
    /// already, or its storing failed (they stay queued for the service's next round, and the
    /// failure is logged). Returns at once when they are stored already.
    public func persistQueued(through target: UInt64? = nil) async {
        let target = target ?? queue.withLock { $0.lastNumber }
        func stored() -> Bool {
            queue.withLock { queue in
                (queue.notifications.first.map { $0.number > target } ?? true) && (queue.storingFrom.map { $0 > target } ?? true)
            }
        }
        if stored() { return }
        await storing.lock()
        defer { storing.unlock() }
        if stored() { return }
        _ = await drainTaken()
    }

    /// Stores the queued notifications as deliveries to the endpoints that want them. When the
    /// store fails, they stay queued for the next round.
    ///
    /// - Returns: The deliveries stored.
    @discardableResult
    public func drain() async -> [WebhookDelivery] {
        await storing.lock()
        defer { storing.unlock() }
        return await drainTaken()
    }

    /// ``drain()``, holding ``storing``.
    private func drainTaken() async -> [WebhookDelivery] {
        let taken = queue.withLock { queue in
            defer { queue.notifications = [] }
            queue.storingFrom = queue.notifications.first?.number
            return queue.notifications
        }
        guard !taken.isEmpty else { return [] }
        do {
            let endpoints = try await store.webhookEndpoints()
            let time = now()
            var deliveries: [WebhookDelivery] = []
            for (_, notification) in taken {
                let wanting = endpoints.filter { $0.wants(notification) }
                guard !wanting.isEmpty, let body = WebhookPayload.body(of: notification) else { continue }
                for endpoint in wanting {
                    deliveries.append(WebhookDelivery(endpoint: endpoint.id, kind: notification.kind.rawValue, body: body, at: time))
                }
            }
            try await store.insertWebhookDeliveries(deliveries)
            queue.withLock { $0.storingFrom = nil }
            return deliveries
        } catch {
            queue.withLock { queue in
                let room = max(0, options.queueCapacity - queue.notifications.count)
                queue.dropped += max(0, taken.count - room)
                queue.notifications = Array(taken.prefix(room)) + queue.notifications
                queue.storingFrom = nil
            }
            logger.warning("storing webhook deliveries failed; kept queued", metadata: ["error": "\(error)"])
            return []
        }
    }

    /// Attempts every due delivery, each endpoint's apart (``deliverDue(endpoint:)``, all at once),
    /// and returns when all are done: for tests and tools. The service starts the same workers
    /// without waiting for them.
    ///
    /// - Returns: The deliveries as recorded after their attempts.
    @discardableResult
    func deliverDue() async -> [WebhookDelivery] {
        let endpoints: [String]
        do { endpoints = try await store.endpointsWithDueWebhookDeliveries(at: now()) } catch {
            logger.warning("reading due webhook deliveries failed", metadata: ["error": "\(error)"])
            return []
        }
        return await withTaskGroup(of: [WebhookDelivery].self) { group in
            for endpoint in endpoints { group.addTask { await self.deliverDue(endpoint: endpoint) } }
            var results: [WebhookDelivery] = []
            for await batch in group { results += batch }
            return results
        }
    }

    /// One endpoint's worker: claims its due deliveries (at most ``WebhookOptions/batchSize`` at a
    /// time), attempts them at once and records each attempt as it ends, until none is due.
    ///
    /// - Returns: The deliveries as recorded after their attempts.
    func deliverDue(endpoint id: String) async -> [WebhookDelivery] {
        var results: [WebhookDelivery] = []
        while !Task.isCancelled {
            let time = now()
            let claimed: [WebhookDelivery]
            let endpoint: WebhookEndpoint?
            do {
                claimed = try await store.claimWebhookDeliveries(
                    endpoint: id, dueAt: time, leaseUntil: time.addingTimeInterval(options.claimLease), limit: options.batchSize)
                guard !claimed.isEmpty else { break }
                // Read again for every batch: a change of URL, or a disabled endpoint, holds at once.
                endpoint = try await store.webhookEndpoint(id: id)
            } catch {
                logger.warning("claiming due webhook deliveries failed", metadata: ["endpoint": "\(id)", "error": "\(error)"])
                break
            }
            results += await withTaskGroup(of: WebhookDelivery.self) { group in
                for delivery in claimed {
                    group.addTask {
                        let attempted = await self.attempt(delivery, to: endpoint)
                        // A server shutting down drops an unanswered attempt unrecorded: the lease
                        // runs out and the delivery is attempted again, without an attempt spent.
                        if !(Task.isCancelled && attempted.lastStatusCode == nil) { await self.record(attempted) }
                        return attempted
                    }
                }
                var batch: [WebhookDelivery] = []
                for await delivery in group { batch.append(delivery) }
                return batch
            }
        }
        return results
    }

    private func record(_ delivery: WebhookDelivery) async {
        do { try await store.updateWebhookDelivery(delivery) } catch {
            // Its endpoint was deleted meanwhile (its deliveries with it), or the database went
            // away: the lease runs out and the delivery is attempted again.
            logger.notice("recording a webhook attempt failed", metadata: ["delivery": "\(delivery.id)", "error": "\(error)"])
        }
    }

    /// One attempt of `delivery`, and the delivery as it stands after it.
    func attempt(_ delivery: WebhookDelivery, to endpoint: WebhookEndpoint?) async -> WebhookDelivery {
        var delivery = delivery
        let started = now()
        let clock = ContinuousClock.now
        var statusCode: Int?
        var failure: String?
        if let endpoint, endpoint.enabled {
            (statusCode, failure) = await withinDeadline { [delivery] in
                switch await self.options.target(of: endpoint.url) {
                case .refused(let problem): return (nil, "refused: " + problem)
                case .connect(let host, let addresses): return await self.send(delivery, to: endpoint, host: host, addresses: addresses)
                }
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

    /// `body`'s outcome, or "no answer" once ``WebhookOptions/requestTimeout`` has passed (and
    /// `body` is cancelled: its request is dropped).
    private func withinDeadline(_ body: @escaping @Sendable () async -> (Int?, String?)) async -> (Int?, String?) {
        let timeout = options.requestTimeout
        return await withTaskGroup(of: (Int?, String?)?.self) { group in
            group.addTask { await body() }
            group.addTask {
                // On purpose: the deadline of the whole attempt (cancelled when it ends first).
                do { try await Task.sleep(for: timeout) } catch { return nil }
                return (nil, "no answer within \(timeout)")
            }
            defer { group.cancelAll() }
            while let next = await group.next() {
                if let next { return next }
            }
            return (nil, "the attempt was cancelled")
        }
    }

    /// Posts `delivery` to `endpoint` through one of `addresses` (the checked addresses its host
    /// resolved to; the next one only when connecting to one fails): its status code, or why
    /// there is none. Reads at most ``WebhookOptions/maximumResponseBytes`` of the answer (and
    /// keeps none).
    private func send(_ delivery: WebhookDelivery, to endpoint: WebhookEndpoint, host: String, addresses: [IPAddress]) async -> (Int?, String?) {
        let timestamp = Int(now().timeIntervalSince1970)
        var request = HTTPClientRequest(url: endpoint.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "flag-server/\(FlagServer.version)")
        request.headers.add(name: "Webhook-Id", value: delivery.id)
        request.headers.add(name: "Webhook-Timestamp", value: String(timestamp))
        request.headers.add(name: "Webhook-Signature", value: WebhookSignature.header(secret: endpoint.secret, timestamp: timestamp, body: delivery.body))
        request.body = .bytes(ByteBuffer(string: delivery.body))
        let candidates = Array(addresses.prefix(Self.maximumAddressesPerAttempt))
        var outcome: (Int?, String?) = (nil, "url: \(host) has no address")
        for (index, address) in candidates.enumerated() {
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: Self.configuration(connecting: host, to: address))
            let result: Result<Int, any Error>
            do { result = .success(try await exchange(request, client: client)) } catch { result = .failure(error) }
            try? await client.shutdown()
            switch result {
            case .success(let status):
                return (status, (200..<300).contains(status) ? nil : "answered \(status)")
            case .failure(let error):
                outcome = (nil, Self.describe(error, address: address))
                // Nothing was sent through an address that could not be connected to: try the next.
                guard Self.isConnectionFailure(error), index + 1 < candidates.count else { return outcome }
            }
        }
        return outcome
    }

    /// The most resolved addresses one attempt tries to connect to.
    static let maximumAddressesPerAttempt = 4

    private func exchange(_ request: HTTPClientRequest, client: HTTPClient) async throws -> Int {
        let response = try await client.execute(request, timeout: .milliseconds(Int64(options.requestTimeout / .milliseconds(1))))
        var read = 0
        for try await chunk in response.body {
            read += chunk.readableBytes
            if read >= options.maximumResponseBytes { break }
        }
        return Int(response.status.code)
    }

    /// A client for one attempt: it connects to `address` for `host` (TLS still verifies the
    /// certificate for `host` and sends it as the server name) and resolves nothing itself, never
    /// follows redirects (a 3xx is a failed attempt), and connects within 5 seconds, once.
    static func configuration(connecting host: String, to address: IPAddress) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5)))
        // A failed connection fails the request at once (the next address is tried, or the
        // delivery's own retries take over) instead of being retried until the connect timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        // A zone (`fe80::1%eth0`) is no part of the address's text but is needed to connect; the
        // written literal is read as a number by `getaddrinfo`, without a DNS query.
        configuration.dnsOverride = [host: host.contains("%") && IPAddress(host) == address ? host : address.description]
        return configuration
    }

    /// Whether `error` says the connection was never made (so nothing was sent).
    static func isConnectionFailure(_ error: any Error) -> Bool {
        if let error = error as? HTTPClientError { return error == .connectTimeout }
        if let error = error as? IOError { return [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, EADDRNOTAVAIL].contains(error.errnoCode) }
        if let error = error as? ChannelError, case .connectTimeout = error { return true }
        return false
    }

    /// Why an attempt through `address` failed, without the URL (it may carry a token).
    static func describe(_ error: any Error, address: IPAddress) -> String {
        if isConnectionFailure(error) { return "could not connect to \(address) (\(error))" }
        // AsyncHTTPClient's errors name what happened, not the request.
        if let error = error as? HTTPClientError { return "\(error)" }
        // The type only: another error's description might quote the URL.
        return "the request failed (\(type(of: error)))"
    }

    /// Stores queued notifications and starts a worker for every endpoint with due deliveries and
    /// none running, every ``WebhookOptions/pollInterval``, until the server shuts down (storing
    /// what is queued then); prunes the log hourly.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { workers in
                var lastPrune: Date?
                while !Task.isCancelled {
                    await self.drain()
                    await self.startWorkers(in: &workers)
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
                workers.cancelAll()
            }
        }
        await drain()
    }

    /// Adds a worker to `workers` for each endpoint with due deliveries that has none running.
    private func startWorkers(in workers: inout DiscardingTaskGroup) async {
        let due: [String]
        do { due = try await store.endpointsWithDueWebhookDeliveries(at: now()) } catch {
            logger.warning("reading due webhook deliveries failed", metadata: ["error": "\(error)"])
            return
        }
        for endpoint in due where busy.withLock({ $0.insert(endpoint).inserted }) {
            workers.addTask {
                _ = await self.deliverDue(endpoint: endpoint)
                _ = self.busy.withLock { $0.remove(endpoint) }
            }
        }
    }
}
