import FeatureFlags
import Foundation
import Logging
import Observation

/// Loads flag and configuration values from an `app_config` backend or an OFREP server, keeps
/// them in an on-disk cache, refreshes them, and feeds them to ``FeatureFlagManager`` as its remote
/// provider.
///
/// ```swift
/// let registry = try FlagRegistry(AppFlag.self)  // built once, shared with the flags
/// let loader = RemoteConfigurationLoader(
///     configuration: .init(environment: environment, source: .appConfig, cacheDirectory: cachesDirectory),
///     registry: registry)
/// let flags = FeatureFlagManager<AppFlag>(
///     FlagSetup(buildConfiguration: .current, remoteProvider: loader), registry: registry)
/// // On every return to the foreground, and on leaving it:
/// loader.applicationWillEnterForeground()
/// loader.applicationDidEnterBackground()
/// ```
///
/// Launch never waits for the network: ``cachedFlags()`` reads the cache synchronously, and a
/// refresh runs in the background when the cache is past its time to live. When an OFREP
/// response advertises an event stream, the loader follows it and refetches on each change. See
/// <doc:RemoteConfiguration> for the wire formats and the behaviour under every failure.
public final class RemoteConfigurationLoader: RemoteFlagProvider {
    /// The configuration.
    public let configuration: Configuration
    /// The registry payloads are validated against.
    public let registry: FlagRegistry
    /// The cache file, when there is a cache directory.
    public var cacheFile: RemoteCacheFile? { cache.file }

    private let fetcher: RemoteFetcher
    let clock: any RefreshClock
    let logger: Logger
    let cache: RemoteCacheStore
    let state = Locked(State())
    let publisher = RemoteSnapshotPublisher()
    /// Tells Observation of snapshot changes, for the debug menu (see `debugRemoteStatus`).
    let debugStatusObservation = ObservationRegistrar()
    let scheduler: RefreshScheduler
    /// The server's change-notification stream, when a bulk response advertises one.
    let eventStream: EventStreamFollower
    /// Held while the cache file is read once, so that concurrent first reads wait for it.
    private let cacheReadGate = Locked(false)

    struct State {
        var entry: RemoteCacheEntry?
        var snapshot = RemoteConfigurationSnapshot()
        var failures = 0
        /// The server's `Retry-After`: nothing is sent before it, whoever asks.
        var notBefore: Date?
        /// The end of the backoff after a failure: only the retry timer, or one user-initiated
        /// refresh per backoff step, sends before it.
        var retryAt: Date?
        /// Whether a user-initiated refresh already skipped the wait in this backoff step.
        var userSkippedWait = false
        var stopped = false
        var inFlight: Task<FetchOutcome, Never>?
        var decodeCount = 0
        /// The event streams the cached payload advertised, followed once launch uses it.
        var cachedEventStreams: [RemoteEventStream] = []
        /// Whether a `Retry-After` moment may be on disk (this launch wrote it, or read it).
        var hasPersistedNotBefore = false
    }

    enum FetchOutcome: Sendable {
        case updated(RemoteFlagValues)
        case notModified(RemoteFlagValues)
        case failed(RemoteLoadError, hasValues: Bool, values: RemoteFlagValues)
    }

    /// Creates a loader. Nothing is read or requested until the loader is used.
    ///
    /// - Parameters:
    ///   - transport: How requests are sent; `URLSession` by default.
    ///   - clock: Wall time and sleeping; inject a manual clock in tests.
    public init(
        configuration: Configuration,
        registry: FlagRegistry,
        transport: any HTTPTransport = URLSessionTransport(),
        clock: any RefreshClock = SystemRefreshClock(),
        logger: Logger = Logger(label: "feature-flags.remote")
    ) {
        self.configuration = configuration
        self.registry = registry
        self.fetcher = RemoteFetcher(configuration: configuration, transport: transport, clock: clock)
        self.clock = clock
        self.logger = logger
        self.scheduler = RefreshScheduler(clock: clock)
        self.cache = RemoteCacheStore(configuration: configuration, logger: logger)
        self.eventStream = EventStreamFollower(
            configuration: configuration, transport: transport, clock: clock, logger: logger)
        eventStream.setHandlers(
            .init(
                refetch: { [weak self] kind in await self?.refetch(for: kind) },
                connectionChanged: { [weak self] connected in self?.mutate { $0.snapshot.isEventStreamConnected = connected } }
            ))
    }

