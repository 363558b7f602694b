import Foundation

/// A store that keeps values in a JSON file such as `debug-feature-flags.json`:
///
/// ```json
/// {"chat_view_redesign": true, "page_size": 20}
/// ```
///
/// Writes go to a temporary file beside it (`<name>.tmp-<random>`) that then replaces the old
/// one, so a crash never leaves half a file; temporaries a killed process left behind are
/// removed when the store is next loaded. A file that cannot be parsed is renamed to `<name>.corrupt-<timestamp>.json` and
/// reported; it is never overwritten.
///
/// Keep override files out of release bundles: they belong in Application Support or a
/// temporary folder on the device, not in the app's resources.
public struct JSONFileFlagStore: FlagValueStore {
    /// The file's location.
    public let url: URL
    /// The clock that stamps the name of an unreadable file moved aside (tests set it).
    package var now: @Sendable () -> Date = { Date() }

    /// A store of the file at `url` (it need not exist yet).
    public init(url: URL) {
        self.url = url
    }

    /// A store at `directory/debug-feature-flags.json`.
    public init(directory: URL, fileName: String = "debug-feature-flags.json") {
        self.url = directory.appendingPathComponent(fileName)
    }

    /// The file's values; none when there is no file.
    /// - Throws: ``FlagStoreError`` when the file cannot be read or is not a JSON object of flag values,
    ///   after moving it aside.
    public func load() throws(FlagStoreError) -> [String: FlagValue] {
        AtomicFile.removeStaleTemporaryFiles(for: url)
        let data: Data
        do {
            guard FileManager.default.fileExists(atPath: url.path) else { return [:] }
            data = try Data(contentsOf: url)
        } catch {
            throw FlagStoreError.unreadable(location: url.path, reason: "\(error)", movedTo: moveAside())
        }
        do {
            return try FlagValue.objectMembers(fromJSON: data)
        } catch {
            let reason =
                data.isEmpty ? "the file is empty" : "it is not a JSON object of flag values (\(Self.summary(of: error)))"
            throw FlagStoreError.unreadable(location: url.path, reason: reason, movedTo: moveAside())
        }
    }

    /// Writes `values` atomically (a temporary file renamed over the old one).
    /// - Throws: ``FlagStoreError`` when the file cannot be written.
    public func save(_ values: [String: FlagValue]) throws(FlagStoreError) {
        do {
            let text = FlagValue.object(values).jsonString + "\n"
            try AtomicFile.write(Data(text.utf8), to: url)
        } catch {
            throw FlagStoreError.unwritable(location: url.path, reason: "\(error)")
        }
    }

    /// Renames the unreadable file beside itself; returns the new path, or `nil` when that failed.
    private func moveAside() -> String? {
        let base = url.deletingPathExtension().lastPathComponent
        let stamp = UnixTimestamp.seconds(now())
        let directory = url.deletingLastPathComponent()
        for attempt in 0..<100 {
            let suffix = attempt == 0 ? "" : "-\(attempt)"
            let target = directory.appendingPathComponent("\(base).corrupt-\(stamp)\(suffix).json")
            guard !FileManager.default.fileExists(atPath: target.path) else { continue }
            do {
                try FileManager.default.moveItem(at: url, to: target)
                return target.path
            } catch {
                return nil
            }
        }
        return nil
    }

    private static func summary(of error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            return context.debugDescription
        }
        if case DecodingError.typeMismatch(_, let context) = error {
            return context.debugDescription
        }
        return "\(error)"
    }
}
