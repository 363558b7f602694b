import FeatureFlags
import Foundation
import Logging

/// What a request, or an event's changes, came to: new values, a 304, a failure, or the
/// server's refusal. Each updates the state, the cache and the schedule, and logs it.
extension RemoteConfigurationLoader {
    /// The unit the values are evaluated for: the OFREP context's targeting key (the cache is
    /// keyed by the context, so cached values were served to it too).
    var servedUnit: String? {
        if case .ofrep(let context) = configuration.source { context.targetingKey } else { nil }
    }

    /// New values: from a response (with its `ETag`, which is also the values' revision), or an
    /// event's changes applied to the cached payload (no `ETag`: the next request is
    /// unconditional; the revision is the version the event announced).
    func updated(
        _ decoded: DecodedRemotePayload, payload: Data, etag: String?, revision: String?, trigger: RefreshTrigger
    )
        -> FetchOutcome
    {
        let now = clock.now
        clearPersistedNotBefore()
        let entry = RemoteCacheEntry(
            payload: payload, format: configuration.source.format, etag: etag,
            writtenAt: now,
            ttl: RemoteDurationLimits.clamp(decoded.ttl ?? configuration.defaultTTL, to: RemoteDurationLimits.timeToLive),
            cacheKey: cache.key)
        cache.save(entry)
        logIgnored(decoded.ignored)
        let values = RemoteFlagValues(
            decoded.values, source: configuration.source.format.rawValue, unit: servedUnit, revision: revision)
        logger.info(
            "Remote configuration updated",
            metadata: [
                "environment": "\(configuration.environment)", "trigger": "\(trigger.rawValue)",
                "values": "\(values.values.count)", "ignored": "\(decoded.ignored.count)",
            ])
        mutate { state in
            state.entry = entry
            state.failures = 0
            state.notBefore = nil
            state.retryAt = nil
            state.userSkippedWait = false
            let connected = state.snapshot.isEventStreamConnected
            state.snapshot = RemoteConfigurationSnapshot(
                values: values, status: .ready, ignored: decoded.ignored, cacheProblem: state.snapshot.cacheProblem,
                fetchedAt: now, expiresAt: entry.expiresAt, nextRefreshAt: entry.expiresAt)
            state.snapshot.isEventStreamConnected = connected
            state.cachedEventStreams = decoded.eventStreams
            if trigger.isBackground { publisher.publish(values) } else { publisher.discardUndelivered() }
        }
        schedule(at: entry.expiresAt)
        followEventStreams(decoded.eventStreams, refetchOnConnect: false)
        return .updated(values)
    }

    /// Removes the kept `Retry-After` moment once a request went through.
    func clearPersistedNotBefore() {
        let persisted = state.withLock { state in
            defer { state.hasPersistedNotBefore = false }
            return state.hasPersistedNotBefore
        }
        if persisted { cache.removeNotBefore() }
    }

    /// The most ignored keys one log line names.
    static let ignoredKeysLogged = 5

    /// One warning per payload, however many values it had left out: their count and the
    /// first few keys with their reasons (never values). Values for keys the registry does not
    /// declare are normal on a server shared with other apps: each such key is reported once per
    /// process, at debug level, and never warned about.
    private func logIgnored(_ ignored: [IgnoredRemoteValue]) {
        let problems = ignored.filter { $0.reason != .unknownKey }
        if !problems.isEmpty {
            var first = problems.prefix(Self.ignoredKeysLogged).map(\.description).joined(separator: ", ")
            if problems.count > Self.ignoredKeysLogged { first += ", …" }
            logger.warning(
                "Ignored remote values that don't fit the registry",
                metadata: ["count": "\(problems.count)", "first": "\(first)"])
        }
        let unknown = ignored.lazy.filter { $0.reason == .unknownKey }.map(\.key)
        guard logger.logLevel <= .debug, !unknown.isEmpty else { return }
        let new = UnknownRemoteKeys.shared.firstSightings(of: unknown)
        guard !new.isEmpty else { return }
        var first = new.prefix(Self.ignoredKeysLogged).joined(separator: ", ")
        if new.count > Self.ignoredKeysLogged { first += ", …" }
        logger.debug(
            "Ignored remote values for keys the registry does not declare (each key reported once)",
            metadata: ["count": "\(new.count)", "first": "\(first)"])
    }

