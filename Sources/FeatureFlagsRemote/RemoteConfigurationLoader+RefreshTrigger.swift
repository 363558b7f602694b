extension RemoteConfigurationLoader {
    /// What started a refresh, for logs.
    public enum RefreshTrigger: String, Sendable {
        case launch
        case foreground
        case timeToLiveExpired = "ttl"
        case retry
        case manual
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