    deinit {
        eventStream.disconnect()
        scheduler.cancel()
        state.withLock { $0.inFlight }?.cancel()
        publisher.finishAll()
    }

    // MARK: - State

    /// Everything the loader holds now.
    public var snapshot: RemoteConfigurationSnapshot { state.withLock { $0.snapshot } }

    /// The status now.
    public var status: RemoteStatus { state.withLock { $0.snapshot.status } }

    /// How many payloads were decoded (fetched ones and the cache), for tests and benchmarks
    /// that check a 304 decodes nothing.
    package var decodeCount: Int { state.withLock { $0.decodeCount } }

    /// Snapshots: the current one first, then one per change (values, status, schedule).
    /// Slow consumers see the newest.
    public func snapshots() -> AsyncStream<RemoteConfigurationSnapshot> {
        state.withLock { publisher.snapshots(current: $0.snapshot) }
    }

    /// Status events: the current status first, then one per change.
    public func statusUpdates() -> AsyncStream<RemoteStatus> {
        state.withLock { publisher.statuses(current: $0.snapshot.status) }
    }

    // MARK: - RemoteFlagProvider

    /// The cached values, read synchronously from disk the first time (`CACHED`, or `STALE`
    /// past their TTL); `nil` when there is no usable cache. A corrupt file is moved aside and
    /// reported in ``RemoteConfigurationSnapshot/cacheProblem``.
    public func cachedFlags() -> RemoteFlagValues? {
        readCacheIfNeeded()
        return state.withLock { $0.entry == nil ? nil : $0.snapshot.values }
    }

    /// Launch: the cached values while they are fresh (the next refresh is scheduled for their
    /// expiry); otherwise a request. When the request fails, the cached values if any;
    /// otherwise it throws and the build defaults stay.
    public func loadFlags() async throws -> RemoteFlagValues {
        readCacheIfNeeded()
        let now = clock.now
        let fresh = state.withLock { state -> (Date, RemoteFlagValues, [RemoteEventStream])? in
            guard let entry = state.entry, !entry.isExpired(at: now) else { return nil }
            return (max(entry.expiresAt, state.notBefore ?? entry.expiresAt), state.snapshot.values, state.cachedEventStreams)
        }
        if let (next, values, streams) = fresh {
            schedule(at: next)
            // The cached values may be behind: the stream's first connection refetches.
            followEventStreams(streams, refetchOnConnect: true)
            return values
        }
        switch await fetch(.launch) {
        case .updated(let values), .notModified(let values): return values
        case .failed(let error, let hasValues, let values):
            if hasValues { return values }
            throw error
        }
    }

    /// A refresh the app asks for (``RemoteRefreshReason/automatic``): requests now, unless
    /// refreshing has stopped (401/403), the server asked to wait (429), or the loader is
    /// backing off after a failure. A 304 returns the values in effect.
    ///
    /// - Throws: ``RemoteLoadError`` when no new values could be had (`backingOff` when the
    ///   request was not sent); the last good ones stay.
    public func refresh() async throws -> RemoteFlagValues {
        try await refresh(reason: .automatic)
    }

    /// A refresh for `reason`. A person's explicit request (``RemoteRefreshReason/userInitiated``,
    /// pull to refresh) may skip the backoff wait once per backoff step; nothing skips a
    /// `Retry-After` or a stop.
    ///
    /// ```swift
    /// .refreshable { _ = try? await loader.refresh(reason: .userInitiated) }
    /// ```
    ///
    /// - Throws: ``RemoteLoadError`` when no new values could be had; the last good ones stay.
    public func refresh(reason: RemoteRefreshReason) async throws -> RemoteFlagValues {
        readCacheIfNeeded()
        switch await fetch(reason == .userInitiated ? .userInitiated : .manual) {
        case .updated(let values), .notModified(let values): return values
        case .failed(let error, _, _): throw error
        }
    }

