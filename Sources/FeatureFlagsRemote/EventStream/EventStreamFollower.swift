import FeatureFlags
import Foundation
import Logging

/// Follows the server-sent-events stream an OFREP bulk response advertised, and asks the loader
/// to refetch when it says the values changed.
///
/// - It connects only to an `sse` stream on the environment's own origin, with the loader's
///   header fields (credentials included) and `Last-Event-ID` once the stream has set one.
/// - A `refetchEvaluation` event asks for a conditional refetch (with the `ETag`, and the
///   event's `etag` and `lastModified` as `flagConfigEtag` and `flagConfigLastModified`); events
///   that arrive while one runs are coalesced into one more (for the newest event). The loader
///   applies an event's `changes` instead when it can, and otherwise waits a random delay within
///   the event's `refetchSpreadMs` before refetching.
/// - A connection that ends or fails is reopened after a backoff (the loader's retry policy, at
///   least the stream's `retry:` and one second, and at least a `Retry-After`), growing while
///   connections keep failing; each reconnection asks for an unconditional refetch, as changes
///   may have been missed in between.
/// - In the background, the connection closes after the inactivity delay and reopens (with an
///   unconditional refetch) on return to the foreground.
/// - 401, 403 and 204 end following until the loader follows a stream again.
final class EventStreamFollower: Sendable {
    /// What a refetch is asked for.
    enum Refetch: Sendable, Hashable {
        /// An event said the values changed: a conditional request, with the event's
        /// `flagConfigEtag` / `flagConfigLastModified`.
        case changed(EventConfigurationMetadata)
        /// The stream (re)connected after a gap: an unconditional request.
        case reconnected
    }

    /// The loader's side: how to refetch, and where connection changes go.
    struct Handlers: Sendable {
        var refetch: @Sendable (Refetch) async -> Void
        var connectionChanged: @Sendable (Bool) -> Void
    }

    private struct Target: Sendable, Hashable {
        var url: URL
        var inactivityDelay: TimeInterval?
    }

    private struct State {
        var handlers: Handlers?
        var target: Target?
        var connection: Task<Void, Never>?
        /// Bumped whenever the connection task is replaced, so a stale one reports nothing.
        var generation: UInt64 = 0
        var lastEventID: String?
        var isConnected = false
        var inBackground = false
        var inactivityTimer: Task<Void, Never>?
        var pausedForInactivity = false
        /// Refetches and changes to apply, in order (at most ``maximumPending``).
        var pendingRefetches: [Refetch] = []
        var refetching = false
    }

    /// What one connection came to.
    private enum Outcome {
        /// The server refused or ended the stream for good (401, 403, 204).
        case refused(RemoteLoadError)
        /// The connection failed or ended; reconnect after a wait.
        case ended(deliveredEvents: Bool, retryAt: Date?, serverRetry: TimeInterval?)
    }

    /// The shortest wait before reconnecting, whatever the retry policy says (1 s).
    static let minimumReconnectDelay: TimeInterval = 1
    /// A connection open this long (30 s) or delivering an event counts as working: the
    /// backoff starts over.
    static let stableConnection: TimeInterval = 30
    /// How long the transport may see no bytes on an open stream before giving up (1 hour).
    static let idleTimeout: TimeInterval = 3_600
    /// The longest `Last-Event-ID` sent back (1 KiB); a longer one is not sent.
    static let maximumLastEventIDLength = 1_024
    /// The most events waiting while a refetch runs (16): past it, they become one refetch.
    static let maximumPending = 16

    private let transport: any HTTPTransport
    private let clock: any RefreshClock
    private let configuration: RemoteConfigurationLoader.Configuration
    private let logger: Logger
    private let parserLimits: ServerSentEventParser.Limits
    private let state = Locked(State())

    init(
        configuration: RemoteConfigurationLoader.Configuration, transport: any HTTPTransport, clock: any RefreshClock,
        logger: Logger, parserLimits: ServerSentEventParser.Limits = .init()
    ) {
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        self.logger = logger
        self.parserLimits = parserLimits
    }

    /// Sets where refetch requests and connection changes go.
    func setHandlers(_ handlers: Handlers) {
        state.withLock { $0.handlers = handlers }
    }

    /// Whether a stream is connected now.
    var isConnected: Bool { state.withLock { $0.isConnected } }

