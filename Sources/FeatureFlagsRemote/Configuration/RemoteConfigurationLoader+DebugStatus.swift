import FeatureFlags
import Observation

extension RemoteConfigurationLoader: FlagDebugRemoteStatusReporting {
    /// The loader's state for the debug menu: status, source, last fetch, last error and the
    /// event stream's state. Observed: a SwiftUI view (or `withObservationTracking`) that read it
    /// hears of every change of the loader's snapshot (a fetch, a failure, a new status, the
    /// event stream connecting or dropping).
    ///
    /// ```swift
    /// let menu = FlagDebugModel(flags, remote: loader)
    /// ```
    public var debugRemoteStatus: FlagDebugRemoteStatus {
        debugStatusObservation.access(self, keyPath: \.debugStatusKey)
        let snapshot = self.snapshot
        return FlagDebugRemoteStatus(
            state: snapshot.status.name,
            source: snapshot.values.values.isEmpty ? nil : snapshot.values.source,
            lastFetch: snapshot.fetchedAt,
            error: snapshot.lastError.map { "\($0)" },
            notice: snapshot.notice?.message,
            eventStream: eventStream.stateName)
    }

    /// The key path Observation tracks `debugRemoteStatus` under.
    var debugStatusKey: Int { 0 }

    /// Tells observers of `debugRemoteStatus` that it changed.
    func debugStatusChanged() {
        debugStatusObservation.withMutation(of: self, keyPath: \.debugStatusKey) {}
    }
}