    /// Values from background refreshes (TTL expiry, retries, foreground), for the manager.
    public func updates() -> AsyncStream<RemoteFlagValues> {
        publisher.values()
    }

    // MARK: - Triggers

    /// Call when the app returns to the foreground: refreshes in the background when the values
    /// are past their TTL, nothing was loaded yet, or a retry is due, and never inside a
    /// backoff or `Retry-After` wait. Returns at once.
    ///
    /// An event stream closed while the app was inactive reopens, and refetches once connected.
    @discardableResult
    public func applicationWillEnterForeground() -> Task<Void, Never> {
        eventStream.enterForeground()
        return Task { await self.refreshIfNeeded(.foreground) }
    }

    /// Call when the app goes to the background: the event stream closes after its inactivity
    /// delay (``Configuration/eventStreamInactivityDelay``, else the server's, else 120 s) and
    /// reopens on ``applicationWillEnterForeground()``.
    public func applicationDidEnterBackground() {
        eventStream.enterBackground()
    }

    /// Refreshes when the values are past their TTL, nothing was loaded yet, or a retry is
    /// due, and not while stopped, asked to wait (429) or backing off after a failure. New
    /// values reach ``updates()``.
    public func refreshIfNeeded(_ trigger: RefreshTrigger = .foreground) async {
        readCacheIfNeeded()
        let now = clock.now
        let due = state.withLock { state -> Bool in
            if state.stopped { return false }
            if let notBefore = state.notBefore, now < notBefore { return false }
            if let retryAt = state.retryAt, now < retryAt { return false }
            guard let entry = state.entry else { return true }
            return state.failures > 0 || entry.isExpired(at: now)
        }
        if due { _ = await fetch(trigger) }
    }

    /// Starts refreshing again after a 401 or 403 stopped it (the user signed in again, the
    /// app's credentials were renewed), with an immediate request.
    public func resumeRefreshing() async {
        state.withLock { state in
            state.stopped = false
            state.failures = 0
            state.retryAt = nil
            state.userSkippedWait = false
        }
        _ = await fetch(.manual)
    }

    // MARK: - Cache

    private func readCacheIfNeeded() {
        cacheReadGate.withLock { done in
            guard !done else { return }
            done = true
            let now = clock.now
            // A Retry-After from an earlier launch still holds, whether or not anything was cached.
            if let notBefore = cache.loadNotBefore(now: now) {
                mutate { state in
                    state.notBefore = notBefore
                    state.hasPersistedNotBefore = true
                    state.snapshot.nextRefreshAt = notBefore
                }
            }
            switch cache.load(now: now, decode: decode) {
            case .nothing:
                return
            case .problem(let reason):
                mutate { $0.snapshot.cacheProblem = reason }
            case .entry(let entry, let decoded):
                let expired = entry.isExpired(at: now)
                let reason: FlagReason = expired ? .stale : .cached
                let values = RemoteFlagValues(
                    decoded.values.mapValues { RemoteFlagValue($0.value, variant: $0.variant, reason: reason) },
                    source: "cache", unit: servedUnit, revision: entry.etag)
                logger.info(
                    "Loaded remote configuration from the cache",
                    metadata: ["environment": "\(configuration.environment)", "state": "\(expired ? "stale" : "fresh")"])
                mutate { state in
                    state.entry = entry
                    state.snapshot.values = values
                    state.snapshot.status = expired ? .stale : .ready
                    let listed = RemoteConfigurationSnapshot(ignored: decoded.ignored)
                    state.snapshot.ignored = listed.ignored
                    state.snapshot.ignoredCount = listed.ignoredCount
                    state.snapshot.fetchedAt = entry.writtenAt
                    state.snapshot.expiresAt = entry.expiresAt
                    state.cachedEventStreams = decoded.eventStreams
                    // A Retry-After an earlier build kept in the cache header still holds.
                    if let notBefore = entry.notBefore, notBefore > now, notBefore > state.notBefore ?? .distantPast {
                        state.notBefore = notBefore
                    }
                    if let notBefore = state.notBefore { state.snapshot.nextRefreshAt = notBefore }
                }
            }
        }
    }

    // MARK: - Fetching

