import FeatureFlags
import Foundation

// Handled errors the app reports, sent as `$error` with the next flush.
extension SessionHealthMonitor {
    /// Reports an error the app handled as `$error` (attributes `domain`, `code`, `session`, and
    /// `suppressed`: the errors refused by the rate limit since the last one sent), attributed
    /// to the unit that read a new variant most recently in the session and its variants (the
    /// newest of each flag). Sent with the next flush.
    ///
    /// Rate-limited: ``Configuration/errorBurst`` at once, one more per
    /// ``Configuration/errorInterval``, at most ``Configuration/maximumErrorsPerSession`` per
    /// session; beyond that the error is counted, not sent. A domain is cut to 200 bytes.
    /// Returns whether the error will be sent.
    @discardableResult
    public func reportError(domain: String, code: Int) -> Bool {
        let domain = Self.prefix(of: domain, bytes: 200)
        guard !domain.isEmpty else { return false }
        let now = configuration.now()
        let configuration = self.configuration
        return state.withLock { state in
            let elapsed = max(0, now.timeIntervalSince(state.refilled))
            let refill = configuration.errorInterval > 0 ? elapsed / configuration.errorInterval : Double.infinity
            state.tokens = min(Double(configuration.errorBurst), state.tokens + refill)
            state.refilled = now
            let inSession = state.session?.errors ?? state.errorEvents.count
            guard state.tokens >= 1, inSession < configuration.maximumErrorsPerSession,
                state.errorEvents.count < configuration.maximumErrorsPerSession
            else {
                state.suppressedErrors += 1
                return false
            }
            state.tokens -= 1
            state.session?.errors += 1
            var attributes: [String: FlagValue] = ["domain": .string(domain), "code": .int(code)]
            if let session = state.session { attributes["session"] = .string(session.id) }
            if state.suppressedErrors > 0 { attributes["suppressed"] = .int(state.suppressedErrors) }
            state.suppressedErrors = 0
            let latest = state.session?.units.last
            state.errorEvents.append(
                .tracked(
                    TrackedFlagEvent(
                        name: Self.errorEventName, value: nil, attributes: attributes, unit: latest?.unit,
                        variants: latest?.latest ?? [:], time: now, source: configuration.source)))
            return true
        }
    }

    /// The `$error` events waiting for a flush (delivery takes them).
    func takeErrorEvents() -> [FlagEvent] {
        state.withLock { state in
            defer { state.errorEvents = [] }
            return state.errorEvents
        }
    }

    /// Puts back events a flush could not write, ahead of newer ones.
    func returnErrorEvents(_ events: [FlagEvent]) {
        guard !events.isEmpty else { return }
        state.withLock { state in
            state.errorEvents = Array((events + state.errorEvents).prefix(configuration.maximumErrorsPerSession))
        }
    }
}
