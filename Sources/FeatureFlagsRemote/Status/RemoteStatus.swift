/// The state of remote values, in the spirit of OpenFeature's provider states.
public enum RemoteStatus: Sendable, Hashable, CustomStringConvertible {
    /// Nothing loaded yet: no cache, no response. Build defaults are in effect.
    case notReady
    /// Values from a response, or from a cache within its time to live.
    case ready
    /// The last good values are in effect, but they are past their time to live or the last
    /// refresh failed; refreshing goes on.
    case stale
    /// The last refresh failed and there are no values to keep: build defaults are in effect.
    /// Refreshing goes on.
    case error(RemoteLoadError)
    /// The server refused the app (401, 403): refreshing has stopped. The last good values, or
    /// the build defaults, stay in effect.
    case fatal(RemoteLoadError)

    /// A coarse name for logs: `notReady`, `ready`, `stale`, `error`, `fatal`.
    public var name: String {
        switch self {
        case .notReady: "notReady"
        case .ready: "ready"
        case .stale: "stale"
        case .error: "error"
        case .fatal: "fatal"
        }
    }

    /// The status' name, with the error's code for a failure.
    public var description: String {
        switch self {
        case .error(let error), .fatal(let error): "\(name) (\(error.code))"
        default: name
        }
    }
}
