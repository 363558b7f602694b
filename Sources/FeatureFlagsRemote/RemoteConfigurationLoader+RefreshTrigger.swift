extension RemoteConfigurationLoader {
    /// What started a refresh, for logs.
    public enum RefreshTrigger: String, Sendable {
        case launch
        case foreground
        case timeToLiveExpired = "ttl"
        case retry
        case manual
        case userInitiated = "user"
    }
}

extension RemoteConfigurationLoader.RefreshTrigger {
    /// Whether new values go to ``RemoteConfigurationLoader/updates()`` rather than back to a
    /// caller.
    var isBackground: Bool {
        switch self {
        case .foreground, .timeToLiveExpired, .retry: true
        case .launch, .manual, .userInitiated: false
        }
    }
}
