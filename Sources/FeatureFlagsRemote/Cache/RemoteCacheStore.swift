import FeatureFlags
import Foundation
import Logging

/// The loader's side of the disk cache: the file (if there is a cache directory), the key that
/// ties an entry to its environment, base URL, format and evaluation context, reading the entry
/// back with its payload decoded, and writing entries, logging what happened.
struct RemoteCacheStore: Sendable {
    /// What reading the cache found.
    enum Loaded {
        /// A usable entry and its decoded payload.
        case entry(RemoteCacheEntry, DecodedRemotePayload)
        /// An unusable file, moved aside; `reason` says why.
        case problem(reason: String)
        /// Nothing usable and nothing wrong: no directory, no file, or an entry for another
        /// environment or context.
        case nothing
    }

    let file: RemoteCacheFile?
    /// The server's `Retry-After` moment, beside the cache file.
    let retryAfterFile: RemoteRetryAfterFile?
    /// A hash of environment, base URL, format and (for OFREP) the evaluation context's targeting
    /// key and attributes.
    let key: String
    let format: RemotePayloadFormat
    let environment: AppEnvironment
    let logger: Logger

    init(configuration: RemoteConfigurationLoader.Configuration, logger: Logger) {
        let format = configuration.source.format
        self.format = format
        self.environment = configuration.environment
        self.logger = logger
        self.file = configuration.cacheDirectory.map {
            RemoteCacheFile(directory: $0, environment: configuration.environment.name, format: format)
        }
        self.retryAfterFile = configuration.cacheDirectory.map {
            RemoteRetryAfterFile(directory: $0, environment: configuration.environment.name, format: format)
        }
        var identity = "\(configuration.environment.name)|\(configuration.environment.baseURL.absoluteString)|\(format)"
        // The app context (app and OS versions, locale) is left out: values cached before an
        // update serve until the first refresh after it, rather than the build defaults.
        if case .ofrep(let context) = configuration.source { identity += "|" + context.identity.jsonString }
        self.key = Self.hash(identity)
    }

    /// Reads the entry and decodes its payload with `decode`; an unreadable file or payload is
    /// moved aside and reported.
    func load(now: Date, decode: (Data) throws(RemoteLoadError) -> DecodedRemotePayload) -> Loaded {
        guard let file else { return .nothing }
        switch file.read(now: now) {
        case .missing:
            logger.debug("No remote configuration cache yet", metadata: ["environment": "\(environment)"])
            return .nothing
        case .corrupt(let reason, let movedTo):
            return reportProblem(reason, movedTo: movedTo)
        case .entry(let entry):
            guard entry.cacheKey == key, entry.format == format else {
                logger.info(
                    "Ignored the remote configuration cache: it was made for another environment or context",
                    metadata: ["environment": "\(environment)"])
                return .nothing
            }
            do throws(RemoteLoadError) {
                return .entry(entry, try decode(entry.payload))
            } catch {
                return reportProblem(
                    "The cached payload is not readable (\(error.code)).", movedTo: file.moveAside(now: now))
            }
        }
    }

    /// Writes `entry`; a failure is logged, and the values stay in memory.
    func save(_ entry: RemoteCacheEntry) {
        guard let file else { return }
        do {
            try file.write(entry)
        } catch {
            logger.warning("The remote configuration cache could not be written", metadata: ["reason": "\(error)"])
        }
    }

    /// The `Retry-After` moment an earlier launch kept, if it is still ahead; an unusable file
    /// is reported (and, when unreadable, moved aside).
    func loadNotBefore(now: Date) -> Date? {
        switch retryAfterFile?.read(now: now) {
        case nil, .none?:
            return nil
        case .notBefore(let date)?:
            return date
        case .invalid(let reason, let movedTo)?:
            logger.warning(
                "The Retry-After file was unusable and was ignored",
                metadata: ["reason": "\(reason)", "movedTo": "\(movedTo?.lastPathComponent ?? "(not moved)")"])
            return nil
        }
    }

    /// Keeps the `Retry-After` moment for later launches; a failure is logged.
    func saveNotBefore(_ date: Date) {
        do {
            try retryAfterFile?.write(date)
        } catch {
            logger.warning("The Retry-After file could not be written", metadata: ["reason": "\(error)"])
        }
    }

    /// Forgets the kept `Retry-After` moment (a request succeeded).
    func removeNotBefore() {
        retryAfterFile?.remove()
    }

    private func reportProblem(_ reason: String, movedTo: URL?) -> Loaded {
        logger.warning(
            "The remote configuration cache was unreadable and was moved aside",
            metadata: ["reason": "\(reason)", "movedTo": "\(movedTo?.lastPathComponent ?? "(not moved)")"])
        return .problem(reason: reason)
    }

    /// FNV-1a, 64 bits, as hex: a stable, non-reversible tag for the cache key.
    static func hash(_ string: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in string.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}
