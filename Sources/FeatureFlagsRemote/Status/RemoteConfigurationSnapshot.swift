import FeatureFlags
import Foundation

/// What a ``RemoteConfigurationLoader`` holds at one instant: the values in effect, the status,
/// and what happened last.
public struct RemoteConfigurationSnapshot: Sendable, Hashable {
    /// The most ignored values ``ignored`` lists (100): a payload of a million unknown keys
    /// costs a count, not a million entries kept.
    public static let ignoredListLimit = 100

    /// The remote values in effect (empty before anything was loaded).
    public var values: RemoteFlagValues
    /// The status.
    public var status: RemoteStatus
    /// A notice the app may show, when there is one.
    public var notice: RemoteNotice?
    /// The last failure, kept until a refresh succeeds.
    public var lastError: RemoteLoadError?
    /// Values left out of the last applied payload, by key: the first
    /// ``ignoredListLimit`` in key order (``ignoredCount`` says how many there were).
    public var ignored: [IgnoredRemoteValue]
    /// How many values the last applied payload had left out, listed or not.
    public var ignoredCount: Int
    /// What was wrong with the cache file at launch, if anything (it was moved aside).
    public var cacheProblem: String?
    /// When the values in effect were fetched or last confirmed.
    public var fetchedAt: Date?
    /// When they stop being fresh.
    public var expiresAt: Date?
    /// When the next refresh is scheduled (TTL expiry, a retry, or `Retry-After`).
    public var nextRefreshAt: Date?
    /// Whether the server's event stream is connected now, so changes arrive within about a
    /// second rather than at the next TTL refresh.
    public var isEventStreamConnected = false

    /// A snapshot; by default no values and not ready.
    public init(
        values: RemoteFlagValues = .empty, status: RemoteStatus = .notReady, notice: RemoteNotice? = nil,
        lastError: RemoteLoadError? = nil, ignored: [IgnoredRemoteValue] = [], cacheProblem: String? = nil,
        fetchedAt: Date? = nil, expiresAt: Date? = nil, nextRefreshAt: Date? = nil
    ) {
        self.ignoredCount = ignored.count
        let ignored = ignored.count > Self.ignoredListLimit ? Array(ignored.prefix(Self.ignoredListLimit)) : ignored
        self.values = values
        self.status = status
        self.notice = notice
        self.lastError = lastError
        self.ignored = ignored
        self.cacheProblem = cacheProblem
        self.fetchedAt = fetchedAt
        self.expiresAt = expiresAt
        self.nextRefreshAt = nextRefreshAt
    }
}
