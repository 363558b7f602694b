import FeatureFlags
import Foundation
import Logging

/// Crashes the system saw (MetricKit's diagnostics), matched against the crashes the markers
/// reported at this launch.
extension SessionHealthMonitor {
    /// Reports crash diagnostics from the system (MetricKit's, through
    /// `SessionHealthMetricKitSubscriber`) as `$crash` with `detection: "metrickit"` and its
    /// `signal` and `exceptionType`, without unit or variants (the diagnostic does not say which
    /// session it came from).
    ///
    /// A diagnostic whose interval overlaps a session reported as crashed from its marker at this
    /// launch is that crash, already counted with its variants: it is not reported again (one
    /// diagnostic per such session, oldest first). The others are crashes the markers did not
    /// see (in the background, or before ``start(delivering:)``). Each is queued once under a key
    /// of its interval, signal and exception type, so a payload handed over twice counts once.
    /// Diagnostics received before ``start(delivering:)`` wait for it (the first 64). Returns how
    /// many were queued.
    @discardableResult
    public func reportCrashDiagnostics(_ diagnostics: [CrashDiagnostic]) async -> Int {
        await serially {
            let delivery = self.state.withLock { state -> FlagEventDelivery? in
                if state.delivery == nil {
                    // Bounded while they wait: the first 64.
                    state.pendingDiagnostics = Array((state.pendingDiagnostics + diagnostics).prefix(64))
                }
                return state.delivery
            }
            guard let delivery else { return 0 }
            return await self.reportDiagnosticsNow(diagnostics, delivery: delivery)
        }
    }

    func reportDiagnosticsNow(_ diagnostics: [CrashDiagnostic], delivery: FlagEventDelivery) async -> Int {
        var queued = 0
        var seen: [String: Int] = [:]
        for diagnostic in diagnostics {
            let identity =
                "\(Self.milliseconds(diagnostic.begin))-\(Self.milliseconds(diagnostic.end))-\(diagnostic.signal ?? -1)-\(diagnostic.exceptionType ?? -1)"
            let occurrence = seen[identity, default: 0]
            seen[identity] = occurrence + 1
            let key = "metrickit:\(identity)-\(occurrence)"
            let absorbed = state.withLock { state -> Bool in
                if state.absorbedDiagnostics.contains(key) { return true }
                guard
                    let index = state.reportedCrashes.firstIndex(where: {
                        !$0.matched && diagnostic.begin <= $0.reportedAt && diagnostic.end >= $0.start
                    })
                else { return false }
                state.reportedCrashes[index].matched = true
                state.absorbedDiagnostics.insert(key)
                return true
            }
            if absorbed { continue }
            var attributes: [String: FlagValue] = ["detection": "metrickit"]
            if let signal = diagnostic.signal { attributes["signal"] = .int(signal) }
            if let exceptionType = diagnostic.exceptionType { attributes["exceptionType"] = .int(exceptionType) }
            let event = FlagEvent.tracked(
                TrackedFlagEvent(
                    name: Self.crashEventName, value: nil, attributes: attributes, unit: nil, variants: [:],
                    time: configuration.now(), source: configuration.source))
            do {
                if try await delivery.enqueue([event], once: key) { queued += 1 }
            } catch {
                configuration.logger.warning("Could not queue a crash diagnostic: \(error).")
            }
        }
        return queued
    }
}
