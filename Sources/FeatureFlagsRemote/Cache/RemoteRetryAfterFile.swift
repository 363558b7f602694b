import FeatureFlags
import Foundation

/// The server's `Retry-After` moment, kept in a small file of its own beside the cache, so that
/// a relaunch inside the window sends nothing even when no payload was ever cached (a 429 on
/// the very first launch).
///
/// The file holds one JSON object, `{"version": 1, "notBefore": <seconds from 1970>}`, written
/// atomically like the cache. Reading is bounded (at most ``maximumSize`` bytes) and validated:
/// a moment more than ``RemoteDurationLimits/retryAfter`` ahead is ignored and reported, and a
/// file that cannot be read is moved aside (`<name>.corrupt-<timestamp>`) and reported, never
/// overwritten unseen.
public struct RemoteRetryAfterFile: Sendable {
    /// What reading found.
    public enum ReadResult: Sendable, Hashable {
        /// No file, or a moment already past.
        case none
        /// The moment before which nothing is sent.
        case notBefore(Date)
        /// A file that could not be used; `reason` says why (quoting the field), `movedTo`
        /// where an unreadable file went.
        case invalid(reason: String, movedTo: URL?)
    }

    /// The file's location.
    public let url: URL

    /// The `Retry-After` file at `url` (it need not exist yet).
    public init(url: URL) {
        self.url = url
    }

    /// The file for an environment and format inside `directory`, beside their cache file.
    public init(directory: URL, environment: AppEnvironment.Name, format: RemotePayloadFormat) {
        self.url = directory.appendingPathComponent(
            "feature-flags-remote.\(environment.rawValue).\(format.rawValue).retry-after")
    }

    /// The largest file read (1 KiB); the file this build writes is about 40 bytes.
    public static let maximumSize = 1_024

    static let currentVersion = 1

    private struct Contents: Codable {
        var version: Int
        var notBefore: Double
    }

    /// Reads the moment, after removing temporary files an interrupted write left.
    public func read(now: Date) -> ReadResult {
        AtomicFile.removeStaleTemporaryFiles(for: url)
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue
        guard let size else { return .none }
        guard size <= Self.maximumSize else {
            return .invalid(
                reason: "The Retry-After file has \(size) bytes, more than the \(Self.maximumSize) this build reads.",
                movedTo: moveAside(now: now))
        }
        guard let data = try? Data(contentsOf: url),
            let contents = try? JSONDecoder().decode(Contents.self, from: data)
        else {
            return .invalid(reason: "The Retry-After file is not readable.", movedTo: moveAside(now: now))
        }
        guard contents.version == Self.currentVersion else {
            return .invalid(
                reason: "The Retry-After file has version \(contents.version); this build reads \(Self.currentVersion).",
                movedTo: moveAside(now: now))
        }
        let wait = contents.notBefore - now.timeIntervalSince1970
        guard wait.isFinite, wait <= RemoteDurationLimits.retryAfter.upperBound else {
            return .invalid(
                reason:
                    "The Retry-After file's 'notBefore' (\(contents.notBefore)) is more than \(Int(RemoteDurationLimits.retryAfter.upperBound)) seconds away; it was ignored.",
                movedTo: nil)
        }
        guard wait > 0 else { return .none }
        return .notBefore(Date(timeIntervalSince1970: contents.notBefore))
    }

    /// Writes `notBefore` atomically.
    public func write(_ notBefore: Date) throws {
        let data = try JSONEncoder().encode(
            Contents(version: Self.currentVersion, notBefore: notBefore.timeIntervalSince1970))
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

    private func moveAside(now: Date) -> URL? {
        RemoteCacheFile(url: url).moveAside(now: now)
    }
}