    /// The stream's state for the debug menu: `connected`, `connecting` (or waiting to
    /// reconnect), `closed while inactive`; `nil` when no stream is followed.
    var stateName: String? {
        state.withLock { state in
            guard state.target != nil else { return nil }
            if state.isConnected { return "connected" }
            if state.pausedForInactivity { return "closed while inactive" }
            return state.connection == nil ? nil : "connecting"
        }
    }

    /// The `Last-Event-ID` the next connection sends.
    var lastEventID: String? { state.withLock { $0.lastEventID } }

    // MARK: - Following

    /// Follows the first `sse` stream of `streams` (keeping the connection when it is the one
    /// already followed), or disconnects when there is none or it is refused.
    ///
    /// - Parameter refetchOnConnect: Whether the first connection asks for a refetch too (the
    ///   values came from the cache, not from the response that advertised the stream).
    func follow(_ streams: [RemoteEventStream], baseURL: URL, refetchOnConnect: Bool) {
        guard let stream = streams.first(where: \.isServerSentEvents) else {
            disconnect()
            return
        }
        let url: URL
        switch stream.resolvedURL(relativeTo: baseURL) {
        case .failure(let error):
            logger.warning(
                "Not following the advertised event stream",
                metadata: ["environment": "\(configuration.environment)", "reason": "\(error.message)"])
            disconnect()
            return
        case .success(let resolved):
            url = resolved
        }
        let target = Target(url: url, inactivityDelay: stream.inactivityDelay)
        let replaced = state.withLock { state -> Bool in
            if state.target == target, state.connection != nil || state.pausedForInactivity { return false }
            if state.target?.url != url { state.lastEventID = nil }
            state.target = target
            if state.pausedForInactivity { return false }
            start(target, refetchOnConnect: refetchOnConnect, in: &state)
            // Followed while the app is in the background: the inactivity delay applies too.
            if state.inBackground, state.inactivityTimer == nil { startInactivityTimer(for: target, in: &state) }
            return true
        }
        if replaced {
            logger.debug("Following the advertised event stream", metadata: ["environment": "\(configuration.environment)"])
        }
    }

    /// Closes the connection and forgets the stream.
    func disconnect() {
        let (wasConnected, handlers) = state.withLock { state in
            state.connection?.cancel()
            state.connection = nil
            state.inactivityTimer?.cancel()
            state.inactivityTimer = nil
            state.generation += 1
            state.target = nil
            state.pausedForInactivity = false
            defer { state.isConnected = false }
            return (state.isConnected, state.handlers)
        }
        if wasConnected { handlers?.connectionChanged(false) }
    }

    // MARK: - Activity

    /// The app went to the background: the connection closes after the inactivity delay
    /// (the configuration's, else the server's, else 120 s).
    func enterBackground() {
        state.withLock { state in
            guard !state.inBackground else { return }
            state.inBackground = true
            guard let target = state.target else { return }
            startInactivityTimer(for: target, in: &state)
        }
    }

    private func startInactivityTimer(for target: Target, in state: inout State) {
        let delay = RemoteDurationLimits.clamp(
            configuration.eventStreamInactivityDelay ?? target.inactivityDelay ?? RemoteEventStream.defaultInactivityDelay,
            to: RemoteDurationLimits.inactivityDelay)
        let clock = self.clock
        let deadline = clock.now.addingTimeInterval(delay)
        state.inactivityTimer?.cancel()
        state.inactivityTimer = Task { [weak self] in
            do {
                try await clock.sleep(until: deadline)
            } catch {
                return
            }
            self?.pauseForInactivity()
        }
    }

    /// The app returned to the foreground: a connection closed for inactivity reopens, with an
    /// unconditional refetch once connected.
    func enterForeground() {
        let reopened = state.withLock { state -> Bool in
            state.inBackground = false
            state.inactivityTimer?.cancel()
            state.inactivityTimer = nil
            guard state.pausedForInactivity, let target = state.target else { return false }
            state.pausedForInactivity = false
            start(target, refetchOnConnect: true, in: &state)
            return true
        }
        if reopened {
            logger.info("Reopening the event stream in the foreground", metadata: ["environment": "\(configuration.environment)"])
        }
    }

