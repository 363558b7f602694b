extension RemoteConfigurationLoader {
    /// What started a refresh, for logs.
    public enum RefreshTrigger: String, Sendable {
        /// The first load after the loader started.
        case launch
        /// The app came back to the foreground.
        case foreground
        /// The values in effect passed their time to live.
        case timeToLiveExpired = "ttl"
        /// A retry after a failed refresh, at the backoff's time.
        case retry
        /// The app called refresh.
        case manual
        /// The user asked (pull to refresh).
        case userInitiated = "user"
        /// The event stream announced a change.
        case serverEvent = "event"
        /// The event stream reconnected after a gap (an unconditional request).
        case eventStreamReconnected = "reconnect"
    }
}

extension RemoteConfigurationLoader.RefreshTrigger {
    /// Whether new values go to ``RemoteConfigurationLoader/updates()`` rather than back to a
    /// caller.
    var isBackground: Bool {
        switch self {
        case .foreground, .timeToLiveExpired, .retry, .serverEvent, .eventStreamReconnected: true
        case .launch, .manual, .userInitiated: false
        }
    }
}
