import Foundation

extension RemoteConfigurationLoader {
    /// What to load, from where, and how patiently.
    public struct Configuration: Sendable {
        /// The backend.
        public var environment: AppEnvironment
        /// The wire format (and, for OFREP, the evaluation context).
        public var source: RemoteSource
        /// Where the cache file lives (the app's caches or application support directory), or
        /// `nil` for no disk cache.
        public var cacheDirectory: URL?
        /// Seconds a payload stays fresh when it carries no TTL of its own, held to
        /// ``RemoteDurationLimits/timeToLive``.
        public var defaultTTL: TimeInterval
        /// Seconds a request may take before it counts as timed out.
        public var requestTimeout: TimeInterval
        /// Backoff after server errors, timeouts and connection failures.
        public var retryPolicy: RefreshRetryPolicy
        /// The largest body accepted, in bytes.
        public var maximumPayloadSize: Int
        /// Extra header fields for every request (an API key header for an OFREP server, say).
        /// Never logged or cached.
        public var headerFields: [String: String]
        /// Whether the loader follows the event stream an OFREP bulk response advertises
        /// (`eventStreams`), refetching when the server announces a change.
        public var followsEventStreams: Bool
        /// Seconds in the background after which the event stream closes, overriding the
        /// server's `inactivityDelaySec` (otherwise 120 s); held to
        /// ``RemoteDurationLimits/inactivityDelay``.
        public var eventStreamInactivityDelay: TimeInterval?

        /// A configuration loading from `environment`; every other setting has the default documented on its member.
        public init(
            environment: AppEnvironment,
            source: RemoteSource = .appConfig,
            cacheDirectory: URL?,
            defaultTTL: TimeInterval = 300,
            requestTimeout: TimeInterval = 15,
            retryPolicy: RefreshRetryPolicy = RefreshRetryPolicy(),
            maximumPayloadSize: Int = 16 * 1024 * 1024,
            headerFields: [String: String] = [:],
            followsEventStreams: Bool = true,
            eventStreamInactivityDelay: TimeInterval? = nil
        ) {
            self.environment = environment
            self.source = source
            self.cacheDirectory = cacheDirectory
            self.defaultTTL = defaultTTL
            self.requestTimeout = requestTimeout
            self.retryPolicy = retryPolicy
            self.maximumPayloadSize = maximumPayloadSize
            self.headerFields = headerFields
            self.followsEventStreams = followsEventStreams
            self.eventStreamInactivityDelay = eventStreamInactivityDelay
        }
    }
}