    private func pauseForInactivity() {
        let (paused, wasConnected, handlers) = state.withLock { state -> (Bool, Bool, Handlers?) in
            guard state.inBackground, state.target != nil, !state.pausedForInactivity else { return (false, false, nil) }
            state.connection?.cancel()
            state.connection = nil
            state.generation += 1
            state.pausedForInactivity = true
            defer { state.isConnected = false }
            return (true, state.isConnected, state.handlers)
        }
        if paused {
            logger.info("Closed the event stream while the app is inactive", metadata: ["environment": "\(configuration.environment)"])
        }
        if wasConnected { handlers?.connectionChanged(false) }
    }

    // MARK: - Connections

    private func start(_ target: Target, refetchOnConnect: Bool, in state: inout State) {
        state.connection?.cancel()
        state.generation += 1
        let generation = state.generation
        state.connection = Task {
            await self.run(target, generation: generation, refetchOnConnect: refetchOnConnect)
        }
    }

    /// Connects, reads, and reconnects after a backoff until cancelled or refused.
    private func run(_ target: Target, generation: UInt64, refetchOnConnect: Bool) async {
        var failures = 0
        var refetchOnConnect = refetchOnConnect
        while !Task.isCancelled {
            let openedAt = clock.now
            let outcome = await connect(target, generation: generation, refetchOnConnect: refetchOnConnect)
            setConnected(false, generation: generation)
            guard !Task.isCancelled else { return }
            refetchOnConnect = true
            switch outcome {
            case .refused(let error):
                logger.warning(
                    "The event stream was refused; following it stopped (polling by TTL goes on)",
                    metadata: [
                        "environment": "\(configuration.environment)", "status": "\(error.statusCode.map(String.init) ?? "-")",
                    ])
                state.withLock { state in
                    if state.generation == generation { state.connection = nil }
                }
                return
            case .ended(let deliveredEvents, let retryAt, let serverRetry):
                let now = clock.now
                if deliveredEvents || now.timeIntervalSince(openedAt) >= Self.stableConnection { failures = 0 }
                failures += 1
                let delay = max(
                    configuration.retryPolicy.delay(afterFailures: failures), serverRetry ?? 0, Self.minimumReconnectDelay)
                let wake = max(now.addingTimeInterval(delay), retryAt ?? now)
                logger.debug(
                    "The event stream ended; reconnecting",
                    metadata: [
                        "environment": "\(configuration.environment)", "failures": "\(failures)",
                        "inSeconds": "\(Int(wake.timeIntervalSince(now).rounded(.up)))",
                    ])
                do {
                    try await clock.sleep(until: wake)
                } catch {
                    return
                }
            }
        }
    }

    private func connect(_ target: Target, generation: UInt64, refetchOnConnect: Bool) async -> Outcome {
        let request = makeRequest(target.url)
        let response: RemoteHTTPStreamingResponse
        do {
            let transport = self.transport
            response = try await Timeout.run(seconds: configuration.requestTimeout, clock: clock) {
                try await transport.send(request)
            }
        } catch {
            logger.debug("The event stream connection failed", metadata: ["environment": "\(configuration.environment)"])
            return .ended(deliveredEvents: false, retryAt: nil, serverRetry: nil)
        }
        let status = response.statusCode
        let contentType = response.value(forHeaderField: "Content-Type")?.lowercased() ?? ""
        switch status {
        case 200..<300 where status != 204 && contentType.hasPrefix("text/event-stream"):
            break
        case 204:
            return .refused(
                RemoteLoadError(.eventStreamRefused, statusCode: status, message: "The server ended the event stream (204)."))
        case 401, 403:
            return .refused(
                RemoteLoadError(.unauthorized, statusCode: status, message: "The server refused the event stream (\(status))."))
        case 429:
            let retryAt = response.value(forHeaderField: "Retry-After").flatMap { RetryAfter.date(from: $0, now: clock.now) }
            return .ended(deliveredEvents: false, retryAt: retryAt, serverRetry: nil)
        default:
            logger.debug(
                "The event stream answered with something else than an event stream",
                metadata: ["environment": "\(configuration.environment)", "status": "\(status)"])
            return .ended(deliveredEvents: false, retryAt: nil, serverRetry: nil)
        }

        setConnected(true, generation: generation)
        if refetchOnConnect { requestRefetch(.reconnected) }
        var parser = ServerSentEventParser(limits: parserLimits)
        var delivered = false
        do {
            for try await chunk in response.body {
                let events = try parser.parse(chunk)
                let id = parser.lastEventID
                state.withLock { state in
                    guard state.generation == generation, !id.isEmpty else { return }
                    state.lastEventID = id.utf8.count <= Self.maximumLastEventIDLength ? id : nil
                }
                for event in events {
                    delivered = true
                    handle(event)
                }
            }
        } catch let error as ServerSentEventParseError {
            logger.warning(
                "The event stream sent something unreadable; reconnecting",
                metadata: ["environment": "\(configuration.environment)", "reason": "\(error)"])
        } catch {
            logger.debug("The event stream broke off", metadata: ["environment": "\(configuration.environment)"])
        }
        parser.finish()
        let serverRetry = parser.retry.map {
            RemoteDurationLimits.clamp(Double($0) / 1000, to: RemoteDurationLimits.backoff)
        }
        return .ended(deliveredEvents: delivered, retryAt: nil, serverRetry: serverRetry)
    }

