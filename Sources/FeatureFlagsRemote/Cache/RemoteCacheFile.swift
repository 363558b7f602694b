import FeatureFlags
import Foundation

/// The on-disk cache: one file holding a one-line JSON header (format, cache key, ETag, write
/// time, TTL, payload length, and the server's `Retry-After` moment while it lasts) followed by
/// the payload bytes.
///
/// Writes are atomic (a temporary file beside it, `<name>.tmp-<random>`, renamed over the old
/// one; leftovers of a killed process are removed on the next read) and, on Apple platforms, use
/// file protection `completeUntilFirstUserAuthentication`, so a background refresh after a
/// reboot can still read it. A file that cannot be read (corrupt, truncated, unknown version)
/// is moved aside, never overwritten, and reported; so is a header whose durations are outside
/// ``RemoteDurationLimits``, which no build ever writes.
public struct RemoteCacheFile: Sendable {
    /// What reading found.
    public enum ReadResult: Sendable, Hashable {
        /// No cache file.
        case missing
        /// A readable entry.
        case entry(RemoteCacheEntry)
        /// An unreadable file, moved to `movedTo` (or left in place when moving failed).
        case corrupt(reason: String, movedTo: URL?)
    }

    /// The file's location.
    public let url: URL

    /// The cache file at `url` (it need not exist yet).
    public init(url: URL) {
        self.url = url
    }

    /// The cache file for an environment and format inside `directory`.
    public init(directory: URL, environment: AppEnvironment.Name, format: RemotePayloadFormat) {
        self.url = directory.appendingPathComponent("feature-flags-remote.\(environment.rawValue).\(format.rawValue).cache")
    }

    static let currentVersion = 1

    /// The largest write time, in seconds from 1970, read back as a time (about the year 5138).
    static let maximumTimestamp: Double = 100_000_000_000

    struct Header: Codable {
        var version: Int
        var format: RemotePayloadFormat
        var cacheKey: String
        var etag: String?
        var writtenAt: Double
        var ttlSeconds: Double
        var payloadLength: Int
        /// The server's `Retry-After` moment, in seconds from 1970, while it lasts.
        var notBefore: Double?
    }

    /// Reads the entry synchronously, after removing temporary files an interrupted write left.
    /// An unreadable file is moved aside to `<name>.corrupt-<timestamp>` first.
    public func read(now: Date) -> ReadResult {
        AtomicFile.removeStaleTemporaryFiles(for: url)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            if !FileManager.default.fileExists(atPath: url.path) { return .missing }
            return .corrupt(reason: "The cache file could not be read.", movedTo: nil)
        }
        switch Self.decode(data, now: now) {
        case .success(let entry):
            return .entry(entry)
        case .failure(let reason):
            return .corrupt(reason: reason, movedTo: moveAside(now: now))
        }
    }

    /// Writes `entry` atomically.
    public func write(_ entry: RemoteCacheEntry) throws {
        let header = Header(
            version: Self.currentVersion, format: entry.format, cacheKey: entry.cacheKey, etag: entry.etag,
            writtenAt: entry.writtenAt.timeIntervalSince1970, ttlSeconds: entry.ttl, payloadLength: entry.payload.count,
            notBefore: entry.notBefore?.timeIntervalSince1970)
        var data = try JSONEncoder().encode(header)
        data.append(0x0A)
        data.append(entry.payload)
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        try AtomicFile.write(data, to: url, options: [.completeFileProtectionUntilFirstUserAuthentication])
        #else
        try AtomicFile.write(data, to: url)
        #endif
    }

    /// Removes the file, if any.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    enum DecodeResult {
        case success(RemoteCacheEntry)
        case failure(String)
    }

    static func decode(_ data: Data, now: Date) -> DecodeResult {
        guard let newline = data.firstIndex(of: 0x0A) else {
            return .failure("The cache file has no header.")
        }
        guard let header = try? JSONDecoder().decode(Header.self, from: data[data.startIndex..<newline]) else {
            return .failure("The cache file's header is not readable.")
        }
        guard header.version == currentVersion else {
            return .failure("The cache file has version \(header.version); this build reads \(currentVersion).")
        }
        guard header.ttlSeconds.isFinite, RemoteDurationLimits.timeToLive.contains(header.ttlSeconds) else {
            return .failure(
                "The cache file's 'ttlSeconds' (\(header.ttlSeconds)) is outside \(Int(RemoteDurationLimits.timeToLive.lowerBound))...\(Int(RemoteDurationLimits.timeToLive.upperBound)) seconds."
            )
        }
        guard header.writtenAt.isFinite, abs(header.writtenAt) < maximumTimestamp else {
            return .failure("The cache file's 'writtenAt' (\(header.writtenAt)) is not a usable time.")
        }
        if let notBefore = header.notBefore {
            let wait = notBefore - now.timeIntervalSince1970
            guard wait.isFinite, wait <= RemoteDurationLimits.retryAfter.upperBound else {
                return .failure(
                    "The cache file's 'notBefore' (\(notBefore)) is more than \(Int(RemoteDurationLimits.retryAfter.upperBound)) seconds away."
                )
            }
        }
        let payload = data[data.index(after: newline)...]
        guard payload.count == header.payloadLength else {
            return .failure(
                "The cache file is truncated: its payload has \(payload.count) of \(header.payloadLength) bytes.")
        }
        return .success(
            RemoteCacheEntry(
                payload: Data(payload), format: header.format, etag: header.etag,
                writtenAt: Date(timeIntervalSince1970: header.writtenAt), ttl: header.ttlSeconds,
                cacheKey: header.cacheKey, notBefore: header.notBefore.map(Date.init(timeIntervalSince1970:))))
    }

    func moveAside(now: Date) -> URL? {
        let stamp = UnixTimestamp.seconds(now)
        var attempt = 0
        while attempt < 100 {
            let suffix = attempt == 0 ? "corrupt-\(stamp)" : "corrupt-\(stamp)-\(attempt)"
            let destination = url.appendingPathExtension(suffix)
            if !FileManager.default.fileExists(atPath: destination.path) {
                do {
                    try FileManager.default.moveItem(at: url, to: destination)
                    return destination
                } catch {
                    return nil
                }
            }
            attempt += 1
        }
        return nil
    }
}
