import Foundation

/// The last good payload, as kept on disk: the raw bytes, their `ETag`, when they were written
/// and for how long they count as fresh.
public struct RemoteCacheEntry: Sendable, Hashable {
    /// The payload as the server sent it, or with the changes an event carried applied to it.
    public var payload: Data
    /// Its format.
    public var format: RemotePayloadFormat
    /// The server's `ETag`, sent back as `If-None-Match`.
    public var etag: String?
    /// When it was fetched or last confirmed by a 304.
    public var writtenAt: Date
    /// How long after `writtenAt` it counts as fresh, in seconds.
    public var ttl: TimeInterval
    /// A hash of the environment, format and evaluation context it was fetched for; an entry for
    /// another context is not used.
    public var cacheKey: String
    /// The server's `Retry-After` moment (a 429), kept so that a relaunch before it sends
    /// nothing; at most ``RemoteDurationLimits/retryAfter`` ahead.
    public var notBefore: Date?

    /// An entry of `payload` as fetched at `writtenAt`, fresh for `ttl` seconds.
    public init(
        payload: Data, format: RemotePayloadFormat, etag: String?, writtenAt: Date, ttl: TimeInterval, cacheKey: String,
        notBefore: Date? = nil
    ) {
        self.notBefore = notBefore
        self.payload = payload
        self.format = format
        self.etag = etag
        self.writtenAt = writtenAt
        self.ttl = ttl
        self.cacheKey = cacheKey
    }

    /// When the entry stops being fresh.
    public var expiresAt: Date { writtenAt.addingTimeInterval(ttl) }

    /// Whether the entry is past its time to live at `date`.
    public func isExpired(at date: Date) -> Bool { date >= expiresAt }
}