    func makeRequest(_ url: URL) -> RemoteHTTPRequest {
        var headers = configuration.headerFields
        headers["Accept"] = "text/event-stream"
        headers["Cache-Control"] = "no-cache"
        headers["User-Agent"] = configuration.environment.userAgent
        if let lastEventID { headers["Last-Event-ID"] = lastEventID }
        return RemoteHTTPRequest(method: .get, url: url, headerFields: headers, timeout: Self.idleTimeout)
    }

    /// An OFREP event: `refetchEvaluation` asks for a refetch; other types are ignored.
    private func handle(_ event: ServerSentEvent) {
        guard case .object(let members)? = try? FlagValue(jsonData: Data(event.data.utf8)),
            case .string(let type)? = members["type"]
        else {
            logger.warning(
                "Ignored an event stream message that is not an OFREP event (a JSON object with a 'type')",
                metadata: ["environment": "\(configuration.environment)"])
            return
        }
        guard type == "refetchEvaluation" else {
            logger.debug("Ignored an event of an unknown type", metadata: ["type": "\(type.prefix(64))"])
            return
        }
        requestRefetch(.changed(EventConfigurationMetadata(event: members)))
    }

    private func setConnected(_ connected: Bool, generation: UInt64) {
        let handlers = state.withLock { state -> Handlers? in
            guard state.generation == generation, state.isConnected != connected else { return nil }
            state.isConnected = connected
            return state.handlers
        }
        handlers?.connectionChanged(connected)
    }

    // MARK: - Refetching

    /// Asks for a refetch: at once when none runs, otherwise one more after it (an
    /// unconditional request wins over a conditional one). Events that carry changes wait in
    /// order, as each applies to the one before; a refetch replaces what waits before it.
    func requestRefetch(_ kind: Refetch) {
        let start = state.withLock { state -> Bool in
            state.pendingRefetches = Self.enqueue(kind, after: state.pendingRefetches)
            guard !state.refetching else { return false }
            state.refetching = true
            return true
        }
        guard start else { return }
        Task { await self.drainRefetches() }
    }

    private func drainRefetches() async {
        while true {
            let next = state.withLock { state -> (Refetch, Handlers?)? in
                guard !state.pendingRefetches.isEmpty else {
                    state.refetching = false
                    return nil
                }
                return (state.pendingRefetches.removeFirst(), state.handlers)
            }
            guard let (kind, handlers) = next else { return }
            await handlers?.refetch(kind)
        }
    }

    /// `pending` with `kind` added: a reconnection's refetch replaces everything (it asks for
    /// all), an event without changes replaces every event waiting (its refetch brings them
    /// all), an event with changes waits after the others; past ``maximumPending``, the newest
    /// event as a plain refetch.
    static func enqueue(_ kind: Refetch, after pending: [Refetch]) -> [Refetch] {
        let reconnect: [Refetch] = pending.first == .reconnected ? [.reconnected] : []
        switch kind {
        case .reconnected:
            return [.reconnected]
        case .changed(let event) where event.changes == nil:
            return reconnect.isEmpty ? [kind] : reconnect
        case .changed(var event):
            guard pending.count < maximumPending else {
                event.changes = nil
                return reconnect + [.changed(event)]
            }
            return pending + [kind]
        }
    }
}
