import Synchronization

/// A token bucket per key (a client, or an admin token: see ``RequestAuthenticator``): `burst`
/// requests at once, refilled at `perSecond`.
public final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    /// Requests a key's bucket regains per second.
    public let perSecond: Double
    /// Requests a key may make at once: the bucket's size.
    public let burst: Double
    private let now: @Sendable () -> Double
    private let buckets = Mutex<[String: Bucket]>([:])

    /// Keys kept at most (a fixed bound on memory, about 100 bytes a key). When the table is
    /// full, one sweep forgets every bucket that has refilled (it holds nothing a new bucket
    /// would not) and, if that frees less than an eighth of the table, the least recently used
    /// buckets until it does: a sweep then comes at most once per `maximumKeys / 8` new keys, so
    /// a flood of new clients costs little per request. A client forgotten while it was being
    /// limited starts again with a full burst.
    public let maximumKeys: Int

    /// - Parameter now: seconds on a monotonic clock; injected by tests.
    public init(
        perSecond: Double, burst: Int, maximumKeys: Int = 100_000,
        now: @escaping @Sendable () -> Double = RateLimiter.monotonicSeconds
    ) {
        self.perSecond = perSecond
        self.burst = Double(burst)
        self.maximumKeys = max(1, maximumKeys)
        self.now = now
    }

    /// Takes one request from `key`'s bucket; `nil` if allowed, else the whole seconds to wait.
    public func acquire(_ key: String) -> Int? {
        let time = now()
        return buckets.withLock { buckets in
            if buckets[key] == nil, buckets.count >= maximumKeys {
                buckets = buckets.filter { $0.value.tokens + (time - $0.value.updated) * perSecond < burst }
                let keep = maximumKeys - max(1, maximumKeys / 8)
                if buckets.count > keep {
                    let newest = buckets.sorted { $0.value.updated > $1.value.updated }.prefix(keep)
                    buckets = Dictionary(uniqueKeysWithValues: newest.map { ($0.key, $0.value) })
                }
            }
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: time)
            bucket.tokens = min(burst, bucket.tokens + (time - bucket.updated) * perSecond)
            bucket.updated = time
            defer { buckets[key] = bucket }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            return max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up)))
        }
    }

    /// The number of keys held now (for tests).
    var keyCount: Int { buckets.withLock { $0.count } }

    /// Seconds since the process started, on the monotonic clock.
    public static let monotonicSeconds: @Sendable () -> Double = {
        let duration = ContinuousClock.now - processStart
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

private let processStart = ContinuousClock.now