    /// A 304: the cached payload is confirmed and its age reset. Nothing is decoded.
    func notModified(_ cached: RemoteCacheEntry, trigger: RefreshTrigger) -> FetchOutcome {
        let now = clock.now
        var entry = cached
        entry.writtenAt = now
        entry.notBefore = nil
        cache.save(entry)
        clearPersistedNotBefore()
        logger.debug("Remote configuration not modified", metadata: ["trigger": "\(trigger.rawValue)"])
        let values = mutate { state -> RemoteFlagValues in
            state.entry = entry
            state.failures = 0
            state.notBefore = nil
            state.retryAt = nil
            state.userSkippedWait = false
            var values = state.snapshot.values
            if values.values.values.contains(where: { $0.reason == .stale }) {
                values.values = values.values.mapValues { value in
                    var value = value
                    if value.reason == .stale { value.reason = .cached }
                    return value
                }
                state.snapshot.values = values
                if trigger.isBackground { publisher.publish(values) }
            }
            state.snapshot.status = .ready
            state.snapshot.notice = nil
            state.snapshot.lastError = nil
            state.snapshot.fetchedAt = now
            state.snapshot.expiresAt = entry.expiresAt
            state.snapshot.nextRefreshAt = entry.expiresAt
            return values
        }
        schedule(at: entry.expiresAt)
        return .notModified(values)
    }

    func failed(_ error: RemoteLoadError, trigger: RefreshTrigger, retryAt: Date? = nil) -> FetchOutcome {
        let now = clock.now
        let (next, outcome, persisted) = mutate { state -> (Date, FetchOutcome, Date?) in
            state.failures += 1
            let next = retryAt ?? now.addingTimeInterval(configuration.retryPolicy.delay(afterFailures: state.failures))
            var persisted: Date?
            if error.code == .rateLimited {
                state.notBefore = next
                state.hasPersistedNotBefore = true
                persisted = next
            } else {
                state.retryAt = next
            }
            let hasValues = state.entry != nil
            state.snapshot.status = hasValues ? .stale : .error(error)
            state.snapshot.notice = hasValues ? nil : RemoteNotice(kind: .usingDefaults)
            state.snapshot.lastError = error
            state.snapshot.nextRefreshAt = next
            return (next, .failed(error, hasValues: hasValues, values: state.snapshot.values), persisted)
        }
        // Kept beside the cache, so that a relaunch before it sends nothing either, even when
        // nothing was ever cached.
        if let persisted { cache.saveNotBefore(persisted) }
        logger.warning(
            "Remote configuration refresh failed",
            metadata: [
                "environment": "\(configuration.environment)", "trigger": "\(trigger.rawValue)",
                "error": "\(error.code)", "status": "\(error.statusCode.map(String.init) ?? "-")",
                "retryInSeconds": "\(Int(next.timeIntervalSince(now).rounded(.up)))",
            ])
        schedule(at: next)
        return outcome
    }

    func stop(_ error: RemoteLoadError) -> FetchOutcome {
        let outcome = mutate { state -> FetchOutcome in
            state.stopped = true
            scheduler.cancel()
            let hasValues = state.entry != nil
            state.snapshot.status = .fatal(error)
            state.snapshot.notice = RemoteNotice(kind: hasValues ? .updatesStopped : .usingDefaults)
            state.snapshot.lastError = error
            state.snapshot.nextRefreshAt = nil
            return .failed(error, hasValues: hasValues, values: state.snapshot.values)
        }
        eventStream.disconnect()
        logger.error(
            "The server refused the app; remote configuration refresh stopped",
            metadata: ["environment": "\(configuration.environment)", "status": "\(error.statusCode ?? 0)"])
        return outcome
    }
}