    /// One request at a time: callers arriving while one is in flight share its outcome, except
    /// an event stream's, which must see the server after the change it announced and so waits
    /// for the request in flight and then sends its own.
    ///
    /// - Parameter event: What the event that triggered the request said about the configuration
    ///   (sent only on that request).
    private func fetch(_ trigger: RefreshTrigger, event: EventConfigurationMetadata? = nil) async -> FetchOutcome {
        let afterInFlight = trigger == .serverEvent || trigger == .eventStreamReconnected
        while true {
            let (task, shared) = state.withLock { state -> (Task<FetchOutcome, Never>, Bool) in
                if let inFlight = state.inFlight { return (inFlight, true) }
                let task = Task {
                    let outcome = await self.performFetch(trigger, event: event)
                    self.state.withLock { $0.inFlight = nil }
                    return outcome
                }
                state.inFlight = task
                return (task, false)
            }
            let outcome = await task.value
            if shared && afterInFlight && !Task.isCancelled { continue }
            return outcome
        }
    }

    /// A refetch the event stream asked for, through the normal refresh path (and its waits).
    ///
    /// An event's `changes` are applied without a request when the values are at their base
    /// (or nothing is done when they are at the event's version already); otherwise the
    /// refetch waits a random delay within the event's spread (the retry policy's random
    /// source), so that a change does not bring every client to the server at once.
    private func refetch(for kind: EventStreamFollower.Refetch) async {
        readCacheIfNeeded()
        switch kind {
        case .changed(let event):
            if let changes = event.changes, let version = event.etag, await apply(changes, version: version) { return }
            if event.refetchSpread > 0 {
                let share = configuration.retryPolicy.random()
                let delay = event.refetchSpread * (share.isFinite ? min(max(share, 0), 1) : 0)
                do {
                    try await clock.sleep(until: clock.now.addingTimeInterval(delay))
                } catch {
                    return
                }
            }
            _ = await fetch(.serverEvent, event: event)
        case .reconnected: _ = await fetch(.eventStreamReconnected)
        }
    }

    /// Applies an event's `changes` to the cached OFREP payload; `false` when a refetch is
    /// needed instead (the payload is at another version, or the result does not decode).
    private func apply(_ changes: InlineFlagChanges, version: String) async -> Bool {
        guard configuration.source.format == .ofrep else { return false }
        // A request sent before the event arrived may answer with the state before the change:
        // let it land first. One sent after it sees the change already.
        if let inFlight = state.withLock({ $0.inFlight }) { _ = await inFlight.value }
        guard let entry = state.withLock({ $0.entry }) else { return false }
        switch changes.apply(to: entry.payload, version: version) {
        case .current:
            logger.debug("An event's changes are in the values already", metadata: ["version": "\(version.prefix(64))"])
            return true
        case .mismatch:
            return false
        case .applied(let payload):
            do {
                let decoded = try decode(payload)
                _ = updated(decoded, payload: payload, etag: nil, revision: version, trigger: .serverEvent)
                return true
            } catch {
                return false
            }
        }
    }

    func followEventStreams(_ streams: [RemoteEventStream], refetchOnConnect: Bool) {
        guard configuration.followsEventStreams else { return }
        eventStream.follow(streams, baseURL: configuration.environment.baseURL, refetchOnConnect: refetchOnConnect)
    }

