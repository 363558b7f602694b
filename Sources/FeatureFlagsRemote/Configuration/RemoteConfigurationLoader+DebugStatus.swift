import FeatureFlags

extension RemoteConfigurationLoader: FlagDebugRemoteStatusReporting {
    /// The loader's state for the debug menu: status, source, last fetch, last error and the
    /// event stream's state.
    ///
    /// ```swift
    /// let menu = FlagDebugModel(flags, remote: loader)
    /// ```
    public var debugRemoteStatus: FlagDebugRemoteStatus {
        let snapshot = self.snapshot
        return FlagDebugRemoteStatus(
            state: snapshot.status.name,
            source: snapshot.values.values.isEmpty ? nil : snapshot.values.source,
            lastFetch: snapshot.fetchedAt,
            error: snapshot.lastError.map { "\($0)" },
            notice: snapshot.notice?.message,
            eventStream: eventStream.stateName)
    }
}