    private func performFetch(_ trigger: RefreshTrigger, event: EventConfigurationMetadata?) async -> FetchOutcome {
        let now = clock.now
        // A request the schedule made (launch, TTL expiry, a retry) that must wait is
        // rescheduled for the end of the wait.
        let scheduled = trigger == .launch || trigger == .timeToLiveExpired || trigger == .retry
            || trigger == .serverEvent || trigger == .eventStreamReconnected
        let gate = state.withLock { state -> (RemoteLoadError?, RemoteCacheEntry?, Date?) in
            if state.stopped {
                return (
                    state.snapshot.lastError
                        ?? RemoteLoadError(.unauthorized, message: "Refreshing stopped after the server refused the app."),
                    nil, nil
                )
            }
            if let notBefore = state.notBefore, now < notBefore {
                return (
                    RemoteLoadError(
                        .rateLimited, statusCode: 429,
                        message:
                            "The server asked for no request for another \(Int(notBefore.timeIntervalSince(now).rounded(.up))) seconds."
                    ), nil, scheduled ? notBefore : nil
                )
            }
            if let retryAt = state.retryAt, now < retryAt {
                guard trigger == .userInitiated, !state.userSkippedWait else {
                    return (
                        RemoteLoadError(
                            .backingOff,
                            message:
                                "Not sent: retrying in \(Int(retryAt.timeIntervalSince(now).rounded(.up))) seconds, after \(state.failures) failed attempts."
                        ), nil, scheduled ? retryAt : nil
                    )
                }
                state.userSkippedWait = true
            } else if trigger != .userInitiated {
                // The wait is over: a new step, whose one early user refresh is still to come.
                state.userSkippedWait = false
            }
            return (nil, state.entry, nil)
        }
        if let error = gate.0 {
            logger.debug("Skipped a remote configuration refresh", metadata: ["trigger": "\(trigger.rawValue)", "reason": "\(error.code)"])
            if let wait = gate.2 { schedule(at: wait) }
            return state.withLock { .failed(error, hasValues: $0.entry != nil, values: $0.snapshot.values) }
        }
        let cached = gate.1

        logger.debug(
            "Requesting remote configuration",
            metadata: [
                "environment": "\(configuration.environment)", "endpoint": "\(configuration.source.endpoint)",
                "trigger": "\(trigger.rawValue)", "conditional": "\(cached?.etag != nil)",
            ])
        // After a gap in the event stream, an unconditional request (OFREP's full refetch).
        let etag = trigger == .eventStreamReconnected ? nil : cached?.etag
        switch await fetcher.fetch(etag: etag, event: event) {
        case .notModified:
            guard let cached else {
                return failed(
                    RemoteLoadError(.notModifiedWithoutCache, statusCode: 304, message: "A 304 arrived with nothing cached to keep."),
                    trigger: trigger)
            }
            return notModified(cached, trigger: trigger)
        case .payload(let response):
            do {
                let decoded = try decode(response.body)
                let etag = response.value(forHeaderField: "ETag")
                return updated(decoded, payload: response.body, etag: etag, revision: etag, trigger: trigger)
            } catch {
                return failed(error, trigger: trigger)
            }
        case .refused(let error):
            return stop(error)
        case .failed(let error, let retryAt):
            return failed(error, trigger: trigger, retryAt: retryAt)
        }
    }

    private func decode(_ data: Data) throws(RemoteLoadError) -> DecodedRemotePayload {
        state.withLock { $0.decodeCount += 1 }
        return try RemotePayloadDecoder.decode(data, format: configuration.source.format, registry: registry)
    }

    // MARK: - Scheduling

    /// Replaces the pending timer with one that refreshes at `date` (TTL expiry or a retry),
    /// unless refreshing has stopped.
    func schedule(at date: Date) {
        mutate { state in
            guard !state.stopped else { return }
            state.snapshot.nextRefreshAt = date
            // Under the state lock, so that the last schedule is the one that stays.
            scheduler.schedule(at: date) { [weak self] in
                guard let self else { return }
                let trigger: RefreshTrigger = self.state.withLock { $0.failures > 0 } ? .retry : .timeToLiveExpired
                _ = await self.fetch(trigger)
            }
        }
    }

    // MARK: - Publishing

    /// Mutates the state and tells snapshot and status subscribers about any change.
    func mutate<Result>(_ body: (inout State) -> Result) -> Result {
        let (result, change, changed) = state.withLock { state -> (Result, (RemoteStatus, RemoteStatus)?, Bool) in
            let before = state.snapshot
            let result = body(&state)
            guard state.snapshot != before else { return (result, nil, false) }
            let statusChanged = state.snapshot.status != before.status
            publisher.changed(state.snapshot, statusChanged: statusChanged)
            return (result, statusChanged ? (before.status, state.snapshot.status) : nil, true)
        }
        // Outside the lock: observers may read the loader.
        if changed { debugStatusChanged() }
        if let (from, to) = change {
            logger.info("Remote configuration status changed", metadata: ["from": "\(from.name)", "to": "\(to)"])
        }
        return result
    }
}
